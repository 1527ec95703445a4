// The Slack notifier: the card it posts (escaped, redacted, within Slack's limits, three buttons carrying one-click
// tokens), where it posts it (the default channel, or the Slack channel a run came from), how the card changes once
// answered (chat.update with a bot, a line through a webhook), delivery failures, and its options.
import { describe, expect, it } from 'vitest';
import { ConfigError, createAgent, createRuntime, type LinkedRuntime } from 'countersign';
import { createSlackNotifier, SLACK_ACTION_IDS } from 'countersign/slack';
import { createScriptedModel, textTurn } from 'countersign/testing';
import { expectCredentialsRefused, withCredentials } from '../../support/credential-urls.js';
import { blockTexts, BOT_TOKEN, renderMrkdwn, startFakeSlack } from '../../support/fake-slack.js';
import { buttonsOf } from './interactions.js';
import { afterThis, LINK_SECRET, paused, SECRET_VALUE, world } from './slack-world.js';

interface Block {
  readonly type: string;
  readonly text?: { readonly type: string; readonly text: string; readonly verbatim?: boolean };
  readonly elements?: readonly { readonly text?: string }[];
}

const bare = () =>
  createRuntime({
    agents: [createAgent({ name: 'a', model: createScriptedModel(() => textTurn('x')), tools: [] })],
    links: { secret: LINK_SECRET },
  });

