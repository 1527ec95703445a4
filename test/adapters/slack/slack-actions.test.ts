// The Slack actions route: signed interactions only (checked before the body is parsed), answered 200 at once,
// decided in the background as slack:<user>, the clicker told on the payload's response_url (allowed origins only,
// no redirects). Deny asks why in a modal when the route has a bot token.
import { request as httpRequest } from 'node:http';
import { serve } from '@hono/node-server';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ConfigError, createAgent, createRuntime } from 'countersign';
import { createSlackActions, type SLACK_ACTION_IDS } from 'countersign/slack';
import { createRedisStore } from 'countersign/redis';
import { createScriptedModel, textTurn } from 'countersign/testing';
import { expectCredentialsRefused, withCredentials } from '../../support/credential-urls.js';
import { BOT_TOKEN, renderMrkdwn, startFakeSlack } from '../../support/fake-slack.js';
import { linkUrls } from '../../support/link-urls.js';
import { tcpProxy } from '../../support/tcp-proxy.js';
import { removePrefix, uniquePrefix, until } from '../../redis/redis-harness.js';
import { blockActions, button, NOW_S, signedRequest, SIGNING_SECRET, viewSubmission } from './interactions.js';
import { afterThis, LINK_SECRET, paused, send, state, world, type World } from './slack-world.js';

/** Clicks `which` on `card` as `user`, as Slack sends it (with the card's blocks), and waits for the answer. */
async function click(
  w: World,
  card: Awaited<ReturnType<typeof paused>>['card'],
  which: keyof typeof SLACK_ACTION_IDS,
  user = 'U123',
  responseUrl = w.slack.responseUrl(),
) {
  const pressed = button(card, which);
  return send(
    w,
    blockActions({
      value: pressed.value,
      actionId: pressed.action_id,
      blockId: pressed.blockId,
      user,
      responseUrl,
      message: { blocks: card.json['blocks'] },
    }),
  );
}

const lastAnswer = (w: World) => w.slack.responses().at(-1)!.json;

