// Slack approvals end to end: the notifier posts Block Kit messages to a fake
// Slack on loopback, and clicks come back to the approval app served on
// loopback, signed the way Slack signs them.
import { createHmac } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { z } from 'zod';
import { ConfigError, createAgent, createMemoryStore, createRuntime, defineTool, type LinkedRuntime, type SnapshotStore } from 'countersign';
import { createApprovalApp, createSlackNotifier, serve, SLACK_ACTION_IDS, type ServeHandle, type SlackNotifier, type SlackNotifierOptions } from 'countersign/http';
import { createRedisStore } from 'countersign/redis';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';
import { expectCredentialsRefused, withCredentials } from '../support/credential-urls.js';
import { BOT_TOKEN, startFakeSlack, type FakeSlack, type SlackRequest } from '../support/fake-slack.js';
import { removePrefix, uniquePrefix, until } from '../redis/redis-harness.js';
import { tcpProxy } from '../support/tcp-proxy.js';
import { linkUrls } from '../support/link-urls.js';

const SIGNING_SECRET = '8f742231b10e8888abcd99yyyzzz85a5';
const LINK_SECRET = 'link-secret-0123456789abcdef';
const SECRET_VALUE = 'sk-live-abc123SECRETvalue';
/** The app's clock: Slack timestamps are checked against it, so no test sleeps. */
const NOW_MS = Date.UTC(2026, 0, 1, 12, 0, 0);
const NOW_S = Math.floor(NOW_MS / 1000);

interface Setup {
  readonly runtime: LinkedRuntime;
  readonly store: SnapshotStore;
  readonly slack: FakeSlack;
  readonly notifier: SlackNotifier;
  readonly base: string;
  /** Paths the tool ran with. */
  readonly executed: string[];
  readonly appErrors: { error: unknown; operation: string }[];
  readonly notifierErrors: { error: unknown; operation: string }[];
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function setup(options: { store?: SnapshotStore; resumeTimeoutMs?: number; links?: boolean; gate?: Promise<void>; approvers?: string[]; approvalTtlMs?: number; notifier?: Partial<SlackNotifierOptions>; otherOrigin?: string; slack?: FakeSlack } = {}): Promise<Setup> {
  const slack = options.slack ?? (await startFakeSlack());
  if (!options.slack) closers.push(() => slack.close());
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
      await options.gate;
      executed.push(input.path);
      return { deleted: input.path };
    },
  });
  const store = options.store ?? createMemoryStore();
  const runtime = createRuntime({
    agents: [createAgent({ name: 'files', model, tools: [tool], ...(options.approvalTtlMs ? { approvalTtlMs: options.approvalTtlMs } : {}) })],
    store,
    links: { secret: LINK_SECRET },
  });
  const notifier = createSlackNotifier({
    runtime,
    ...(options.notifier?.token === undefined ? { webhookUrl: slack.webhookUrl } : {}),
    sleep: async () => {},
    onError: (error, context) => notifierErrors.push({ error, operation: context.operation }),
    ...options.notifier,
  });
  runtime.subscribe((event) => void notifier.publish([event]));
  closers.push(() => notifier.flush());
  const app = createApprovalApp(runtime, {
    bearerToken: 'test-bearer-token-0123456789',
    clock: () => NOW_MS,
    slack: { signingSecret: SIGNING_SECRET, responseUrlOrigins: [slack.origin] },
    ...(options.resumeTimeoutMs === undefined ? {} : { resumeTimeoutMs: options.resumeTimeoutMs }),
    onError: (error, context) => appErrors.push({ error, operation: context.operation }),
  });
  const server: ServeHandle = await serve(app, { port: 0 });
  closers.push(() => server.close());
  return { runtime, store, slack, notifier, base: server.url, executed, appErrors, notifierErrors };
}