describe('createSlackNotifier: the card', () => {
  it('posts a Block Kit card with the redacted, escaped arguments, the connector, and three buttons carrying link tokens', async () => {
    const w = await world({ connector: 'files-prod' });
    const { card, runId, approvalId } = await paused(w, '<!channel><script>alert(1)</script>&\u202Etxt.exe');
    expect(card.path).toBe('/services/T000/B000/secretpath');
    // The secret never reaches Slack, in any form.
    expect(card.body).not.toContain(SECRET_VALUE);
    expect(card.body).not.toContain('abc123SECRET');
    expect(card.body).toContain('[REDACTED]');
    // Model text cannot mention the channel or inject markup.
    expect(card.body).not.toContain('<!channel>');
    expect(card.body).not.toContain('<script>');
    expect(card.json).toMatchObject({ unfurl_links: false, unfurl_media: false });

    const blocks = card.json['blocks'] as Block[];
    expect(blocks.map((block) => block.type)).toEqual([
      'header',
      'section',
      'section',
      'section',
      'context',
      'actions',
    ]);
    for (const text of blockTexts(card.json)) expect(text.length).toBeLessThanOrEqual(3000);
    for (const block of blocks.filter((item) => item.type === 'section'))
      expect(block.text).toMatchObject({ type: 'mrkdwn', verbatim: true });
    const summary = renderMrkdwn(blocks[1]!.text!.text);
    expect(summary).toContain('delete_file wants to run for agent files through files-prod.');
    expect(summary).toContain('Delete <!channel><script>alert(1)</script>&');
    expect(blocks[2]!.text!.text).toMatch(/^```[\s\S]*"apiToken": "\[REDACTED\]"[\s\S]*```$/);
    expect(blocks[3]!.text!.text).toContain('⚠️ Check the arguments carefully:');
    expect(blocks[3]!.text!.text).toContain('bidirectional');
    expect(blocks[4]!.elements![0]!.text).toContain(runId);

    const { buttons } = buttonsOf(card);
    expect(buttons.map((item) => [item.action_id, item.text.text, item.style])).toEqual([
      [SLACK_ACTION_IDS.approve, 'Approve', 'primary'],
      [SLACK_ACTION_IDS.approveForRun, 'Approve for this run', undefined],
      [SLACK_ACTION_IDS.deny, 'Deny', 'danger'],
    ]);
    const claims = await Promise.all(buttons.map(async (item) => (await w.runtime.inspectLink(item.value)).claim));
    expect(claims.map((claim) => [claim.runId, claim.approvalId, claim.decision, claim.scope ?? 'once'])).toEqual([
      [runId, approvalId, 'approve', 'once'],
      [runId, approvalId, 'approve', 'run'],
      [runId, approvalId, 'deny', 'once'],
    ]);
    expect(claims[0]!.approvedBy).toBeUndefined();
    expect(w.notifierErrors).toEqual([]);
  });

  it("cuts long arguments to Slack's 3000-character section limit, visibly, and never inside an entity", async () => {
    const w = await world();
    const { card } = await paused(w, `/tmp/${'<&>'.repeat(1500)}`);
    const args = (card.json['blocks'] as Block[])[2]!.text!.text;
    expect(args.length).toBeLessThanOrEqual(3000);
    expect(args).toContain('… (cut:');
    expect(args).not.toMatch(/&[a-z]{0,3}```/);
    expect(args.startsWith('```')).toBe(true);
  });

  it('shows when the buttons stop working, and through a webhook posts a line when the approval expires unanswered', async () => {
    const w = await world({ approvalTtlMs: 60_000 });
    const { runId, approvalId, card } = await paused(w);
    const expiresAt = (await w.runtime.get(runId)).pendingApprovals[0]!.expiresAt!;
    const context = (card.json['blocks'] as Block[]).find((block) => block.type === 'context')!.elements![0]!.text!;
    // The buttons never outlive the approval.
    expect(context).toContain(`<!date^${Math.floor(expiresAt / 1000)}^`);
    expect(context).toContain(new Date(expiresAt).toISOString());
    await w.runtime.sweepExpired(expiresAt + 1);
    await w.notifier.flush();
    const line = w.slack.messages().at(-1)!;
    expect(line.json['blocks']).toBeUndefined();
    expect(renderMrkdwn(String(line.json['text']))).toBe(
      `Approval ${approvalId} (delete_file): ⌛ Nobody decided in time: the approval expired and was denied.`,
    );
    expect(w.executed).toEqual([]);
  });
});

describe('createSlackNotifier, a dismissed request', () => {
  it('posts a line saying nobody decided, not a denial', async () => {
    const w = await world();
    const { runId, approvalId } = await paused(w);
    await w.runtime.respond(runId, { approvalId, approved: false, dismissed: true, approvedBy: 'bob' });
    await w.notifier.flush();
    const text = renderMrkdwn(String(w.slack.messages().at(-1)!.json['text']));
    expect(text).toMatch(
      new RegExp(
        `^Approval ${approvalId} \\(delete_file\\): ➖ Closed without a decision by .*bob.*; the call did not run\\.$`,
      ),
    );
    expect(w.executed).toEqual([]);
  });
});

describe('createSlackNotifier with a bot', () => {
  it('posts with chat.postMessage and edits the card in place when decided elsewhere, then when the call finishes', async () => {
    const w = await world({ bot: true });
    const { runId, approvalId, card } = await paused(w);
    expect(card.path).toBe('/api/chat.postMessage');
    expect(card.headers.authorization).toBe(`Bearer ${BOT_TOKEN}`);
    expect(card.json['channel']).toBe('C0DEFAULT');
    expect(buttonsOf(card).blockId).toBe('countersign_decision_updated');

    await w.runtime.respond(runId, { approvalId, approved: true, approvedBy: 'bob <b@x> *boss*' });
    await w.notifier.flush();
    const updates = w.slack.calls('chat.update');
    expect(updates.map((update) => [update.json['channel'], update.json['ts']])).toEqual([
      ['C0DEFAULT', '1700000000.000001'],
      ['C0DEFAULT', '1700000000.000001'],
    ]);
    expect(
      updates
        .map((update) => update.json['blocks'] as Block[])
        .every((blocks) => blocks.every((block) => block.type !== 'actions')),
    ).toBe(true);
    const [decided, finished] = updates.map((update) => blockTexts(update.json).map(renderMrkdwn));
    expect(decided).toEqual([
      'delete_file wants to run for agent files.\nDelete /tmp/x?',
      '✅ Approved by bob <b@x> *boss*.',
    ]);
    expect(finished).toEqual([
      'delete_file wants to run for agent files.\nDelete /tmp/x?',
      '✅ Approved by bob <b@x> *boss*.\n▶️ delete_file ran: {"deleted":"/tmp/x"}',
    ]);
    expect(w.slack.messages().filter((item) => item.path === '/api/chat.postMessage')).toHaveLength(1);
    expect(w.notifierErrors).toEqual([]);
  });

  it("shows a denial's reason on the card, escaped", async () => {
    const w = await world({ bot: true });
    const { runId, approvalId } = await paused(w);
    await w.runtime.respond(runId, { approvalId, approved: false, approvedBy: 'slack:U0BOSS', reason: 'not <!here>' });
    await w.notifier.flush();
    const [update] = w.slack.calls('chat.update');
    expect((update!.json['blocks'] as Block[])[1]!.text!.text).toBe('❌ Denied by <@U0BOSS>: not &lt;!here&gt;.');
  });

  it('asks in the Slack channel (and thread) a run came from, and in its own channel for runs from elsewhere', async () => {
    const w = await world({ bot: true });
    const fromSlack = await paused(w, '/tmp/a', {
      channel: 'slack',
      address: 'C0FROMRUN',
      thread: '1699999999.000100',
    });
    expect(fromSlack.card.json).toMatchObject({ channel: 'C0FROMRUN', thread_ts: '1699999999.000100' });
    const fromTelegram = await paused(w, '/tmp/b', { channel: 'telegram', address: '12345' });
    expect(fromTelegram.card.json['channel']).toBe('C0DEFAULT');
    expect(fromTelegram.card.json['thread_ts']).toBeUndefined();
    // The card is edited where it was posted.
    await w.runtime.respond(fromSlack.runId, {
      approvalId: fromSlack.approvalId,
      approved: false,
      approvedBy: 'carol',
    });
    await w.notifier.flush();
    expect(w.slack.calls('chat.update')[0]!.json['channel']).toBe('C0FROMRUN');
  });

  it('honours a 429\'s Retry-After, retries Slack\'s own "ratelimited", and does not retry a refusal', async () => {
    let limited = 2;
    const slack = await startFakeSlack((request) => {
      if (request.json['channel'] === 'C-missing')
        return { status: 200, body: JSON.stringify({ ok: false, error: 'channel_not_found' }) };
      if (limited === 2 && limited--) return { status: 429, headers: { 'retry-after': '7' } };
      if (limited === 1 && limited--)
        return {
          status: 200,
          body: JSON.stringify({ ok: false, error: 'ratelimited' }),
          headers: { 'retry-after': '3' },
        };
      return undefined;
    });
    afterThis(() => slack.close());
    const w = await world({ slack, bot: true });
    await paused(w);
    expect(w.waits).toEqual([7000, 3000]);

    const r = await world({ slack, bot: true, notifier: { channel: 'C-missing' } });
    const before = slack.messages().length;
    await r.runtime.start('files', { input: '/tmp/z' });
    await r.notifier.flush();
    expect(slack.messages()).toHaveLength(before + 1);
    expect(r.notifierErrors.map((item) => item.operation)).toEqual(['post']);
    expect(String(r.notifierErrors[0]!.error)).toContain('Slack refused chat.postMessage: channel_not_found');
  });

  it('reports a token echoed by Slack without the token', async () => {
    const slack = await startFakeSlack(() => ({ status: 401, body: `invalid_auth for ${BOT_TOKEN}` }));
    afterThis(() => slack.close());
    const w = await world({ slack, bot: true });
    await w.runtime.start('files', { input: '/tmp/x' });
    await w.notifier.flush();
    expect(String(w.notifierErrors[0]!.error)).toBe(
      'DeliveryError: Slack answered HTTP 401: invalid_auth for [redacted]',
    );
  });
});

describe('createSlackNotifier: delivery through a webhook', () => {
  it('retries a Slack 500 with backoff, does not retry a refusal, and reports failures to onError, never to the run', async () => {
    let failures = 1;
    const slack = await startFakeSlack((request) =>
      request.path.startsWith('/services/') && failures-- > 0 ? { status: 500, body: 'oops' } : undefined,
    );
    afterThis(() => slack.close());
    const w = await world({ slack, notifier: { backoffMs: 100, random: () => 0.999 } });
    await paused(w);
    expect(w.slack.messages()).toHaveLength(2);
    expect(w.waits).toHaveLength(1);

    const refusing = await startFakeSlack(() => ({ status: 404, body: 'no_service' }));
    afterThis(() => refusing.close());
    const r = await world({ slack: refusing });
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
    afterThis(() => slack.close());
    // As HTTP clients like ky or got word it: the method and the full URL, and the path alone.
    const quoting: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      throw new Error(
        `Request failed with status code ${response.status}: POST ${String(input)} (${new URL(String(input)).pathname})`,
      );
    };
    const w = await world({ slack, notifier: { fetch: quoting, maxAttempts: 1 } });
    await w.runtime.start('files', { input: '/tmp/x' });
    await w.notifier.flush();
    expect(w.notifierErrors.map((item) => item.operation)).toEqual(['post']);
    const message = String(w.notifierErrors[0]!.error);
    expect(message).toContain('Request failed with status code 500: POST 127.0.0.1:');
    expect(message).not.toContain('secretpath');
  });

  it('reports, without posting, tokens longer than a Slack button carries', async () => {
    // Tokens that long need ids longer than runs have today; a runtime that mints them stands in.
    const long = (runtime: LinkedRuntime) =>
      new Proxy(runtime, {
        get: (target, key) =>
          key === 'links'
            ? {
                ...target.links,
                mint: (input: Parameters<LinkedRuntime['links']['mint']>[0]) => ({
                  ...target.links.mint(input),
                  approveForRun: 'x'.repeat(2001),
                }),
              }
            : Reflect.get(target, key),
      });
    const w = await world({ wrap: long });
    const run = await w.runtime.start('files', { input: '/tmp/x' });
    await w.notifier.flush();
    expect(run.status).toBe('awaitingApproval');
    expect(w.slack.messages()).toEqual([]);
    expect(w.notifierErrors.map((item) => item.operation)).toEqual(['post']);
    expect(w.notifierErrors[0]!.error).toBeInstanceOf(ConfigError);
    expect(String(w.notifierErrors[0]!.error)).toMatch(/longer than the 2000 characters a Slack button carries/);
  });
});