describe('createSlackActions: clicks', () => {
  it('approves as slack:<user> over a real socket, answers 200 with an empty body, runs the tool once and replaces a webhook card, buttons gone', async () => {
    const w = await world();
    const { runId, approvalId, card } = await paused(w);
    const pending: Promise<unknown>[] = [];
    const server = serve({
      fetch: (request) => w.route.fetch(request, { waitUntil: (work) => void pending.push(work) }),
      port: 0,
      hostname: '127.0.0.1',
    });
    afterThis(() => new Promise((resolve) => server.close(() => resolve())));
    await new Promise((resolve) => server.once('listening', resolve));
    const { port } = server.address() as { port: number };
    const approve = button(card, 'approve');
    const payload = blockActions({
      value: approve.value,
      blockId: approve.blockId,
      user: 'U123',
      responseUrl: w.slack.responseUrl(),
      message: { blocks: card.json['blocks'] },
    });
    const res = await fetch(signedRequest(`http://127.0.0.1:${port}/slack/actions`, payload));
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('');
    await Promise.all(pending);

    const answer = lastAnswer(w);
    expect(answer).toMatchObject({
      replace_original: true,
      text: 'Approved by <@U123>: *delete_file*, run is completed.',
    });
    const blocks = answer['blocks'] as { type: string; text?: { text: string } }[];
    expect(blocks.map((block) => block.type)).toEqual(['header', 'section', 'section', 'context', 'section']);
    expect(blocks.at(-1)!.text!.text).toBe('Approved by <@U123>: *delete_file*, run is completed.');
    expect(w.executed).toEqual(['/tmp/x']);
    const run = await w.runtime.get(runId);
    expect(run.status).toBe('completed');
    expect(run.audit.find((entry) => entry.approvalId === approvalId)).toMatchObject({
      decision: 'approved',
      by: 'slack:U123',
      scope: 'once',
    });

    // The same button again (by anyone): refused, nothing runs again.
    const before = await state(w, runId);
    expect((await click(w, card, 'approve', 'U999')).status).toBe(200);
    expect(lastAnswer(w)['text']).toBe(
      'Already approved by <@U123>; nothing was done again. This button was used before.',
    );
    expect(w.executed).toEqual(['/tmp/x']);
    expect(await state(w, runId)).toBe(before);
    expect(w.routeErrors).toEqual([]);
    // The click already rewrote the webhook's card: no line about it.
    await w.notifier.flush();
    expect(
      w.slack
        .messages()
        .filter((message) => message.json['blocks'] === undefined && /Approved/.test(String(message.json['text']))),
    ).toEqual([]);
  });

  it('answers before the approved tool has run, and tells the clicker once the run settles', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const w = await world({ gate });
    const { runId, card } = await paused(w);
    const approve = button(card, 'approve');
    const pending: Promise<unknown>[] = [];
    const res = await w.route.fetch(
      signedRequest(
        `${w.slack.origin}/slack/actions`,
        blockActions({ value: approve.value, responseUrl: w.slack.responseUrl() }),
      ),
      {
        waitUntil: (work) => void pending.push(work),
      },
    );
    expect(res.status).toBe(200);
    // The tool is still held: the answer did not wait for it, and nothing was posted yet.
    expect(w.executed).toEqual([]);
    expect(w.slack.responses()).toEqual([]);
    release();
    await Promise.all(pending);
    expect(lastAnswer(w)['text']).toBe('Approved by <@U123>: *delete_file*, run is completed.');
    expect((await w.runtime.get(runId)).status).toBe('completed');
  });

  it('approves for the rest of the run with "Approve for this run"', async () => {
    const w = await world();
    const { runId, card } = await paused(w);
    await click(w, card, 'approveForRun', 'U0RUN');
    expect((await w.runtime.get(runId)).audit[0]).toMatchObject({
      decision: 'approved',
      by: 'slack:U0RUN',
      scope: 'run',
    });
    expect(lastAnswer(w)['text']).toBe('Approved by <@U0RUN>: *delete_file*, run is completed.');
  });

  it('without a bot token, denies at once with "denied in Slack"; the tool never runs, and Approve afterwards is refused', async () => {
    const w = await world();
    const { runId, card } = await paused(w);
    await click(w, card, 'deny', 'U456');
    expect(lastAnswer(w)['text']).toBe('Denied by <@U456>: *delete_file*, run is completed.');
    expect(w.slack.calls('views.open')).toEqual([]);
    expect(w.executed).toEqual([]);
    expect((await w.runtime.get(runId)).audit[0]).toMatchObject({
      decision: 'denied',
      by: 'slack:U456',
      reason: 'denied in Slack',
    });
    await click(w, card, 'approve', 'U123');
    expect(lastAnswer(w)).toMatchObject({
      replace_original: true,
      text: expect.stringContaining('Already denied by <@U456>'),
    });
    expect(w.executed).toEqual([]);
  });

  it("on a bot's card, tells the clicker alone (the notifier edits the card)", async () => {
    const w = await world({ bot: true });
    const { card } = await paused(w);
    await click(w, card, 'approve', 'U123');
    expect(lastAnswer(w)).toEqual({
      replace_original: false,
      response_type: 'ephemeral',
      text: 'Approved by <@U123>: *delete_file*, run is completed.',
    });
    await w.notifier.flush();
    const edits = w.slack.calls('chat.update').map((update) => renderMrkdwn(JSON.stringify(update.json['blocks'])));
    expect(edits.some((edit) => edit.includes('✅ Approved by @U123.'))).toBe(true);
  });

  it('records the decision but never calls a response_url on another origin, nor follows a redirect', async () => {
    const other = await startFakeSlack();
    afterThis(() => other.close());
    const redirecting = await startFakeSlack((request) =>
      request.path.startsWith('/actions/') ? { status: 302, headers: { location: other.responseUrl() } } : undefined,
    );
    afterThis(() => redirecting.close());
    const w = await world({ actions: { responseUrlOrigins: [redirecting.origin] } });
    const first = await paused(w, '/tmp/a');
    await click(w, first.card, 'approve', 'U1', other.responseUrl());
    expect(w.routeErrors.map((item) => item.operation)).toEqual(['response']);
    expect(String(w.routeErrors[0]!.error)).toContain('not on an allowed origin');
    expect((await w.runtime.get(first.runId)).status).toBe('completed');

    const second = await paused(w, '/tmp/b');
    await click(w, second.card, 'approve', 'U1', redirecting.responseUrl());
    expect(redirecting.responses()).toHaveLength(1);
    expect(w.routeErrors.map((item) => item.operation)).toEqual(['response', 'response']);
    expect(String(w.routeErrors[1]!.error)).toContain('HTTP 302 (redirect to 127.0.0.1');
    expect(String(w.routeErrors[1]!.error)).not.toContain('response-secret');
    expect(other.requests).toEqual([]);
  });

  it('refuses a forged token: the clicker alone is told, nothing changes', async () => {
    const w = await world();
    const { runId, card } = await paused(w);
    const before = await state(w, runId);
    const [payload] = button(card, 'approve').value.split('.');
    await send(w, blockActions({ value: `${payload}.${'A'.repeat(43)}`, responseUrl: w.slack.responseUrl() }));
    expect(lastAnswer(w)).toEqual({
      replace_original: false,
      response_type: 'ephemeral',
      text: 'This button is not valid (its token does not verify); nothing was done.',
    });
    expect(await state(w, runId)).toBe(before);
    expect(w.executed).toEqual([]);
  });

  it('tells a clicker the rule does not allow, privately, and leaves the buttons for those it does', async () => {
    const w = await world({ approvers: ['slack:U0ALLOWED'] });
    const { runId, card } = await paused(w);
    const before = await state(w, runId);
    await click(w, card, 'approve', 'U0OTHER');
    expect(lastAnswer(w)).toEqual({
      replace_original: false,
      response_type: 'ephemeral',
      text: '<@U0OTHER> may not decide this approval; nothing was done. Ask one of its approvers.',
    });
    expect(await state(w, runId)).toBe(before);
    await click(w, card, 'approve', 'U0ALLOWED');
    expect(lastAnswer(w)['text']).toBe('Approved by <@U0ALLOWED>: *delete_file*, run is completed.');
    expect(w.executed).toEqual(['/tmp/x']);
  });

  it('lets a token minted for a person win over the Slack user who clicked it', async () => {
    const w = await world();
    const { runId, approvalId } = await paused(w);
    const links = await linkUrls(w.runtime, runId, approvalId, { approvedBy: 'alice@example.com' });
    await send(
      w,
      blockActions({ value: links.approve.split('/links/')[1]!, user: 'U777', responseUrl: w.slack.responseUrl() }),
    );
    expect(lastAnswer(w)['text']).toBe('Approved by alice@example.com: *delete_file*, run is completed.');
    expect((await w.runtime.get(runId)).audit[0]!.by).toBe('alice@example.com');
  });

  it("acknowledges other interactions and other apps' buttons with 200 and does nothing", async () => {
    const w = await world();
    const { runId, card } = await paused(w);
    const before = await state(w, runId);
    const approve = button(card, 'approve');
    expect(
      (
        await send(w, {
          ...blockActions({ value: approve.value, responseUrl: w.slack.responseUrl() }),
          type: 'message_action',
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await send(
          w,
          blockActions({ value: approve.value, actionId: 'other_app_button', responseUrl: w.slack.responseUrl() }),
        )
      ).status,
    ).toBe(200);
    expect(
      (await send(w, viewSubmission({ callback_id: 'other_app_modal', private_metadata: '{}' }, 'U1', 'x'))).status,
    ).toBe(200);
    expect(await state(w, runId)).toBe(before);
    expect(w.slack.responses()).toEqual([]);
  });
});

describe('createSlackActions: deny with a reason', () => {
  it("opens a modal with the click's trigger_id, and its submission denies with the typed reason", async () => {
    const w = await world({ bot: true });
    const { runId, card } = await paused(w);
    await click(w, card, 'deny', 'U456');
    // Nothing is decided until the form is sent.
    expect((await w.runtime.get(runId)).status).toBe('awaitingApproval');
    const [opened] = w.slack.calls('views.open');
    expect(opened!.headers.authorization).toBe(`Bearer ${BOT_TOKEN}`);
    expect(opened!.json['trigger_id']).toBe('123.456.abc');
    const view = opened!.json['view'] as Record<string, unknown>;
    expect(view).toMatchObject({ type: 'modal', callback_id: 'countersign_deny_reason', submit: { text: 'Deny' } });
    expect(view['blocks']).toMatchObject([
      { type: 'input', optional: true, element: { type: 'plain_text_input', multiline: true } },
    ]);

    const res = await send(w, viewSubmission(view, 'U456', '  wrong <!channel> account  '));
    // An empty 200 closes the modal.
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('');
    expect((await w.runtime.get(runId)).audit[0]).toMatchObject({
      decision: 'denied',
      by: 'slack:U456',
      reason: 'wrong <!channel> account',
    });
    expect(lastAnswer(w)).toMatchObject({
      response_type: 'ephemeral',
      text: 'Denied by <@U456>: *delete_file*, run is completed.',
    });
    await w.notifier.flush();
    const edit = w.slack.calls('chat.update').at(-1)!;
    expect(JSON.stringify(edit.json['blocks'])).toContain('❌ Denied by <@U456>: wrong &lt;!channel&gt; account.');
    expect(w.executed).toEqual([]);
  });

  it('records "denied in Slack" when the form is sent empty', async () => {
    const w = await world({ bot: true });
    const { runId, card } = await paused(w);
    await click(w, card, 'deny', 'U456');
    await send(
      w,
      viewSubmission(w.slack.calls('views.open')[0]!.json['view'] as Record<string, unknown>, 'U456', null),
    );
    expect((await w.runtime.get(runId)).audit[0]).toMatchObject({ decision: 'denied', reason: 'denied in Slack' });
  });

  it('tells the clicker when the modal cannot be opened, and decides nothing', async () => {
    const slack = await startFakeSlack((request) =>
      request.path === '/api/views.open'
        ? { status: 200, body: JSON.stringify({ ok: false, error: 'expired_trigger_id' }) }
        : undefined,
    );
    afterThis(() => slack.close());
    const w = await world({ slack, bot: true });
    const { runId, card } = await paused(w);
    await click(w, card, 'deny', 'U456');
    expect(lastAnswer(w)).toMatchObject({
      response_type: 'ephemeral',
      text: 'The form asking why could not be opened; nothing was done. Click Deny again.',
    });
    expect(w.routeErrors.map((item) => item.operation)).toEqual(['modal']);
    expect(String(w.routeErrors[0]!.error)).toContain('expired_trigger_id');
    expect((await w.runtime.get(runId)).status).toBe('awaitingApproval');
  });
});

describe("createSlackActions: Slack's signature", () => {
  it.each([
    ['a wrong secret', { secret: 'another-signing-secret-0123456' }, 'bad_signature'],
    ['an empty signature', { headers: { 'x-slack-signature': '' } }, 'missing_headers'],
    ['a truncated signature', { headers: { 'x-slack-signature': 'v0=abcdef' } }, 'bad_signature'],
    ['a timestamp 301 s in the past', { at: NOW_S - 301 }, 'stale_timestamp'],
    ['a timestamp 301 s in the future', { at: NOW_S + 301 }, 'stale_timestamp'],
    ['a timestamp that is not a number', { headers: { 'x-slack-request-timestamp': 'soon' } }, 'bad_timestamp'],
    [
      'a bearer token instead',
      { headers: { 'x-slack-signature': '', authorization: 'Bearer test-bearer-token-0123456789' } },
      'missing_headers',
    ],
  ])('refuses %s with 401 and changes nothing', async (_name, options, reason) => {
    const w = await world();
    const { runId, card } = await paused(w);
    const before = await state(w, runId);
    const res = await send(
      w,
      blockActions({ value: button(card, 'approve').value, responseUrl: w.slack.responseUrl() }),
      options,
    );
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(await res.json()).toMatchObject({ code: 'invalid_slack_signature', reason });
    expect(await state(w, runId)).toBe(before);
    expect(w.executed).toEqual([]);
    expect(w.slack.responses()).toEqual([]);
  });

  it('accepts a timestamp exactly 300 s away, either way, and a second secret while the first is regenerated', async () => {
    const w = await world({ actions: { signingSecret: ['the-new-signing-secret-0123456', SIGNING_SECRET] } });
    const other = blockActions({ value: 'not-ours', actionId: 'someone_else', responseUrl: w.slack.responseUrl() });
    expect((await send(w, other, { at: NOW_S - 300 })).status).toBe(200);
    expect((await send(w, other, { at: NOW_S + 300 })).status).toBe(200);
    expect((await send(w, other, { secret: 'the-new-signing-secret-0123456' })).status).toBe(200);
  });

  it("verifies Slack's own worked example (docs: verifying requests from Slack)", async () => {
    const runtime = createRuntime({
      agents: [createAgent({ name: 'a', model: createScriptedModel(() => textTurn('x')), tools: [] })],
      links: { secret: LINK_SECRET },
    });
    const route = createSlackActions({
      runtime,
      signingSecret: '8f742231b10e8888abcd99yyyzzz85a5',
      clock: () => 1531420618_000,
    });
    const body =
      'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner' +
      '&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN' +
      '&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c';
    const post = (signature: string) =>
      route.fetch(
        new Request('http://127.0.0.1/slack/actions', {
          method: 'POST',
          headers: { 'x-slack-request-timestamp': '1531420618', 'x-slack-signature': signature },
          body,
        }),
      );
    // The signature verifies; a slash command has no payload field, so the body is refused after it.
    const good = await post('v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503');
    expect(good.status).toBe(400);
    expect(await good.json()).toMatchObject({ code: 'invalid_body' });
    expect((await post('v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b504')).status).toBe(401);
  });

  it('refuses a stale or unsigned request before its (chunked) body arrives', async () => {
    const w = await world();
    const server = serve({ fetch: (request) => w.route.fetch(request), port: 0, hostname: '127.0.0.1' });
    afterThis(() => new Promise((resolve) => server.close(() => resolve())));
    await new Promise((resolve) => server.once('listening', resolve));
    const { port } = server.address() as { port: number };
    for (const headers of [
      { 'x-slack-request-timestamp': String(NOW_S - 3600), 'x-slack-signature': `v0=${'0'.repeat(64)}` },
      { 'x-slack-request-timestamp': 'soon', 'x-slack-signature': `v0=${'0'.repeat(64)}` },
    ]) {
      const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = httpRequest(
          {
            host: '127.0.0.1',
            port,
            path: '/slack/actions',
            method: 'POST',
            headers: {
              ...headers,
              'content-type': 'application/x-www-form-urlencoded',
              'transfer-encoding': 'chunked',
            },
          },
          (res) => {
            let body = '';
            res.on('data', (chunk: Buffer) => (body += chunk.toString()));
            res.on('end', () => resolve({ status: res.statusCode!, body }));
          },
        );
        req.on('error', reject);
        // The body is never finished: only an answer given before it lets this resolve.
        req.write('payload=');
        afterThis(async () => void req.destroy());
      });
      expect(answer.status).toBe(401);
      expect(JSON.parse(answer.body)).toMatchObject({ code: 'invalid_slack_signature' });
    }
  });

  it('answers 400 for a signed body without a payload, and 413 for one over maxBodyBytes', async () => {
    const w = await world({ actions: { maxBodyBytes: 2048 } });
    const res = await send(w, undefined, { body: 'nothing=here' });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'invalid_body' });
    expect((await send(w, undefined, { body: `payload=${'x'.repeat(3000)}` })).status).toBe(413);
  });
});