/** Starts a run that pauses on delete_file and returns the Slack message the notifier posted for it. */
async function paused(s: Setup, path = '/tmp/x') {
  const before = s.slack.messages().length;
  const run = await s.runtime.start('files', { input: path });
  expect(run.status).toBe('awaitingApproval');
  await s.notifier.flush();
  const message = s.slack.messages()[before];
  if (!message) throw new Error(`no Slack message; notifier errors: ${s.notifierErrors.map((item) => String(item.error)).join('; ')}`);
  const buttons = (message.json['blocks'] as { type: string; elements?: { action_id: string; value: string; style: string }[] }[]).find((block) => block.type === 'actions')!.elements!;
  return {
    runId: run.runId,
    approvalId: run.pendingApprovals[0]!.approvalId,
    message,
    approve: buttons.find((button) => button.action_id === SLACK_ACTION_IDS.approve)!,
    deny: buttons.find((button) => button.action_id === SLACK_ACTION_IDS.deny)!,
  };
}

interface Click {
  readonly value: string;
  readonly actionId?: string;
  readonly user?: string;
  readonly responseUrl?: string;
  /** Seconds for X-Slack-Request-Timestamp. */
  readonly at?: number;
  readonly secret?: string;
  readonly headers?: Record<string, string>;
  readonly type?: string;
}

/** POSTs a block_actions interaction the way Slack does: a form body with payload=<JSON>, signed v0. */
async function click(s: Setup, input: Click): Promise<Response> {
  const payload = {
    type: input.type ?? 'block_actions',
    user: { id: input.user ?? 'U123', username: 'alice', name: 'alice', team_id: 'T000' },
    api_app_id: 'A000',
    token: 'legacy-verification-token',
    container: { type: 'message', message_ts: '1700000000.000001', channel_id: 'C000', is_ephemeral: false },
    trigger_id: '123.456.abc',
    team: { id: 'T000', domain: 'example' },
    channel: { id: 'C000', name: 'approvals' },
    response_url: input.responseUrl ?? s.slack.responseUrl(),
    actions: [
      {
        action_id: input.actionId ?? SLACK_ACTION_IDS.approve,
        block_id: 'countersign_decision',
        text: { type: 'plain_text', text: 'Approve', emoji: false },
        value: input.value,
        style: 'primary',
        type: 'button',
        action_ts: '1700000001.000001',
      },
    ],
  };
  const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  const at = String(input.at ?? NOW_S);
  const signature = `v0=${createHmac('sha256', input.secret ?? SIGNING_SECRET).update(`v0:${at}:${body}`).digest('hex')}`;
  return fetch(`${s.base}/slack/actions`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-slack-request-timestamp': at, 'x-slack-signature': signature, ...input.headers },
    body,
  });
}

/** Waits (bounded) until the app has posted `count` response_url answers. */
async function responses(s: Setup, count: number): Promise<SlackRequest[]> {
  await until(() => s.slack.responses().length >= count, `${count} response_url posts`);
  return s.slack.responses();
}

/** The parts of a Block Kit block the tests read. */
interface Block {
  readonly type: string;
  readonly text?: { readonly type: string; readonly text: string };
  readonly elements?: readonly { readonly type: string; readonly text?: string | { readonly text: string } }[];
}

const state = async (s: Setup, runId: string) => JSON.stringify(await s.store.load(runId));

