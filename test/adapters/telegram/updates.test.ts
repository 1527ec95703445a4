// createTelegramUpdates: the bot's webhook route, called with Updates as Telegram sends them (over a real socket in
// the first suite), deciding clicks, asking a denier why, and answering in the chat through a fake Bot API.
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { describe, expect, it } from 'vitest';
import { createTelegramUpdates } from 'countersign/telegram';
import { expectCredentialsRefused, withCredentials } from '../../support/credential-urls.js';
import { renderHtml, startFakeTelegram, TELEGRAM_BOT_TOKEN } from '../../support/fake-telegram.js';
import {
  clickUpdate,
  paused,
  prompts,
  replyUpdate,
  SECRET_TOKEN,
  telegramWorlds,
  type TelegramWorld,
} from './telegram-world.js';

const { world, closers } = telegramWorlds();

const state = async (w: TelegramWorld, runId: string) => JSON.stringify(await w.store.load(runId));
const visible = (text: unknown) => renderHtml(String(text)).visible;
/** The line a card edit added below the card. */
const lastLine = (text: unknown) => visible(text).split('\n\n').at(-1);

/** Serves the route on loopback, collecting the background work it starts. */
async function served(w: TelegramWorld) {
  const work: Promise<unknown>[] = [];
  const server = serve({
    fetch: (request) => w.route.fetch(request, { waitUntil: (promise) => void work.push(promise) }),
    port: 0,
    hostname: '127.0.0.1',
  });
  await new Promise<void>((resolve) => (server.listening ? resolve() : server.once('listening', () => resolve())));
  closers.push(() => new Promise((resolve) => server.close(() => resolve())));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, settled: () => Promise.all(work) };
}