describe('createSlackActions: options', () => {
  it('refuses bad options with a ConfigError naming the option, never repeating the secret', () => {
    const runtime = createRuntime({
      agents: [createAgent({ name: 'a', model: createScriptedModel(() => textTurn('x')), tools: [] })],
      links: { secret: LINK_SECRET },
    });
    const refusal = (create: () => unknown) => {
      try {
        create();
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        return error as ConfigError;
      }
      throw new Error('accepted');
    };
    const short = refusal(() => createSlackActions({ runtime, signingSecret: 'SHORTSECRET' }));
    expect(short.message).toMatch(/^createSlackActions: signingSecret/);
    expect(short.message).not.toContain('SHORTSECRET');
    expect(
      refusal(() => createSlackActions({ runtime, signingSecret: SIGNING_SECRET, token: 'not-a-token-SECRET' }))
        .message,
    ).not.toContain('SECRET');
    expect(
      refusal(() =>
        // @ts-expect-error a misspelt option
        createSlackActions({ runtime, signingSecret: SIGNING_SECRET, responseUrlOrigin: ['https://x.example'] }),
      ).code,
    ).toBe('unknown_option');
    // @ts-expect-error the signing secret is required
    expect(refusal(() => createSlackActions({ runtime })).message).toMatch(/^createSlackActions: signingSecret/);
    expectCredentialsRefused(
      () =>
        createSlackActions({
          runtime,
          signingSecret: SIGNING_SECRET,
          responseUrlOrigins: [withCredentials('https://hooks.slack.com')],
        }),
      'responseUrlOrigins.0',
      /Put the credential in signingSecret/,
    );
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
    const w = await world({ store: createRedisStore({ redis, prefix }) });
    const { runId, card } = await paused(w);
    await click(w, card, 'approve', 'U123');
    expect(lastAnswer(w)['text']).toBe('Approved by <@U123>: *delete_file*, run is completed.');
    await click(w, card, 'approve', 'U123');
    expect(lastAnswer(w)['text']).toContain('This button was used before.');
    expect(w.executed).toEqual(['/tmp/x']);
    expect((await w.runtime.get(runId)).status).toBe('completed');
  });

  it('never tells Slack a decision was recorded while Redis cannot write it (an outage longer than resumeTimeoutMs); the next click records it', async () => {
    const prefix = uniquePrefix();
    prefixes.push(prefix);
    const { hostname, port } = new URL(redisUrl!);
    const proxy = await tcpProxy({ host: hostname, port: Number(port || 6379) });
    const viaProxy = new Redis(proxy.url, { maxRetriesPerRequest: 3, retryStrategy: () => 150 });
    viaProxy.on('error', () => {});
    afterThis(async () => {
      viaProxy.disconnect();
      await proxy.close();
    });
    const w = await world({ store: createRedisStore({ redis: viaProxy, prefix }), actions: { resumeTimeoutMs: 250 } });
    const { runId, card } = await paused(w);
    await proxy.cut();
    await click(w, card, 'approve', 'U123');
    expect(lastAnswer(w)['text']).toBe('Your decision could not be recorded just now; click again in a moment.');
    expect((await createRedisStore({ redis, prefix }).load(runId))?.audit).toEqual([]);
    await proxy.restore();
    await click(w, card, 'approve', 'U123');
    expect(lastAnswer(w)['text']).toMatch(
      /^(Approved by <@U123>: \*delete_file\*, run is completed\.|Decision by <@U123> recorded; the run is carrying on\.)$/,
    );
    await until(async () => (await w.runtime.get(runId)).status === 'completed', 'the run completed');
    expect(w.executed).toEqual(['/tmp/x']);
  });
});