describe('createSlackNotifier: the message', () => {
  it('posts a Block Kit message with the redacted, escaped arguments and Approve / Deny buttons carrying link tokens', async () => {
    const s = await setup();
    const { message, approve, deny, runId, approvalId } = await paused(s, '<!channel><script>alert(1)</script>&\u202Etxt.exe');
    expect(message.path).toBe('/services/T000/B000/secretpath');
    expect(message.headers['content-type']).toMatch(/^application\/json/);
    // The secret never reaches Slack, in any form.
    expect(message.body).not.toContain(SECRET_VALUE);
    expect(message.body).not.toContain('abc123SECRET');
    expect(message.body).toContain('[REDACTED]');
    // Model text cannot mention the channel or inject markup.
    expect(message.body).not.toContain('<!channel>');
    expect(message.body).not.toContain('<script>');
    expect(message.body).toContain('&lt;!channel&gt;&lt;script&gt;');
    expect(message.json['unfurl_links']).toBe(false);

    const blocks = message.json['blocks'] as Block[];
    expect(blocks.map((block) => block.type)).toEqual(['header', 'section', 'section', 'section', 'context', 'actions']);
    const texts = blocks.flatMap((block) => [block.text?.text, ...(block.elements ?? []).map((element) => (typeof element.text === 'string' ? element.text : element.text?.text))]);
    expect(texts.filter((text) => text !== undefined)).toHaveLength(7);
    for (const text of texts) expect(text?.length ?? 0).toBeLessThanOrEqual(3000);
    expect(blocks[1]!.text!.text).toContain('*delete_file*');
    expect(blocks[1]!.text!.text).toContain('Delete &lt;!channel&gt;');
    expect(blocks[2]!.text!.text).toMatch(/^```[\s\S]*"apiToken": "\[REDACTED\]"[\s\S]*```$/);
    expect(blocks[3]!.text!.text).toContain(':warning:');
    expect(blocks[3]!.text!.text).toContain('bidirectional');
    expect(blocks[4]!.elements![0]!.text).toContain(runId);

    expect(approve).toMatchObject({ type: 'button', style: 'primary', text: { type: 'plain_text', text: 'Approve' } });
    expect(deny).toMatchObject({ type: 'button', style: 'danger', text: { type: 'plain_text', text: 'Deny' } });
    const approveClaim = await s.runtime.inspectLink(approve.value);
    const denyClaim = await s.runtime.inspectLink(deny.value);
    expect(approveClaim.claim).toMatchObject({ runId, approvalId, decision: 'approve' });
    expect(denyClaim.claim).toMatchObject({ runId, approvalId, decision: 'deny' });
    expect(approveClaim.claim.approvedBy).toBeUndefined();
    expect(s.notifierErrors).toEqual([]);
  });

  it('cuts long arguments to Slack\'s 3000-character section limit, visibly, and never inside an entity', async () => {
    const s = await setup();
    const { message } = await paused(s, `/tmp/${'<&>'.repeat(1500)}`);
    const args = (message.json['blocks'] as Block[])[2]!.text!.text as string;
    expect(args.length).toBeLessThanOrEqual(3000);
    expect(args).toContain('… (cut:');
    expect(args).not.toMatch(/&[a-z]{0,3}```/);
    expect(args.startsWith('```')).toBe(true);
  });

  it('posts with a bot token through chat.postMessage and threads the outcome of a decision made elsewhere', async () => {
    const slack = await startFakeSlack();
    closers.push(() => slack.close());
    const s = await setup({ slack, notifier: { token: BOT_TOKEN, channel: 'C0123', apiUrl: slack.apiUrl } });
    const { runId, approvalId, message } = await paused(s);
    expect(message.path).toBe('/api/chat.postMessage');
    expect(message.headers.authorization).toBe(`Bearer ${BOT_TOKEN}`);
    expect(message.json['channel']).toBe('C0123');
    await s.runtime.respond(runId, { approvalId, approved: false, approvedBy: 'bob <b@x>', reason: 'no' });
    await s.notifier.flush();
    const followUp = s.slack.messages().at(-1)!;
    expect(followUp.json['thread_ts']).toBe('1700000000.000001');
    expect(followUp.json['text']).toContain('was denied by bob &lt;b@x&gt;');
    expect(s.notifierErrors).toEqual([]);
  });

  it('shows when the buttons stop working, and posts a line when the approval expires unanswered', async () => {
    const s = await setup({ approvalTtlMs: 60_000 });
    const { runId, approvalId, message } = await paused(s);
    const expiresAt = (await s.runtime.get(runId)).pendingApprovals[0]!.expiresAt!;
    const context = (message.json['blocks'] as Block[]).find((block) => block.type === 'context')!.elements![0]!.text as string;
    // The buttons never outlive the approval.
    expect(context).toContain(`<!date^${Math.floor(expiresAt / 1000)}^`);
    expect(context).toContain(new Date(expiresAt).toISOString());
    await s.runtime.sweepExpired(expiresAt + 1);
    await s.notifier.flush();
    expect(s.slack.messages().at(-1)!.json['text']).toBe(`Approval \`${approvalId}\` (*delete_file*) expired and was denied.`);
    expect(s.executed).toEqual([]);
  });

  it('retries a Slack 500 with backoff, does not retry a refusal, and reports failures to onError, never to the run', async () => {
    let failures = 1;
    const slack = await startFakeSlack((request) => (request.path.startsWith('/services/') && failures-- > 0 ? { status: 500, body: 'oops' } : undefined));
    closers.push(() => slack.close());
    const waits: number[] = [];
    const s = await setup({ slack, notifier: { sleep: async (ms) => void waits.push(ms), backoffMs: 100 } });
    await paused(s);
    expect(s.slack.messages()).toHaveLength(2);
    expect(waits).toEqual([100]);

    const refusing = await startFakeSlack(() => ({ status: 404, body: 'no_service' }));
    closers.push(() => refusing.close());
    const r = await setup({ slack: refusing });
    const run = await r.runtime.start('files', { input: '/tmp/y' });
    await r.notifier.flush();
    expect(run.status).toBe('awaitingApproval');
    expect(refusing.messages()).toHaveLength(1);
    expect(r.notifierErrors.map((item) => item.operation)).toEqual(['post']);
    expect(String(r.notifierErrors[0]!.error)).toContain('HTTP 404: no_service');
    expect(String(r.notifierErrors[0]!.error)).not.toContain('secretpath');
  });

  it('reports a failed post to onError without the webhook URL, even when the error quotes it', async () => {
    const slack = await startFakeSlack(() => ({ status: 500, body: 'oops' }));
    closers.push(() => slack.close());
    // As HTTP clients like ky or got word it: the method and the full URL.
    const quoting: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      throw new Error(`Request failed with status code ${response.status}: POST ${String(input)}`);
    };
    const s = await setup({ slack, notifier: { fetch: quoting, maxAttempts: 1 } });
    await s.runtime.start('files', { input: '/tmp/x' });
    await s.notifier.flush();
    expect(s.notifierErrors.map((item) => item.operation)).toEqual(['post']);
    const message = String(s.notifierErrors[0]!.error);
    expect(message).toContain('Request failed with status code 500: POST 127.0.0.1:');
    expect(message).not.toContain('secretpath');
    expect(message).not.toContain('/services/');
  });

  it('skips, without an error, an approval decided before its message went out', async () => {
    const s = await setup();
    const { runId, approvalId } = await paused(s);
    await s.runtime.respond(runId, { approvalId, approved: true, approvedBy: 'slack:U1' });
    const run = await s.runtime.get(runId);
    await s.notifier.publish([{ type: 'approval-requested', runId, agentName: 'files', request: { approvalId, toolCallId: run.audit[0]!.toolCallId, toolName: 'delete_file', args: {}, argsDigest: run.audit[0]!.argsDigest, description: 'late', requestedAt: 0, warnings: [] } }]);
    await s.notifier.flush();
    expect(s.slack.messages()).toHaveLength(1);
    expect(s.notifierErrors).toEqual([]);
  });

  it('honours a 429\'s Retry-After, and does not retry a chat.postMessage refusal', async () => {
    let limited = 1;
    const slack = await startFakeSlack((request) => {
      if (request.json['channel'] === 'C-missing') return { status: 200, body: JSON.stringify({ ok: false, error: 'channel_not_found' }) };
      return limited-- > 0 ? { status: 429, headers: { 'retry-after': '7' } } : undefined;
    });
    closers.push(() => slack.close());
    const waits: number[] = [];
    const s = await setup({ slack, notifier: { token: BOT_TOKEN, channel: 'C0123', apiUrl: slack.apiUrl, sleep: async (ms) => void waits.push(ms) } });
    await paused(s);
    expect(waits).toEqual([7000]);

    const r = await setup({ slack, notifier: { token: BOT_TOKEN, channel: 'C-missing', apiUrl: slack.apiUrl } });
    const before = slack.messages().length;
    await r.runtime.start('files', { input: '/tmp/z' });
    await r.notifier.flush();
    expect(slack.messages()).toHaveLength(before + 1);
    expect(String(r.notifierErrors[0]!.error)).toContain('channel_not_found');
    expect(String(r.notifierErrors[0]!.error)).not.toContain(BOT_TOKEN);
  });

  it('refuses a runtime without links where the notifier is made (a type error in TypeScript), naming the fix', () => {
    const runtime = createRuntime({ agents: [createAgent({ name: 'a', model: createScriptedModel(() => textTurn('x')), tools: [] })] });
    // @ts-expect-error a runtime made without links cannot mint the buttons' tokens
    expect(() => createSlackNotifier({ runtime, webhookUrl: 'https://hooks.slack.com/services/T000/B000/XXXX' })).toThrow(/createRuntime\(\{ agents, links \}\)/);
  });

  it('refuses bad options with a ConfigError that never repeats a secret', () => {
    const runtime = createRuntime({ agents: [createAgent({ name: 'a', model: createScriptedModel(() => textTurn('x')), tools: [] })], links: { secret: LINK_SECRET } });
    expect(() => createSlackNotifier({ runtime })).toThrow(/either webhookUrl .* or token and channel/);
    expect(() => createSlackNotifier({ runtime, webhookUrl: 'https://hooks.slack.com/x', token: 'xoxb-123456789' })).toThrow(ConfigError);
    expect(() => createSlackNotifier({ runtime, token: 'xoxb-123456789' })).toThrow(/needs a channel/);
    expect(() => createSlackNotifier({ runtime, webhookUrl: 'hooks.slack.com/services/SECRETPATH' })).toThrow(ConfigError);
    try {
      createSlackNotifier({ runtime, webhookUrl: 'hooks.slack.com/services/SECRETPATH' });
    } catch (error) {
      expect((error as Error).message).not.toContain('SECRETPATH');
    }
    expect(() => createSlackNotifier({ runtime: {} as LinkedRuntime, webhookUrl: 'https://hooks.slack.com/x' })).toThrow(/runtime/);
  });

  it('refuses webhook, API and response URLs with a user name and password, pointing at the token or secret instead', () => {
    const runtime = createRuntime({ agents: [createAgent({ name: 'a', model: createScriptedModel(() => textTurn('x')), tools: [] })], links: { secret: LINK_SECRET } });
    const hook = 'https://hooks.slack.com/services/T000/B000/XXXX';
    expectCredentialsRefused(() => createSlackNotifier({ runtime, webhookUrl: withCredentials(hook) }), 'webhookUrl', /Put the credential in token/);
    expectCredentialsRefused(() => createSlackNotifier({ runtime, token: 'xoxb-123456789', channel: 'C1', apiUrl: withCredentials('https://slack.com/api') }), 'apiUrl', /Put the credential in token/);
    expectCredentialsRefused(
      () => createApprovalApp(runtime, { bearerToken: 'test-bearer-token-0123456789', slack: { signingSecret: SIGNING_SECRET, responseUrlOrigins: [withCredentials('https://hooks.slack.com')] } }),
      'slack.responseUrlOrigins.0',
      /Put the credential in signingSecret/,
    );
  });
});