describe('POST /telegram/webhook over a socket', () => {
  it('answers a click 200 at once; the tool runs once, the audit names the Telegram user, the card shows the outcome', async () => {
    const w = await world();
    const { base, settled } = await served(w);
    const { runId, card } = await paused(w);
    const response = await fetch(`${base}/telegram/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': SECRET_TOKEN },
      body: JSON.stringify(clickUpdate(card, card.approve, 4242)),
    });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('');
    await settled();
    await w.notifier.flush();
    const run = await w.runtime.get(runId);
    expect(run.status).toBe('completed');
    expect(run.audit[0]).toMatchObject({ decision: 'approved', by: 'telegram:4242' });
    expect(w.executed).toEqual(['/tmp/x']);
    expect(w.telegram.calls('answerCallbackQuery').map((call) => call.json)).toEqual([
      { callback_query_id: expect.stringMatching(/^cq-/), text: 'Approved.' },
    ]);
    const clickEdit = w.telegram
      .calls('editMessageText')
      .find((edit) => lastLine(edit.json['text'])!.startsWith('Approved by'));
    expect(clickEdit!.json).toMatchObject({ chat_id: card.chatId, message_id: card.messageId, parse_mode: 'HTML' });
    expect(clickEdit!.json['reply_markup']).toBeUndefined();
    expect(lastLine(clickEdit!.json['text'])).toBe('Approved by Telegram user 4242: delete_file, run is completed.');
    expect(w.updateErrors).toEqual([]);
  });

  it('refuses a wrong or missing secret token with a 401 problem, before a chunked body arrives, and changes nothing', async () => {
    const w = await world();
    const { base } = await served(w);
    const { runId, card } = await paused(w);
    const before = await state(w, runId);
    for (const secret of ['wrong-secret', null, `${SECRET_TOKEN}x`, '']) {
      const response = await fetch(`${base}/telegram/webhook`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(secret === null ? {} : { 'x-telegram-bot-api-secret-token': secret }),
        },
        body: JSON.stringify(clickUpdate(card, card.approve, 1)),
      });
      expect(response.status).toBe(401);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(((await response.json()) as { code: string }).code).toBe('invalid_telegram_secret');
    }
    // A body that never ends is not waited for.
    const url = new URL(base);
    const held = httpRequest({
      host: url.hostname,
      port: url.port,
      path: '/telegram/webhook',
      method: 'POST',
      headers: { 'transfer-encoding': 'chunked', 'x-telegram-bot-api-secret-token': 'wrong' },
    });
    held.write('{"update_id":');
    const status = await new Promise<number | undefined>((resolve) =>
      held.on('response', (res) => resolve(res.statusCode)),
    );
    held.destroy();
    expect(status).toBe(401);
    expect(await state(w, runId)).toBe(before);
    expect(w.telegram.calls('answerCallbackQuery')).toHaveLength(0);
  });
});

describe('POST /telegram/webhook: buttons', () => {
  it('approves for the rest of the run', async () => {
    const w = await world();
    const { runId, card } = await paused(w);
    await w.deliver(clickUpdate(card, card.approveForRun, 7));
    expect((await w.runtime.get(runId)).audit[0]).toMatchObject({
      decision: 'approved',
      by: 'telegram:7',
      scope: 'run',
    });
  });

  it('handles a redelivered update once', async () => {
    const w = await world();
    const { runId, card } = await paused(w);
    const update = clickUpdate(card, card.approve, 7);
    expect((await w.deliver(update)).status).toBe(200);
    const settled = await state(w, runId);
    expect((await w.deliver(update)).status).toBe(200);
    expect(w.telegram.calls('answerCallbackQuery')).toHaveLength(1);
    expect(await state(w, runId)).toBe(settled);
    expect(w.executed).toEqual(['/tmp/x']);
  });

  it('tells a second clicker it was already decided, and a click after a decision elsewhere who decided', async () => {
    const w = await world();
    const first = await paused(w, '/tmp/1');
    await w.deliver(clickUpdate(first.card, first.card.approve, 1));
    await w.deliver(clickUpdate(first.card, first.card.approve, 2));
    expect(lastLine(w.telegram.calls('editMessageText').at(-1)!.json['text'])).toMatch(
      /^Already approved by Telegram user 1; nothing was done again\. This button was used before\./,
    );
    const second = await paused(w, '/tmp/2');
    await w.runtime.respond(second.runId, { approvalId: second.approvalId, approved: true, approvedBy: 'bob <b@x>' });
    await w.notifier.flush();
    const before = w.telegram.calls('sendMessage').length;
    await w.deliver(clickUpdate(second.card, second.card.deny, 3));
    // No reason is asked for an approval that is no longer pending.
    expect(w.telegram.calls('sendMessage')).toHaveLength(before);
    expect(w.telegram.calls('answerCallbackQuery').at(-1)!.json['text']).toMatch(/^Already/);
    expect(w.executed).toEqual(['/tmp/1', '/tmp/2']);
  });

  it('answers an unknown short id, and a clicker who may not decide, with an alert; the approval stays open', async () => {
    const w = await world({ approvers: ['telegram:1'] });
    const { runId, card } = await paused(w);
    const before = await state(w, runId);
    await w.deliver(clickUpdate(card, { text: '?', callback_data: 'cs:AAAAAAAAAAAAAAAAAAAAAA' }, 1));
    await w.deliver(clickUpdate(card, card.approve, 2));
    expect(w.telegram.calls('answerCallbackQuery').map((call) => [call.json['show_alert'], call.json['text']])).toEqual(
      [
        [true, 'This button is no longer valid (unknown or expired); nothing was done.'],
        [true, 'Telegram user 2 may not decide this approval; nothing was done. Ask one of its approvers.'],
      ],
    );
    expect(w.telegram.calls('editMessageText')).toHaveLength(0);
    expect(await state(w, runId)).toBe(before);
    await w.deliver(clickUpdate(card, card.approve, 1));
    expect((await w.runtime.get(runId)).audit[0]).toMatchObject({ decision: 'approved', by: 'telegram:1' });
  });

  it("acknowledges other updates and other bots' buttons with 200 and does nothing; a body that is not JSON is a 400", async () => {
    const w = await world();
    const { runId, card } = await paused(w);
    const before = await state(w, runId);
    expect(
      (
        await w.deliver({
          update_id: 1,
          message: { message_id: 5, chat: { id: card.chatId, type: 'supergroup' }, text: '/start' },
        })
      ).status,
    ).toBe(200);
    expect((await w.deliver(clickUpdate(card, { text: 'x', callback_data: 'other-bot:123' }, 1))).status).toBe(200);
    expect((await w.deliver('not json')).status).toBe(400);
    expect(await state(w, runId)).toBe(before);
    expect(w.telegram.calls('answerCallbackQuery')).toHaveLength(0);
  });

  it('never puts the bot token into onError when the Bot API refuses the answers; the decision stands', async () => {
    const telegram = await startFakeTelegram((request) =>
      request.method === 'sendMessage'
        ? undefined
        : {
            status: 400,
            body: JSON.stringify({
              ok: false,
              error_code: 400,
              description: `Bad Request: bot${TELEGRAM_BOT_TOKEN} message is not modified`,
            }),
          },
    );
    closers.push(() => telegram.close());
    const w = await world({ telegram });
    const { runId, card } = await paused(w);
    await w.deliver(clickUpdate(card, card.approve, 1));
    expect(w.updateErrors.map((item) => item.operation)).toEqual(['bot-api', 'bot-api']);
    for (const item of [...w.updateErrors, ...w.notifierErrors]) {
      expect(String(item.error)).toContain('Bad Request');
      expect(String(item.error)).not.toContain('AAE-test_Token');
    }
    expect((await w.runtime.get(runId)).status).toBe('completed');
  });
});

describe('POST /telegram/webhook: deny with a reason', () => {
  it('asks the clicker why with a force-reply prompt; their reply denies with it, in the audit and on the card', async () => {
    const w = await world();
    const { runId, card } = await paused(w);
    await w.deliver(clickUpdate(card, card.deny, 77));
    expect(w.telegram.calls('answerCallbackQuery').at(-1)!.json['text']).toBe(
      'Reply to the message below with a reason, or send /skip.',
    );
    const [prompt] = prompts(w.telegram);
    expect(prompt!.request.json).toMatchObject({
      chat_id: card.chatId,
      reply_parameters: { message_id: card.messageId },
      reply_markup: { force_reply: true, selective: true },
    });
    expect(prompt!.request.json['text']).toBe(
      '<a href="tg://user?id=77">Telegram user 77</a>, why deny <b>delete_file</b>? Reply with a reason, or send /skip.',
    );
    expect((await w.runtime.get(runId)).status).toBe('awaitingApproval');

    // Someone else's reply is ignored, and leaves the prompt for the denier.
    await w.deliver(replyUpdate(card.chatId, prompt!.messageId, 'approve it!', 88));
    expect((await w.runtime.get(runId)).status).toBe('awaitingApproval');
    expect(w.telegram.calls('editMessageText')).toHaveLength(0);

    const reply = replyUpdate(card.chatId, prompt!.messageId, '  too risky <now>  ', 77);
    await w.deliver(reply);
    const run = await w.runtime.get(runId);
    expect(run.audit[0]).toMatchObject({ decision: 'denied', by: 'telegram:77', reason: 'too risky <now>' });
    expect(w.executed).toEqual([]);
    const lines = w.telegram
      .calls('editMessageText')
      .map((edit) => [edit.json['message_id'], lastLine(edit.json['text'])]);
    expect(lines).toContainEqual([card.messageId, `Denied by Telegram user 77: delete_file, run is ${run.status}.`]);
    expect(lines).toContainEqual([card.messageId, '❌ Denied by Telegram user 77: too risky <now>.']);

    // The same reply delivered again decides nothing and edits nothing.
    const edits = w.telegram.calls('editMessageText').length;
    await w.deliver({ ...reply, update_id: reply.update_id + 100_000 });
    expect(w.telegram.calls('editMessageText')).toHaveLength(edits);
  });

  it('denies without a reason on /skip', async () => {
    const w = await world();
    const { runId, card } = await paused(w);
    await w.deliver(clickUpdate(card, card.deny, 5));
    await w.deliver(replyUpdate(card.chatId, prompts(w.telegram)[0]!.messageId, '/skip@countersign_bot', 5));
    const [entry] = (await w.runtime.get(runId)).audit;
    expect(entry).toMatchObject({ decision: 'denied', by: 'telegram:5' });
    expect(entry!.reason ?? '').not.toContain('skip');
  });
});

describe('createTelegramUpdates: options', () => {
  it('refuses a secret token Telegram would refuse and an apiUrl with credentials, never quoting a secret', async () => {
    const { runtime } = await world();
    expect(() =>
      createTelegramUpdates({ runtime, botToken: TELEGRAM_BOT_TOKEN, secretToken: 'has spaces and !' }),
    ).toThrow(/createTelegramUpdates: secretToken must be 1 to 256 characters/);
    expect(() =>
      createTelegramUpdates({ runtime, botToken: TELEGRAM_BOT_TOKEN, secretToken: 'x'.repeat(257) }),
    ).toThrow(/secretToken/);
    const badToken = () => createTelegramUpdates({ runtime, botToken: 'nope secret-value', secretToken: SECRET_TOKEN });
    expect(badToken).toThrow(/createTelegramUpdates: botToken must be a bot token/);
    expect(badToken).not.toThrow(/secret-value/);
    expectCredentialsRefused(
      () =>
        createTelegramUpdates({
          runtime,
          botToken: TELEGRAM_BOT_TOKEN,
          secretToken: SECRET_TOKEN,
          apiUrl: withCredentials('https://api.telegram.org'),
        }),
      'apiUrl',
      /Put the credential in botToken/,
    );
  });
});
