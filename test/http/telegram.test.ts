// Telegram approvals end to end: the notifier posts to a fake Bot API on
// loopback, and clicks come back as webhook Updates to the approval app
// served on loopback, with the secret-token header Telegram sends.
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError, createAgent, createMemoryStore, createRuntime, defineTool, type LinkedRuntime, type SnapshotStore } from 'countersign';
import { createApprovalApp, createTelegramNotifier, serve, type ServeHandle, type TelegramNotifier, type TelegramNotifierOptions } from 'countersign/http';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';
import { expectCredentialsRefused, withCredentials } from '../support/credential-urls.js';
import { CHAT_ID, startFakeTelegram, TELEGRAM_BOT_TOKEN, type FakeTelegram, type TelegramRequest } from '../support/fake-telegram.js';
import { until } from '../redis/redis-harness.js';

const SECRET_TOKEN = 'webhook_secret-0123456789';
const LINK_SECRET = 'link-secret-0123456789abcdef';
const SECRET_VALUE = 'sk-live-abc123SECRETvalue';

interface Setup {
  readonly runtime: LinkedRuntime;
  readonly store: SnapshotStore;
  readonly telegram: FakeTelegram;
  readonly notifier: TelegramNotifier;
  readonly base: string;
  readonly executed: string[];
  readonly appErrors: { error: unknown; operation: string }[];
  readonly notifierErrors: { error: unknown; operation: string }[];
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function setup(options: { links?: boolean; approvers?: string[]; notifier?: Partial<TelegramNotifierOptions>; telegram?: FakeTelegram } = {}): Promise<Setup> {
  const telegram = options.telegram ?? (await startFakeTelegram());
  if (!options.telegram) closers.push(() => telegram.close());
  const executed: string[] = [];
  const appErrors: Setup['appErrors'] = [];
  const notifierErrors: Setup['notifierErrors'] = [];
  const model = createScriptedModel((request) => {
    const last = request.messages.at(-1)!;
    if (last.role === 'tool') return textTurn(`done: ${last.content}`);
    return toolCallTurn([{ name: 'delete_file', args: { path: last.content, apiToken: SECRET_VALUE } }]);
  });
  const tool = defineTool({
    name: 'delete_file',
    description: 'Delete a file',
    input: z.object({ path: z.string().min(1), apiToken: z.string() }),
    needsApproval: true,
    ...(options.approvers ? { approvers: options.approvers } : {}),
    approvalPrompt: (input) => `Delete ${input.path}?`,
    execute: async (input) => {
      executed.push(input.path);
      return { deleted: input.path };
    },
  });
  const store = createMemoryStore();
  const runtime = createRuntime({
    agents: [createAgent({ name: 'files', model, tools: [tool] })],
    store,
    links: { secret: LINK_SECRET },
  });
  const notifier = createTelegramNotifier({
    runtime,
    botToken: TELEGRAM_BOT_TOKEN,
    chatId: CHAT_ID,
    apiUrl: telegram.apiUrl,
    sleep: async () => {},
    onError: (error, context) => notifierErrors.push({ error, operation: context.operation }),
    ...options.notifier,
  });
  runtime.subscribe((event) => void notifier.publish([event]));
  closers.push(() => notifier.flush());
  const app = createApprovalApp(runtime, {
    bearerToken: 'test-bearer-token-0123456789',
    telegram: { secretToken: SECRET_TOKEN, botToken: TELEGRAM_BOT_TOKEN, apiUrl: telegram.apiUrl },
    onError: (error, context) => appErrors.push({ error, operation: context.operation }),
  });
  const server: ServeHandle = await serve(app, { port: 0 });
  closers.push(() => server.close());
  return { runtime, store, telegram, notifier, base: server.url, executed, appErrors, notifierErrors };
}

interface Button {
  readonly text: string;
  readonly callback_data: string;
}

/** Starts a run that pauses on delete_file and returns the message the notifier sent for it. */
async function paused(s: Setup, path = '/tmp/x') {
  const before = s.telegram.calls('sendMessage').length;
  const run = await s.runtime.start('files', { input: path });
  expect(run.status).toBe('awaitingApproval');
  await s.notifier.flush();
  const message = s.telegram.calls('sendMessage')[before];
  if (!message) throw new Error(`no Telegram message; notifier errors: ${s.notifierErrors.map((item) => String(item.error)).join('; ')}`);
  const [approve, deny] = (message.json['reply_markup'] as { inline_keyboard: Button[][] }).inline_keyboard[0]!;
  return { runId: run.runId, approvalId: run.pendingApprovals[0]!.approvalId, message, approve: approve!, deny: deny! };
}

let updateId = 1000;

/** POSTs a callback_query Update the way Telegram delivers it to a webhook. */
async function click(s: Setup, data: string, options: { from?: number; secret?: string | null } = {}): Promise<Response> {
  const from = options.from ?? 4242;
  const update = {
    update_id: ++updateId,
    callback_query: {
      id: `cq-${updateId}`,
      from: { id: from, is_bot: false, first_name: 'Alice', username: 'alice' },
      message: { message_id: 101, date: 1_700_000_000, chat: { id: CHAT_ID, type: 'supergroup', title: 'approvals' }, text: 'Approval needed' },
      chat_instance: '-123456789',
      data,
    },
  };
  const secret = options.secret === undefined ? SECRET_TOKEN : options.secret;
  return fetch(`${s.base}/telegram/webhook`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(secret === null ? {} : { 'x-telegram-bot-api-secret-token': secret }) },
    body: JSON.stringify(update),
  });
}