describe('POST /slack/actions', () => {
  it('answers 200 at once, approves as slack:<user>, runs the tool once and replaces the message with the outcome', async () => {
    const s = await setup();
    const { runId, approvalId, approve } = await paused(s);
    const res = await click(s, { value: approve.value, user: 'U123' });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('');
    const [answer] = await responses(s, 1);
    expect(answer!.json).toEqual({ replace_original: true, text: 'Approved by <@U123>: *delete_file*, run is completed.' });
    expect(s.executed).toEqual(['/tmp/x']);
    const run = await s.runtime.get(runId);
    expect(run.status).toBe('completed');
    expect(run.audit.find((entry) => entry.approvalId === approvalId)).toMatchObject({ decision: 'approved', by: 'slack:U123' });

    // The same button again (by anyone): refused, nothing runs again.
    const before = await state(s, runId);
    expect((await click(s, { value: approve.value, user: 'U999' })).status).toBe(200);
    const second = (await responses(s, 2))[1]!;
    expect(second.json['text']).toBe('Already approved by <@U123>; this button was used before, so nothing was done again.');
    expect(s.executed).toEqual(['/tmp/x']);
    expect(await state(s, runId)).toBe(before);
    expect(s.appErrors).toEqual([]);
    // The click already rewrote the message: no follow-up post for a Slack decision.
    await s.notifier.flush();
    expect(s.slack.messages()).toHaveLength(1);
  });

  it('answers before the approved tool has run, and posts the outcome once the run settles', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const s = await setup({ gate });
    const { runId, approve } = await paused(s);
    const res = await click(s, { value: approve.value });
    expect(res.status).toBe(200);
    // The tool is still held: the answer did not wait for it, and nothing was posted yet.
    expect(s.executed).toEqual([]);
    expect(s.slack.responses()).toEqual([]);
    release();
    expect((await responses(s, 1))[0]!.json['text']).toBe('Approved by <@U123>: *delete_file*, run is completed.');
    expect(s.executed).toEqual(['/tmp/x']);
    expect((await s.runtime.get(runId)).status).toBe('completed');
  });

  it('denies with the Deny button; the tool never runs, and Approve afterwards is refused', async () => {
    const s = await setup();
    const { runId, approve, deny } = await paused(s);
    expect((await click(s, { value: deny.value, actionId: SLACK_ACTION_IDS.deny, user: 'U456' })).status).toBe(200);
    expect((await responses(s, 1))[0]!.json['text']).toBe('Denied by <@U456>: *delete_file*, run is completed.');
    expect(s.executed).toEqual([]);
    expect((await s.runtime.get(runId)).audit[0]).toMatchObject({ decision: 'denied', by: 'slack:U456' });

    await click(s, { value: approve.value, user: 'U123' });
    expect((await responses(s, 2))[1]!.json).toMatchObject({ replace_original: true, text: expect.stringContaining('Already denied by <@U456>') });
    expect(s.executed).toEqual([]);
  });

  it.each([
    ['a wrong secret', { secret: 'another-signing-secret-0123456' }, 'bad_signature'],
    ['an empty signature', { headers: { 'x-slack-signature': '' } }, 'missing_headers'],
    ['a truncated signature', { headers: { 'x-slack-signature': 'v0=abcdef' } }, 'bad_signature'],
    ['a timestamp 301 s in the past', { at: NOW_S - 301 }, 'stale_timestamp'],
    ['a timestamp 301 s in the future', { at: NOW_S + 301 }, 'stale_timestamp'],
    ['a timestamp that is not a number', { headers: { 'x-slack-request-timestamp': 'soon' } }, 'bad_timestamp'],
  ])('refuses %s with 401 and changes nothing', async (_name, input, reason) => {
    const s = await setup();
    const { runId, approve } = await paused(s);
    const before = await state(s, runId);
    const res = await click(s, { value: approve.value, ...input });
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(await res.json()).toMatchObject({ code: 'invalid_slack_signature', reason });
    expect(await state(s, runId)).toBe(before);
    expect(s.executed).toEqual([]);
    expect(s.slack.responses()).toEqual([]);
  });

  it('verifies Slack\'s own worked example (docs: verifying requests from Slack)', async () => {
    const runtime = createRuntime({ agents: [createAgent({ name: 'a', model: createScriptedModel(() => textTurn('x')), tools: [] })], links: { secret: LINK_SECRET } });
    const app = createApprovalApp(runtime, { bearerToken: 'test-bearer-token-0123456789', clock: () => 1531420618_000, slack: { signingSecret: '8f742231b10e8888abcd99yyyzzz85a5' } });
    const body =
      'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner' +
      '&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN' +
      '&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c';
    const post = (signature: string) =>
      app.request('/slack/actions', { method: 'POST', headers: { 'x-slack-request-timestamp': '1531420618', 'x-slack-signature': signature }, body });
    // The signature verifies; a slash command has no payload field, so the body is refused after it.
    const good = await post('v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503');
    expect(good.status).toBe(400);
    expect(await good.json()).toMatchObject({ code: 'invalid_body' });
    const flipped = await post('v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b504');
    expect(flipped.status).toBe(401);
  });

  it('refuses a request without the Slack headers with 401', async () => {
    const s = await setup();
    const res = await fetch(`${s.base}/slack/actions`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'payload=%7B%7D' });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ code: 'invalid_slack_signature', reason: 'missing_headers' });
  });

  it('accepts a timestamp exactly 300 s away, either way', async () => {
    const s = await setup();
    const { approve, deny } = await paused(s);
    expect((await click(s, { value: 'not-ours', actionId: 'someone_else', at: NOW_S - 300 })).status).toBe(200);
    expect((await click(s, { value: 'not-ours', actionId: 'someone_else', at: NOW_S + 300 })).status).toBe(200);
    expect(approve.value).not.toBe(deny.value);
  });

  it('does not take a bearer token instead of Slack\'s signature', async () => {
    const s = await setup();
    const res = await fetch(`${s.base}/slack/actions`, {
      method: 'POST',
      headers: { authorization: 'Bearer test-bearer-token-0123456789', 'content-type': 'application/x-www-form-urlencoded' },
      body: 'payload=%7B%7D',
    });
    expect(res.status).toBe(401);
  });

  it('records the decision but never calls a response_url on another origin', async () => {
    const s = await setup();
    const other = await startFakeSlack();
    closers.push(() => other.close());
    const { runId, approve } = await paused(s);
    expect((await click(s, { value: approve.value, responseUrl: other.responseUrl() })).status).toBe(200);
    await until(() => s.appErrors.length > 0, 'the refused response_url is reported');
    expect(s.appErrors[0]!.operation).toBe('slack-response');
    expect(String(s.appErrors[0]!.error)).toContain('not on an allowed origin');
    expect(other.requests).toEqual([]);
    expect((await s.runtime.get(runId)).status).toBe('completed');
  });

  it('refuses a forged token: the clicker alone is told, nothing changes', async () => {
    const s = await setup();
    const { runId, approve } = await paused(s);
    const before = await state(s, runId);
    const [payload] = approve.value.split('.');
    const forged = `${payload}.${'A'.repeat(43)}`;
    expect((await click(s, { value: forged })).status).toBe(200);
    const [answer] = await responses(s, 1);
    expect(answer!.json).toEqual({ replace_original: false, response_type: 'ephemeral', text: 'This button is not valid (its token does not verify); nothing was done.' });
    expect(await state(s, runId)).toBe(before);
    expect(s.executed).toEqual([]);
  });

  it('tells a clicker the rule does not allow, privately, and leaves the buttons for those it does', async () => {
    const s = await setup({ approvers: ['slack:U0ALLOWED'] });
    const { runId, approve } = await paused(s);
    const before = await state(s, runId);
    await click(s, { value: approve.value, user: 'U0OTHER' });
    expect((await responses(s, 1))[0]!.json).toEqual({
      replace_original: false,
      response_type: 'ephemeral',
      text: '<@U0OTHER> may not decide this approval; nothing was done. Ask one of its approvers.',
    });
    expect(await state(s, runId)).toBe(before);
    await click(s, { value: approve.value, user: 'U0ALLOWED' });
    expect((await responses(s, 2))[1]!.json['text']).toBe('Approved by <@U0ALLOWED>: *delete_file*, run is completed.');
    expect(s.executed).toEqual(['/tmp/x']);
  });

  it('lets a token minted for a person win over the Slack user who clicked it', async () => {
    const s = await setup();
    const { runId, approvalId } = await paused(s);
    const links = await linkUrls(s.runtime, runId, approvalId, { approvedBy: 'alice@example.com' });
    await click(s, { value: links.approve.split('/links/')[1]!, user: 'U777' });
    expect((await responses(s, 1))[0]!.json['text']).toBe('Approved by alice@example.com: *delete_file*, run is completed.');
    expect((await s.runtime.get(runId)).audit[0]!.by).toBe('alice@example.com');
  });

  it('acknowledges other interactions and other apps\' buttons with 200 and does nothing', async () => {
    const s = await setup();
    const { runId, approve } = await paused(s);
    const before = await state(s, runId);
    expect((await click(s, { value: approve.value, type: 'view_submission' })).status).toBe(200);
    expect((await click(s, { value: approve.value, actionId: 'other_app_button' })).status).toBe(200);
    expect(await state(s, runId)).toBe(before);
    expect(s.slack.responses()).toEqual([]);
  });

  it('answers 400 for a signed body without a payload, and is not mounted without the slack option', async () => {
    const s = await setup();
    const body = 'nothing=here';
    const signature = `v0=${createHmac('sha256', SIGNING_SECRET).update(`v0:${NOW_S}:${body}`).digest('hex')}`;
    const res = await fetch(`${s.base}/slack/actions`, { method: 'POST', headers: { 'x-slack-request-timestamp': String(NOW_S), 'x-slack-signature': signature }, body });
    expect(res.status).toBe(400);
    const plain = createApprovalApp(s.runtime, { bearerToken: 'test-bearer-token-0123456789' });
    expect((await plain.request('/slack/actions', { method: 'POST', body })).status).toBe(404);
  });
});