describe('createSlackNotifier: options', () => {
  it('refuses a runtime without links where the notifier is made (a type error in TypeScript), naming the fix', () => {
    const runtime = createRuntime({
      agents: [createAgent({ name: 'a', model: createScriptedModel(() => textTurn('x')), tools: [] })],
    });
    expect(() =>
      // @ts-expect-error a runtime made without links cannot mint the buttons' tokens
      createSlackNotifier({ runtime, webhookUrl: 'https://hooks.slack.com/services/T000/B000/XXXX' }),
    ).toThrow(/createRuntime\(\{ agents, links \}\)/);
  });

  it('refuses bad options with a ConfigError naming the option, never repeating a secret', () => {
    const runtime = bare();
    const refusal = (options: Record<string, unknown>) => {
      try {
        createSlackNotifier({ runtime, ...options });
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        return error as ConfigError;
      }
      throw new Error('accepted');
    };
    expect(refusal({}).message).toMatch(/either webhookUrl .* or token and channel/);
    expect(refusal({}).code).toBe('missing_option');
    expect(refusal({ webhookUrl: 'https://hooks.slack.com/x', token: 'xoxb-123456789' }).message).toMatch(/not both/);
    expect(refusal({ token: 'xoxb-123456789' }).message).toMatch(/token needs a channel/);
    const badUrl = refusal({ webhookUrl: 'hooks.slack.com/services/SECRETPATH' });
    expect(badUrl.message).toMatch(/^createSlackNotifier: webhookUrl must be an http\(s\) URL/);
    expect(badUrl.message).not.toContain('SECRETPATH');
    const badToken = refusal({ token: 'not a token SECRET', channel: 'C1' });
    expect(badToken.message).toMatch(/^createSlackNotifier: token must be a Slack bot token/);
    expect(badToken.message).not.toContain('SECRET');
    expect(refusal({ webhookUrl: 'https://hooks.slack.com/x', annouceResolved: true }).code).toBe('unknown_option');
    expect(() =>
      createSlackNotifier({ runtime: {} as LinkedRuntime, webhookUrl: 'https://hooks.slack.com/x' }),
    ).toThrow(/runtime/);
  });

  it('refuses webhook and API URLs with a user name and password, pointing at the token instead', () => {
    const runtime = bare();
    expectCredentialsRefused(
      () =>
        createSlackNotifier({
          runtime,
          webhookUrl: withCredentials('https://hooks.slack.com/services/T000/B000/XXXX'),
        }),
      'webhookUrl',
      /Put the credential in token/,
    );
    expectCredentialsRefused(
      () =>
        createSlackNotifier({
          runtime,
          token: 'xoxb-123456789',
          channel: 'C1',
          apiUrl: withCredentials('https://slack.com/api'),
        }),
      'apiUrl',
      /Put the credential in token/,
    );
  });
});