/** Waits (bounded) until the app has answered `count` callback queries. */
async function answers(s: Setup, count: number): Promise<TelegramRequest[]> {
  await until(() => s.telegram.calls('answerCallbackQuery').length >= count, `${count} answerCallbackQuery calls`);
  return s.telegram.calls('answerCallbackQuery');
}

/** Waits (bounded) until the app has edited `count` messages. */
async function edits(s: Setup, count: number): Promise<TelegramRequest[]> {
  await until(() => s.telegram.calls('editMessageText').length >= count, `${count} editMessageText calls`);
  return s.telegram.calls('editMessageText');
}

const state = async (s: Setup, runId: string) => JSON.stringify(await s.store.load(runId));

describe('createTelegramNotifier: the message', () => {
  it('sends an HTML message with the redacted, escaped arguments, warnings and Approve / Deny buttons whose callback_data fits 64 bytes', async () => {
    const s = await setup();
    const { message, approve, deny, runId, approvalId } = await paused(s, '<script>alert(1)</script>&\u202Etxt.exe');
    expect(message.token).toBe(TELEGRAM_BOT_TOKEN);
    expect(message.headers['content-type']).toMatch(/^application\/json/);
    expect(message.json).toMatchObject({ chat_id: CHAT_ID, parse_mode: 'HTML', link_preview_options: { is_disabled: true } });
    // The secret never reaches Telegram, in any form.
    expect(message.body).not.toContain(SECRET_VALUE);
    expect(message.body).not.toContain('abc123SECRET');
    const text = message.json['text'] as string;
    expect(text).toContain('[REDACTED]');
    expect(text).not.toContain('<script>');
    expect(text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;&amp;');
    expect(text).toMatch(/<pre>[\s\S]*"apiToken": "\[REDACTED\]"[\s\S]*<\/pre>/);
    expect(text).toContain('delete_file');
    expect(text).toContain('Delete &lt;script&gt;');
    expect(text).toContain('⚠️');
    expect(text).toContain('bidirectional');
    expect(text).toContain(runId);
    expect(text.length).toBeLessThanOrEqual(4096);
    // Only the tags the notifier writes itself.
    expect(text.match(/<\/?[a-z]+>/g)!.every((tag) => ['<b>', '</b>', '<i>', '</i>', '<pre>', '</pre>'].includes(tag))).toBe(true);

    expect(approve.text).toContain('Approve');
    expect(deny.text).toContain('Deny');
    for (const button of [approve, deny]) {
      expect(button.callback_data).toMatch(/^cs:[A-Za-z0-9_-]{22}$/);
      expect(Buffer.byteLength(button.callback_data)).toBeLessThanOrEqual(64);
    }
    expect(approve.callback_data).not.toBe(deny.callback_data);
    // The short id stands for the approval's link token, kept in the store.
    const held = await s.runtime.once.get(`telegram:${approve.callback_data.slice(3)}`);
    expect((await s.runtime.inspectLink(held!)).claim).toMatchObject({ runId, approvalId, decision: 'approve' });
    expect(s.notifierErrors).toEqual([]);
  });

  it('cuts long arguments so the whole text fits 4096 characters, visibly and never inside an entity', async () => {
    const s = await setup();
    const { message } = await paused(s, `/tmp/${'<&>'.repeat(3000)}`);
    const text = message.json['text'] as string;
    expect(text.length).toBeLessThanOrEqual(4096);
    expect(text).toContain('… (cut:');
    expect(text).not.toMatch(/&[a-z]{0,3}\n… \(cut/);
    expect(text).toMatch(/<pre>[\s\S]*<\/pre>/);
  });

  it('refuses a runtime without links where the notifier is made (a type error in TypeScript), naming the fix', () => {
    const runtime = createRuntime({ agents: [createAgent({ name: 'a', model: createScriptedModel(() => textTurn('x')), tools: [] })] });
    // @ts-expect-error a runtime made without links cannot mint the buttons' tokens
    expect(() => createTelegramNotifier({ runtime, botToken: TELEGRAM_BOT_TOKEN, chatId: CHAT_ID })).toThrow(/createRuntime\(\{ agents, links \}\)/);
  });

  it('reports a Bot API refusal to onError without the bot token, and never to the run', async () => {
    const telegram = await startFakeTelegram();
    closers.push(() => telegram.close());
    const wrongToken = '987654321:AAF-wrong_Token0123456789abcdefXYZ';
    const s = await setup({ telegram, notifier: { botToken: wrongToken } });
    const run = await s.runtime.start('files', { input: '/tmp/y' });
    await s.notifier.flush();
    expect(run.status).toBe('awaitingApproval');
    expect(telegram.calls('sendMessage')).toHaveLength(1);
    expect(s.notifierErrors.map((item) => item.operation)).toEqual(['post']);
    const message = String(s.notifierErrors[0]!.error);
    expect(message).toContain('Unauthorized');
    expect(message).not.toContain(wrongToken);
    expect(message).not.toContain('AAF-wrong_Token');

    // Unreachable: the error names the URL's host at most, never the token in its path.
    const unreachable = await setup({ notifier: { apiUrl: 'http://127.0.0.1:1', maxAttempts: 2 } });
    await unreachable.runtime.start('files', { input: '/tmp/z' });
    await unreachable.notifier.flush();
    expect(unreachable.notifierErrors.map((item) => item.operation)).toEqual(['post']);
    expect(String(unreachable.notifierErrors[0]!.error)).not.toContain(TELEGRAM_BOT_TOKEN);
    expect(String(unreachable.notifierErrors[0]!.error)).not.toContain('AAE-test_Token');
  });

  it('reports an error that quotes the Bot API URL to onError without the URL or the token', async () => {
    const quoting: typeof fetch = async (input) => {
      throw new Error(`socket hang up: POST ${String(input)}`);
    };
    const s = await setup({ notifier: { fetch: quoting, maxAttempts: 1 } });
    await s.runtime.start('files', { input: '/tmp/x' });
    await s.notifier.flush();
    expect(s.notifierErrors.map((item) => item.operation)).toEqual(['post']);
    const message = String(s.notifierErrors[0]!.error);
    expect(message).toContain('socket hang up: POST');
    expect(message).not.toMatch(/https?:\/\//);
    expect(message).not.toContain('AAE-test_Token');
    expect(message).not.toContain('sendMessage?');
  });

  it('retries a 429 after its retry_after and does not follow a redirect', async () => {
    let limited = 1;
    const telegram = await startFakeTelegram((request) => {
      if (request.json['chat_id'] === '@redirected') return { status: 302, headers: { location: 'http://example.invalid/' } };
      return limited-- > 0 ? { status: 429, body: JSON.stringify({ ok: false, error_code: 429, description: 'Too Many Requests: retry after 3', parameters: { retry_after: 3 } }) } : undefined;
    });
    closers.push(() => telegram.close());
    const waits: number[] = [];
    const s = await setup({ telegram, notifier: { sleep: async (ms) => void waits.push(ms) } });
    await paused(s);
    expect(waits).toEqual([3000]);
    expect(s.notifierErrors).toEqual([]);

    const r = await setup({ telegram, notifier: { chatId: '@redirected' } });
    const before = telegram.requests.length;
    await r.runtime.start('files', { input: '/tmp/z' });
    await r.notifier.flush();
    expect(telegram.requests.length).toBe(before + 1);
    expect(String(r.notifierErrors[0]!.error)).toContain('redirect, not followed');
  });

  it('refuses bad options with a ConfigError that never quotes the token', async () => {
    const { runtime } = await setup();
    expect(() => createTelegramNotifier({ runtime, botToken: 'not a token secret-value', chatId: CHAT_ID })).toThrow(ConfigError);
    try {
      createTelegramNotifier({ runtime, botToken: 'not a token secret-value', chatId: CHAT_ID });
    } catch (error) {
      expect(String(error)).not.toContain('secret-value');
    }
    expect(() => createApprovalApp(runtime, { bearerToken: 'test-bearer-token-0123456789', telegram: { secretToken: 'has spaces and !', botToken: TELEGRAM_BOT_TOKEN } })).toThrow(/secretToken/);
    expect(() => createApprovalApp(runtime, { bearerToken: 'test-bearer-token-0123456789', telegram: { secretToken: 'x'.repeat(257), botToken: TELEGRAM_BOT_TOKEN } })).toThrow(/secretToken/);
  });

  it('refuses an apiUrl with a user name and password, in the notifier and the webhook, pointing at botToken instead', async () => {
    const { runtime } = await setup();
    const apiUrl = withCredentials('https://api.telegram.org');
    expectCredentialsRefused(() => createTelegramNotifier({ runtime, botToken: TELEGRAM_BOT_TOKEN, chatId: CHAT_ID, apiUrl }), 'apiUrl', /Put the credential in botToken/);
    expectCredentialsRefused(
      () => createApprovalApp(runtime, { bearerToken: 'test-bearer-token-0123456789', telegram: { secretToken: SECRET_TOKEN, botToken: TELEGRAM_BOT_TOKEN, apiUrl } }),
      'telegram.apiUrl',
      /Put the credential in botToken/,
    );
  });
});

describe('POST /telegram/webhook', () => {
  it('approves on a click: 200 at once, the tool runs once, the audit names the Telegram user, and the message shows the outcome', async () => {
    const s = await setup();
    const { runId, approve } = await paused(s);
    const response = await click(s, approve.callback_data, { from: 4242 });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('');
    const [answer] = await answers(s, 1);
    expect(answer!.json).toMatchObject({ callback_query_id: expect.stringMatching(/^cq-/), text: 'Approved.' });
    expect(answer!.json['show_alert']).toBeUndefined();
    const [edit] = await edits(s, 1);
    expect(edit!.json).toMatchObject({ chat_id: CHAT_ID, message_id: 101, parse_mode: 'HTML' });
    expect(edit!.json['reply_markup']).toBeUndefined();
    expect(edit!.json['text']).toBe('Approved by Telegram user 4242: delete_file, run is completed.');
    const run = await s.runtime.get(runId);
    expect(run.status).toBe('completed');
    expect(run.audit[0]).toMatchObject({ decision: 'approved', by: 'telegram:4242' });
    expect(s.executed).toEqual(['/tmp/x']);

    // A second click on either button: already decided, nothing runs again.
    const settled = await state(s, runId);
    expect((await click(s, approve.callback_data, { from: 5555 })).status).toBe(200);
    const again = await edits(s, 2);
    expect(again[1]!.json['text']).toMatch(/^Already approved by Telegram user 4242; this button was used before/);
    expect((await answers(s, 2))[1]!.json['text']).toMatch(/Already used/);
    expect(s.executed).toEqual(['/tmp/x']);
    expect(await state(s, runId)).toBe(settled);
    expect(s.appErrors).toEqual([]);
  });

  it('denies on a Deny click; the tool never runs', async () => {
    const s = await setup();
    const { runId, deny } = await paused(s);
    expect((await click(s, deny.callback_data, { from: 77 })).status).toBe(200);
    const [edit] = await edits(s, 1);
    expect(edit!.json['text']).toMatch(/^Denied by Telegram user 77: delete_file, run is /);
    expect((await answers(s, 1))[0]!.json['text']).toBe('Denied.');
    const run = await s.runtime.get(runId);
    expect(run.audit[0]).toMatchObject({ decision: 'denied', by: 'telegram:77' });
    expect(s.executed).toEqual([]);
    expect(s.appErrors).toEqual([]);
  });

  it('tells the chat when the approval was decided elsewhere first, and runs nothing again', async () => {
    const s = await setup();
    const { runId, approvalId, deny } = await paused(s);
    await s.runtime.respond(runId, { approvalId, approved: true, approvedBy: 'bob <b@x>' });
    expect(s.executed).toEqual(['/tmp/x']);
    const settled = await state(s, runId);
    expect((await click(s, deny.callback_data)).status).toBe(200);
    const [edit] = await edits(s, 1);
    expect(edit!.json['text']).toMatch(/^Already approved by bob &lt;b@x&gt;/);
    expect(s.executed).toEqual(['/tmp/x']);
    expect(await state(s, runId)).toBe(settled);
  });

  it('refuses a wrong or missing secret-token header with 401 and changes nothing', async () => {
    const s = await setup();
    const { runId, approve } = await paused(s);
    const before = await state(s, runId);
    for (const secret of ['wrong-secret', null, `${SECRET_TOKEN}x`, '']) {
      const response = await click(s, approve.callback_data, { secret });
      expect(response.status).toBe(401);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(((await response.json()) as { code: string }).code).toBe('invalid_telegram_secret');
    }
    expect(await state(s, runId)).toBe(before);
    expect(s.executed).toEqual([]);
    expect(s.telegram.calls('answerCallbackQuery')).toHaveLength(0);
    // The bearer token does not open this route either, nor is it needed.
    const withBearer = await fetch(`${s.base}/telegram/webhook`, { method: 'POST', headers: { authorization: 'Bearer test-bearer-token-0123456789' }, body: '{}' });
    expect(withBearer.status).toBe(401);
  });

  it('answers an unknown short id with a refusal alert and changes nothing', async () => {
    const s = await setup();
    const { runId } = await paused(s);
    const before = await state(s, runId);
    expect((await click(s, 'cs:AAAAAAAAAAAAAAAAAAAAAA')).status).toBe(200);
    const [answer] = await answers(s, 1);
    expect(answer!.json).toMatchObject({ show_alert: true });
    expect(answer!.json['text']).toMatch(/no longer valid/);
    expect(s.telegram.calls('editMessageText')).toHaveLength(0);
    expect(await state(s, runId)).toBe(before);
    expect(s.executed).toEqual([]);
    // The lookup does not make the id usable later: it stays unknown.
    expect((await click(s, 'cs:AAAAAAAAAAAAAAAAAAAAAA')).status).toBe(200);
    expect((await answers(s, 2))[1]!.json['text']).toMatch(/no longer valid/);
    expect(await state(s, runId)).toBe(before);
  });

  it('leaves the approval open, with only an alert, when the clicker is not an approver', async () => {
    const s = await setup({ approvers: ['telegram:1'] });
    const { runId, approve } = await paused(s);
    const before = await state(s, runId);
    expect((await click(s, approve.callback_data, { from: 2 })).status).toBe(200);
    const [answer] = await answers(s, 1);
    expect(answer!.json).toMatchObject({ show_alert: true });
    expect(answer!.json['text']).toMatch(/may not decide/);
    expect(s.telegram.calls('editMessageText')).toHaveLength(0);
    expect(await state(s, runId)).toBe(before);
    // The approver's click still works.
    await click(s, approve.callback_data, { from: 1 });
    await edits(s, 1);
    expect((await s.runtime.get(runId)).audit[0]).toMatchObject({ decision: 'approved', by: 'telegram:1' });
    expect(s.executed).toEqual(['/tmp/x']);
  });

  it('acknowledges other updates and other buttons with 200 and does nothing', async () => {
    const s = await setup();
    const { runId } = await paused(s);
    const before = await state(s, runId);
    const message = await fetch(`${s.base}/telegram/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': SECRET_TOKEN },
      body: JSON.stringify({ update_id: 1, message: { message_id: 5, chat: { id: CHAT_ID, type: 'supergroup' }, text: '/start' } }),
    });
    expect(message.status).toBe(200);
    expect((await click(s, 'other-bot:123')).status).toBe(200);
    const bad = await fetch(`${s.base}/telegram/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': SECRET_TOKEN },
      body: 'not json',
    });
    expect(bad.status).toBe(400);
    expect(await state(s, runId)).toBe(before);
    expect(s.telegram.calls('answerCallbackQuery')).toHaveLength(0);
  });

  it('never puts the bot token into onError messages when the Bot API refuses the answers', async () => {
    const telegram = await startFakeTelegram((request) => (request.method === 'sendMessage' ? undefined : { status: 400, body: JSON.stringify({ ok: false, error_code: 400, description: `Bad Request: bot${TELEGRAM_BOT_TOKEN} message is not modified` }) }));
    closers.push(() => telegram.close());
    const s = await setup({ telegram });
    const { runId, approve } = await paused(s);
    await click(s, approve.callback_data);
    await until(() => s.appErrors.length >= 2, 'two reported Bot API refusals');
    expect(s.appErrors.map((item) => item.operation)).toEqual(['telegram-answer', 'telegram-edit']);
    for (const item of s.appErrors) {
      expect(String(item.error)).toContain('Bad Request');
      expect(String(item.error)).not.toContain(TELEGRAM_BOT_TOKEN);
      expect(String(item.error)).not.toContain('AAE-test_Token');
    }
    // The decision itself stands.
    expect((await s.runtime.get(runId)).status).toBe('completed');
  });
});