const redisUrl = inject('redisUrl');

describe.skipIf(!redisUrl)('Slack approvals with the Redis store', () => {
  let redis: Redis;
  const prefixes: string[] = [];
  beforeAll(() => {
    redis = new Redis(redisUrl!, { maxRetriesPerRequest: 1 });
    redis.on('error', () => {});
  });
  afterAll(async () => {
    for (const prefix of prefixes) await removePrefix(redis, prefix);
    await redis.quit();
  });

  it('approves once from Slack and refuses the second click', async () => {
    const prefix = uniquePrefix();
    prefixes.push(prefix);
    const s = await setup({ store: createRedisStore({ redis, prefix }) });
    const { runId, approve } = await paused(s);
    expect((await click(s, { value: approve.value, user: 'U123' })).status).toBe(200);
    expect((await responses(s, 1))[0]!.json['text']).toBe('Approved by <@U123>: *delete_file*, run is completed.');
    await click(s, { value: approve.value, user: 'U123' });
    expect((await responses(s, 2))[1]!.json['text']).toContain('this button was used before');
    expect(s.executed).toEqual(['/tmp/x']);
    expect((await s.runtime.get(runId)).status).toBe('completed');
  });

  it('never tells Slack a decision was recorded while Redis cannot write it (an outage longer than resumeTimeoutMs); the next click records it', async () => {
    const prefix = uniquePrefix();
    prefixes.push(prefix);
    const { hostname, port } = new URL(redisUrl!);
    const proxy = await tcpProxy({ host: hostname, port: Number(port || 6379) });
    const viaProxy = new Redis(proxy.url, { maxRetriesPerRequest: 3, retryStrategy: () => 150 });
    viaProxy.on('error', () => {});
    closers.push(async () => {
      viaProxy.disconnect();
      await proxy.close();
    });
    const s = await setup({ store: createRedisStore({ redis: viaProxy, prefix }), resumeTimeoutMs: 250 });
    const { runId, approve } = await paused(s);
    await proxy.cut();
    await click(s, { value: approve.value, user: 'U123' });
    expect((await responses(s, 1))[0]!.json['text']).toBe('Your decision could not be recorded just now; click again in a moment.');
    expect((await createRedisStore({ redis, prefix }).load(runId))?.audit).toEqual([]);
    await proxy.restore();
    await click(s, { value: approve.value, user: 'U123' });
    expect((await responses(s, 2))[1]!.json['text']).toMatch(/^(Approved by <@U123>: \*delete_file\*, run is completed\.|Decision by <@U123> recorded; the run is carrying on\.)$/);
    await until(async () => (await s.runtime.get(runId)).status === 'completed', 'the run completed');
    expect(s.executed).toEqual(['/tmp/x']);
  });
});
