// createTelegramNotifier against a fake Bot API on loopback: what a card reads and where it goes, its buttons,
// how it is edited when the approval ends, and failures reported without the bot token.
import { describe, expect, it } from 'vitest';
import { ConfigError, createAgent, createRuntime } from 'countersign';
import { createTelegramNotifier } from 'countersign/telegram';
import { createScriptedModel, textTurn } from 'countersign/testing';
import { expectCredentialsRefused, withCredentials } from '../../support/credential-urls.js';
import { CHAT_ID, renderHtml, startFakeTelegram, TELEGRAM_BOT_TOKEN } from '../../support/fake-telegram.js';
import { cards, paused, SECRET_VALUE, telegramWorlds } from './telegram-world.js';

const { world, closers } = telegramWorlds();

describe('createTelegramNotifier: the card', () => {
  it('is HTML with the redacted, escaped arguments, connector and warnings, and three buttons whose callback_data fits 64 bytes', async () => {
    const w = await world();
    const { card, runId, approvalId } = await paused(w, '<script>alert(1)</script>&\u202Etxt.exe');
    const { request } = card;
    expect(request.token).toBe(TELEGRAM_BOT_TOKEN);
    expect(request.json).toMatchObject({
      chat_id: CHAT_ID,
      parse_mode: 'HTML',
      link_preview_options: { is_disabled: true },
    });
    expect(request.body).not.toContain(SECRET_VALUE);
    expect(request.body).not.toContain('abc123SECRET');
    const text = request.json['text'] as string;
    expect(text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;&amp;');
    expect(text).toMatch(/<pre>[\s\S]*"apiToken": "\[REDACTED\]"[\s\S]*<\/pre>/);
    const { visible, tags } = renderHtml(text);
    expect(visible).toContain('delete_file wants to run for agent files through files <prod>.');
    expect(visible).toContain('Delete <script>alert(1)</script>&');
    expect(visible).toMatch(/⚠️ Check the arguments carefully:\n• .*bidirectional/);
    expect(visible).toContain(runId);
    expect(tags.every((tag) => ['<b>', '</b>', '<i>', '</i>', '<pre>', '</pre>'].includes(tag))).toBe(true);

    expect([card.approve.text, card.approveForRun.text, card.deny.text]).toEqual([
      '✅ Approve',
      '✅ Approve for this run',
      '❌ Deny',
    ]);
    const ids = [card.approve, card.approveForRun, card.deny].map((button) => button.callback_data);
    for (const data of ids) {
      expect(data).toMatch(/^cs:[A-Za-z0-9_-]{22}$/);
      expect(Buffer.byteLength(data)).toBeLessThanOrEqual(64);
    }
    expect(new Set(ids).size).toBe(3);
    // Each short id stands for its one-click token, kept in the runtime's OnceStore.
    const claims = await Promise.all(
      ids.map(
        async (data) =>
          (await w.runtime.inspectLink((await w.runtime.once.get(`telegram:button:${data.slice(3)}`))!)).claim,
      ),
    );
    expect(claims.map((claim) => [claim.runId, claim.approvalId, claim.decision, claim.scope])).toEqual([
      [runId, approvalId, 'approve', undefined],
      [runId, approvalId, 'approve', 'run'],
      [runId, approvalId, 'deny', undefined],
    ]);
    expect(w.notifierErrors).toEqual([]);
  });

  it('cuts long arguments so the card, and the card with its outcome, fit 4096 characters, visibly and never inside an entity', async () => {
    const w = await world();
    const { card, runId, approvalId } = await paused(w, `/tmp/${'<&>'.repeat(3000)}`);
    const text = card.request.json['text'] as string;
    expect(text.length).toBeLessThanOrEqual(4096);
    expect(text).toContain('… (cut:');
    expect(text).not.toMatch(/&[a-z]{0,3}\n… \(cut/);
    expect(renderHtml(text).error).toBeUndefined();
    await w.runtime.respond(runId, {
      approvalId,
      approved: false,
      approvedBy: 'ops',
      reason: `${'r'.repeat(1500)} why`,
    });
    await w.notifier.flush();
    const [edit] = w.telegram.calls('editMessageText');
    const edited = edit!.json['text'] as string;
    expect(edited.length).toBeLessThanOrEqual(4096);
    // No room left for the reason: the arguments made way, the rest of the card and the whole line are there.
    expect(renderHtml(edited).visible).toContain('(arguments left out to make room)');
    expect(renderHtml(edited).visible).toContain(`❌ Denied by ops: ${'r'.repeat(1500)} why.`);
    expect(w.notifierErrors).toEqual([]);
  });
});

describe('createTelegramNotifier: where cards go', () => {
  it('asks in the chat (and forum topic) each run came from, and in the default chat for a run from elsewhere', async () => {
    const w = await world();
    await paused(w, '/tmp/a', { channel: 'telegram', address: '-100111', thread: '7' });
    await paused(w, '/tmp/b', { channel: 'telegram', address: '222' });
    await paused(w, '/tmp/c');
    await paused(w, '/tmp/d', { channel: 'slack', address: 'C123' });
    const sent = cards(w.telegram).map((card) => [
      card.request.json['chat_id'],
      card.request.json['message_thread_id'],
      /\/tmp\/\w/.exec(card.request.json['text'] as string)?.[0],
    ]);
    expect(sent).toEqual([
      ['-100111', 7, '/tmp/a'],
      ['222', undefined, '/tmp/b'],
      [CHAT_ID, undefined, '/tmp/c'],
      [CHAT_ID, undefined, '/tmp/d'],
    ]);
  });
});

describe('createTelegramNotifier: the card once the approval ends', () => {
  it('edits the card in its own chat, buttons removed, when it is decided elsewhere and again when the tool finishes, keeping each line', async () => {
    const w = await world();
    const { card, runId, approvalId } = await paused(w, '/tmp/y', { channel: 'telegram', address: '-100333' });
    await w.runtime.respond(runId, { approvalId, approved: true, approvedBy: 'bob <b@x>' });
    await w.notifier.flush();
    expect(w.executed).toEqual(['/tmp/y']);
    const edits = w.telegram.calls('editMessageText');
    expect(edits.map((edit) => [edit.json['chat_id'], edit.json['message_id'], edit.json['reply_markup']])).toEqual([
      [-100333, card.messageId, undefined],
      [-100333, card.messageId, undefined],
    ]);
    const [decided, finished] = edits.map((edit) => renderHtml(edit.json['text'] as string).visible);
    const original = renderHtml(card.request.json['text'] as string).visible;
    expect(decided).toBe(`${original}\n\n✅ Approved by bob <b@x>.`);
    expect(finished).toBe(`${original}\n\n✅ Approved by bob <b@x>.\n\n▶️ delete_file ran: {"deleted":"/tmp/y"}`);
  });

  it("shows a denier's reason from elsewhere, escaped", async () => {
    const w = await world();
    const { runId, approvalId } = await paused(w);
    await w.runtime.respond(runId, {
      approvalId,
      approved: false,
      approvedBy: 'carol',
      reason: 'not <b>now</b> & never',
    });
    await w.notifier.flush();
    const [edit] = w.telegram.calls('editMessageText');
    expect(edit!.json['text']).toMatch(/❌ Denied by carol: not &lt;b&gt;now&lt;\/b&gt; &amp; never\.$/);
    expect(w.executed).toEqual([]);
  });
});

describe('createTelegramNotifier: failures', () => {
  it('reports a Bot API refusal to onError without the bot token, and never to the run', async () => {
    const wrongToken = '987654321:AAF-wrong_Token0123456789abcdefXYZ';
    const w = await world({ notifier: { botToken: wrongToken } });
    const run = await w.runtime.start('files', { input: '/tmp/y' });
    await w.notifier.flush();
    expect(run.status).toBe('awaitingApproval');
    expect(w.telegram.calls('sendMessage')).toHaveLength(1);
    expect(w.notifierErrors.map((item) => item.operation)).toEqual(['post']);
    const message = String(w.notifierErrors[0]!.error);
    expect(message).toContain('Unauthorized');
    expect(message).not.toContain('AAF-wrong_Token');

    // Unreachable: the error names the host at most, never the token in the URL's path.
    const unreachable = await world({ notifier: { apiUrl: 'http://127.0.0.1:1', maxAttempts: 2 } });
    await unreachable.runtime.start('files', { input: '/tmp/z' });
    await unreachable.notifier.flush();
    expect(unreachable.notifierErrors.map((item) => item.operation)).toEqual(['post']);
    expect(String(unreachable.notifierErrors[0]!.error)).not.toContain('AAE-test_Token');
  });

  it('reports an error that quotes the Bot API URL without the URL or the token', async () => {
    const quoting: typeof fetch = async (input) => {
      throw new Error(`socket hang up: POST ${String(input)}`);
    };
    const w = await world({ notifier: { fetch: quoting, maxAttempts: 1 } });
    await w.runtime.start('files', { input: '/tmp/x' });
    await w.notifier.flush();
    const error = w.notifierErrors[0]!.error as Error;
    const text = `${String(error)} ${String(error.cause ?? '')} ${JSON.stringify(error)}`;
    expect(text).toContain('socket hang up: POST');
    expect(text).not.toMatch(/https?:\/\//);
    expect(text).not.toContain('AAE-test_Token');
  });

  it("waits a 429's retry_after (from the body, as Telegram sends it) and does not follow a redirect", async () => {
    let limited = 1;
    const telegram = await startFakeTelegram((request) => {
      if (request.json['chat_id'] === '@redirected')
        return { status: 302, headers: { location: 'http://example.invalid/' } };
      return limited-- > 0
        ? {
            status: 429,
            body: JSON.stringify({
              ok: false,
              error_code: 429,
              description: 'Too Many Requests: retry after 3',
              parameters: { retry_after: 3 },
            }),
          }
        : undefined;
    });
    closers.push(() => telegram.close());
    const waits: number[] = [];
    const w = await world({ telegram, notifier: { sleep: async (ms) => void waits.push(ms) } });
    await paused(w);
    expect(waits).toEqual([3000]);
    expect(w.notifierErrors).toEqual([]);

    const r = await world({ telegram, notifier: { chatId: '@redirected' } });
    const before = telegram.requests.length;
    await r.runtime.start('files', { input: '/tmp/z' });
    await r.notifier.flush();
    expect(telegram.requests.length).toBe(before + 1);
    expect(String(r.notifierErrors[0]!.error)).toContain('not followed; configure the final URL');
  });
});

describe('createTelegramNotifier: options', () => {
  it('refuses a runtime without links (a type error in TypeScript), a bad token without quoting it, and an apiUrl with credentials', async () => {
    const plain = createRuntime({
      agents: [createAgent({ name: 'a', model: createScriptedModel(() => textTurn('x')), tools: [] })],
    });
    // @ts-expect-error a runtime made without links cannot mint the buttons' tokens
    expect(() => createTelegramNotifier({ runtime: plain, botToken: TELEGRAM_BOT_TOKEN, chatId: CHAT_ID })).toThrow(
      /createRuntime\(\{ agents, links \}\)/,
    );
    const { runtime } = await world();
    const bad = () => createTelegramNotifier({ runtime, botToken: 'not a token secret-value', chatId: CHAT_ID });
    expect(bad).toThrow(ConfigError);
    expect(bad).toThrow(/createTelegramNotifier: botToken must be a bot token from BotFather/);
    expect(bad).not.toThrow(/secret-value/);
    expect(() => createTelegramNotifier({ runtime, botToken: TELEGRAM_BOT_TOKEN, chatId: 'general' })).toThrow(
      /chatId must be a chat id or @channelusername/,
    );
    // @ts-expect-error a misspelt option is refused by name
    expect(() => createTelegramNotifier({ runtime, botToken: TELEGRAM_BOT_TOKEN, chatId: CHAT_ID, chat: 1 })).toThrow(
      /unknown option chat/,
    );
    expectCredentialsRefused(
      () =>
        createTelegramNotifier({
          runtime,
          botToken: TELEGRAM_BOT_TOKEN,
          chatId: CHAT_ID,
          apiUrl: withCredentials('https://api.telegram.org'),
        }),
      'apiUrl',
      /Put the credential in botToken/,
    );
  });
});
