import { createPublicKey, generateKeyPairSync, randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import {
  ConfigError,
  createAgent,
  createMemoryStore,
  createRuntime,
  defineTool,
  type ApprovalRequest,
  type AuditEntry,
  type RunEvent,
} from 'countersign';
import {
  createWebhookNotifier,
  verifyWebhookAsymmetric,
  webhookPublicKey,
  type WebhookDeadLetter,
  type WebhookEvent,
  type WebhookNotifierOptions,
} from 'countersign/webhooks';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';
import { expectCredentialsRefused, withCredentials } from '../../support/credential-urls.js';
import {
  startReceiver,
  type ReceivedDelivery,
  type ReceiverAnswer,
  type WebhookReceiver,
} from '../../support/webhook-receiver.js';

// The Standard Webhooks known-answer secret; any whsec_ secret of 24+ bytes would do.
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const OTHER_SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;

const receivers: WebhookReceiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});

async function receiver(answer?: (delivery: ReceivedDelivery) => ReceiverAnswer): Promise<WebhookReceiver> {
  const started = await startReceiver(answer);
  receivers.push(started);
  return started;
}

/** Verifies a delivery with the reference library, as a receiver would, and returns the parsed event. */
function verified(delivery: ReceivedDelivery, secret = SECRET): WebhookEvent {
  const headers = {
    'webhook-id': String(delivery.headers['webhook-id']),
    'webhook-timestamp': String(delivery.headers['webhook-timestamp']),
    'webhook-signature': String(delivery.headers['webhook-signature']),
  };
  return new Webhook(secret).verify(delivery.body, headers) as WebhookEvent;
}

/** A sleep that records what it was asked to wait and returns at once. */
function recordingSleep() {
  const waits: number[] = [];
  const sleep = async (ms: number) => {
    waits.push(ms);
  };
  return Object.assign(sleep, { waits });
}

function notifierFor(target: WebhookReceiver, overrides: Partial<WebhookNotifierOptions> = {}) {
  return createWebhookNotifier({ url: target.url, secret: SECRET, sleep: recordingSleep(), ...overrides });
}

const request: ApprovalRequest = Object.freeze({
  approvalId: 'appr_1',
  toolCallId: 'call_1',
  toolName: 'send_payment',
  args: { to: 'acct-1', apiKey: '[REDACTED]' },
  argsDigest: 'ab'.repeat(32),
  description: 'Send a payment',
  requestedAt: 1_700_000_000_000,
  warnings: [],
});
const requested = (runId = 'run_1', approvalId = 'appr_1'): RunEvent => ({
  type: 'approval-requested',
  runId,
  agentName: 'payments',
  request: { ...request, approvalId },
});
const entry: AuditEntry = {
  approvalId: 'appr_1',
  toolCallId: 'call_1',
  toolName: 'send_payment',
  decision: 'approved',
  source: 'human',
  scope: 'once',
  at: 1_700_000_060_000,
  by: 'alice',
  argsDigest: 'ab'.repeat(32),
};
const resolved = (runId = 'run_1'): RunEvent => ({ type: 'approval-resolved', runId, agentName: 'payments', entry });

describe('createWebhookNotifier options', () => {
  const base = { url: 'https://hooks.example.com/x', secret: SECRET };
  it.each([
    [{ ...base, url: 'ftp://hooks.example.com/x' }, 'url must be an http(s) URL'],
    [{ ...base, url: 'not a url' }, 'url must be an http(s) URL'],
    [{ ...base, secret: 'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' }, 'secret must be a whsec_ secret'],
    [{ ...base, secret: 'whsec_c2hvcnQ=' }, 'must hold 24 to 64 bytes'],
    [{ ...base, secret: [] }, 'empty list'],
    [{ ...base, events: ['approval.requested', 'approval.denied'] }, 'events.1 must be one of approval.requested'],
    [{ ...base, maxAttempts: 0 }, 'maxAttempts'],
    [{ ...base, timeoutMs: 1.5 }, 'timeoutMs must be a whole number'],
    [{ ...base, sleep: 5 }, 'sleep must be a function'],
    [{ ...base, maxAttempt: 3 }, 'unknown option maxAttempt'],
  ])('refuses %j with a ConfigError', (options, message) => {
    const create = () => createWebhookNotifier(options as unknown as WebhookNotifierOptions);
    expect(create).toThrow(ConfigError);
    expect(create).toThrow(message);
  });

  it('refuses a URL with a user name and password, pointing at the signing secret instead', () => {
    expectCredentialsRefused(
      () => createWebhookNotifier({ ...base, url: withCredentials(base.url) }),
      'url',
      /Put the credential in secret/,
    );
  });

  it('never repeats a secret in its error message', () => {
    const almost = 'whsec_not-base64-but-secret!!';
    expect(() => createWebhookNotifier({ ...base, secret: almost })).toThrow(ConfigError);
    try {
      createWebhookNotifier({ ...base, secret: almost });
    } catch (error) {
      expect((error as Error).message).not.toContain('not-base64-but-secret');
    }
  });
});

describe('deliveries', () => {
  it('POSTs a Standard Webhooks delivery the reference library verifies, and returns before it is delivered', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const target = await receiver(() => 200);
    const fetchGated: typeof fetch = async (...args) => {
      await gate;
      return fetch(...args);
    };
    const notifier = notifierFor(target, { fetch: fetchGated });
    await notifier.publish([requested()]);
    expect(target.deliveries).toHaveLength(0);
    release();
    await notifier.flush();

    expect(target.deliveries).toHaveLength(1);
    const delivery = target.deliveries[0]!;
    expect(delivery.headers['content-type']).toBe('application/json');
    expect(delivery.headers['webhook-id']).toMatch(/^msg_[A-Za-z0-9_-]{32}$/);
    const event = verified(delivery);
    expect(event).toEqual({
      type: 'approval.requested',
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      data: { runId: 'run_1', agentName: 'payments', ...request },
    });
    expect(notifier.deadLetters()).toEqual([]);
  });

  it("carries the run's session on approval.requested, so a receiver can group a conversation's requests", async () => {
    const target = await receiver();
    const notifier = notifierFor(target);
    await notifier.publish([
      { type: 'approval-requested', runId: 'run_1', agentName: 'payments', request, sessionId: 'chat-42' },
    ]);
    await notifier.flush();
    expect(verified(target.deliveries[0]!)).toMatchObject({
      type: 'approval.requested',
      data: { runId: 'run_1', sessionId: 'chat-42', approvalId: 'appr_1' },
    });
  });

  it('carries the decisions a request offers, so an external system sends only those', async () => {
    const target = await receiver();
    const notifier = notifierFor(target);
    const narrowed: ApprovalRequest = { ...request, decisions: ['approve', 'deny'] };
    await notifier.publish([{ type: 'approval-requested', runId: 'run_1', agentName: 'payments', request: narrowed }]);
    await notifier.flush();
    expect(verified(target.deliveries[0]!).data).toMatchObject({
      approvalId: 'appr_1',
      decisions: ['approve', 'deny'],
    });
  });

  it('sends approval.resolved and, only when asked, the run events; skips decisions no one was asked for', async () => {
    const target = await receiver();
    const runEvents: RunEvent[] = [
      resolved(),
      {
        type: 'approval-resolved',
        runId: 'run_1',
        agentName: 'payments',
        entry: { ...entry, approvalId: undefined, source: 'rule', toolCallId: 'call_2' } as unknown as AuditEntry,
      },
      { type: 'run-completed', runId: 'run_1', agentName: 'payments', output: 'paid' },
      { type: 'run-failed', runId: 'run_2', agentName: 'payments', error: { code: 'model_error', message: 'boom' } },
      {
        type: 'run-cancelled',
        runId: 'run_3',
        agentName: 'payments',
        reason: 'operator',
        interrupted: [{ toolCallId: 'call_9', toolName: 'pay' }],
      },
    ];
    const defaults = notifierFor(target);
    await defaults.publish(runEvents);
    await defaults.flush();
    expect(target.deliveries.map((delivery) => verified(delivery).type)).toEqual(['approval.resolved']);
    expect(verified(target.deliveries[0]!).data).toEqual({ runId: 'run_1', agentName: 'payments', ...entry });

    target.deliveries.length = 0;
    const everything = notifierFor(target, { events: ['run.completed', 'run.failed', 'run.cancelled'] });
    await everything.publish(runEvents);
    await everything.flush();
    const events = target.deliveries.map((delivery) => verified(delivery));
    expect(events.map((event) => event.type).sort()).toEqual(['run.cancelled', 'run.completed', 'run.failed']);
    expect(events.find((event) => event.type === 'run.failed')?.data).toEqual({
      runId: 'run_2',
      agentName: 'payments',
      error: { code: 'model_error', message: 'boom' },
    });
    expect(events.find((event) => event.type === 'run.cancelled')?.data).toEqual({
      runId: 'run_3',
      agentName: 'payments',
      reason: 'operator',
      interrupted: [{ toolCallId: 'call_9', toolName: 'pay' }],
    });
  });

  it('sends only the fields it knows, never whatever else an event object carries', async () => {
    const target = await receiver();
    const notifier = notifierFor(target);
    const smuggled = { ...request, rawArgs: { apiKey: 'sk-live-123' } } as ApprovalRequest;
    await notifier.publish([{ type: 'approval-requested', runId: 'run_1', agentName: 'payments', request: smuggled }]);
    await notifier.flush();
    expect(target.deliveries[0]!.body).not.toContain('sk-live-123');
  });

  it('signs with every secret while keys rotate; a receiver holding either one verifies', async () => {
    const target = await receiver();
    const notifier = notifierFor(target, { secret: [SECRET, OTHER_SECRET] });
    await notifier.publish([requested()]);
    await notifier.flush();
    const delivery = target.deliveries[0]!;
    expect(String(delivery.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verified(delivery, SECRET).type).toBe('approval.requested');
    expect(verified(delivery, OTHER_SECRET).type).toBe('approval.requested');
  });

  it('gives one event the same webhook-id wherever it is published, and different events different ids', async () => {
    const target = await receiver();
    const first = notifierFor(target);
    const second = notifierFor(target);
    await first.publish([requested(), resolved(), requested('run_1', 'appr_2'), requested('run_2')]);
    await second.publish([requested()]);
    await Promise.all([first.flush(), second.flush()]);
    const ids = target.deliveries.map((delivery) => String(delivery.headers['webhook-id']));
    expect(new Set(ids).size).toBe(4);
    expect(ids.filter((id) => id === ids[0])).toHaveLength(2);
  });
});

describe('retries', () => {
  it('retries a 500 with growing, jittered waits and delivers on the 3rd try with the same webhook-id and body', async () => {
    const target = await receiver((delivery) =>
      delivery.seq <= 2 ? { status: 500, body: 'down for maintenance' } : 200,
    );
    const sleep = recordingSleep();
    const notifier = notifierFor(target, { sleep, backoffMs: 1000 });
    await notifier.publish([requested()]);
    await notifier.flush();

    expect(target.deliveries).toHaveLength(3);
    const ids = new Set(target.deliveries.map((delivery) => delivery.headers['webhook-id']));
    expect(ids.size).toBe(1);
    expect(new Set(target.deliveries.map((delivery) => delivery.body)).size).toBe(1);
    for (const delivery of target.deliveries) expect(verified(delivery).type).toBe('approval.requested');
    expect(sleep.waits).toHaveLength(2);
    expect(sleep.waits[0]).toBeGreaterThanOrEqual(500);
    expect(sleep.waits[0]).toBeLessThanOrEqual(1000);
    expect(sleep.waits[1]).toBeGreaterThanOrEqual(1000);
    expect(sleep.waits[1]).toBeLessThanOrEqual(2000);
    expect(notifier.deadLetters()).toEqual([]);
  });

  it('dead-letters an event after maxAttempts of 500s, with the count, the last status and what the receiver said', async () => {
    const target = await receiver(() => ({ status: 500, body: 'database\n  unavailable' }));
    const onDeadLetter = vi.fn<(entry: WebhookDeadLetter) => void>();
    const sleep = recordingSleep();
    const notifier = notifierFor(target, {
      sleep,
      maxAttempts: 4,
      backoffMs: 100,
      maxBackoffMs: 250,
      random: () => 0.999999,
      onDeadLetter,
    });
    await notifier.publish([requested()]);
    await notifier.flush();

    expect(target.deliveries).toHaveLength(4);
    expect(sleep.waits).toEqual([100, 200, 250]);
    const [letter] = notifier.deadLetters();
    expect(letter).toMatchObject({
      webhookId: target.deliveries[0]!.headers['webhook-id'],
      attempts: 4,
      lastStatus: 500,
      lastError: 'HTTP 500: database unavailable',
      event: { type: 'approval.requested', data: { runId: 'run_1', approvalId: 'appr_1' } },
    });
    expect(letter!.body).toBe(target.deliveries[0]!.body);
    expect(JSON.stringify(letter)).not.toContain(target.url);
    expect(new Date(letter!.failedAt).toISOString()).toBe(letter!.failedAt);
    expect(onDeadLetter).toHaveBeenCalledExactlyOnceWith(letter);
  });

  it.each([400, 401, 404, 410, 422])('does not retry a %i: one try, then a dead letter', async (status) => {
    const target = await receiver(() => status);
    const sleep = recordingSleep();
    const notifier = notifierFor(target, { sleep });
    await notifier.publish([requested()]);
    await notifier.flush();
    expect(target.deliveries).toHaveLength(1);
    expect(sleep.waits).toEqual([]);
    expect(notifier.deadLetters()).toMatchObject([{ attempts: 1, lastStatus: status, lastError: `HTTP ${status}` }]);
  });

  it('keeps URLs out of a dead letter: a receiver body or a redirect quoting one names only its host', async () => {
    const hook = 'https://hooks.slack.com/services/T0/B0/XXXXsecretXXXX';
    const echoing = await receiver(() => ({
      status: 404,
      body: `no_service for ${hook} (see hooks.slack.com/services/T0/B0/XXXXsecretXXXX)`,
    }));
    const first = notifierFor(echoing);
    await first.publish([requested()]);
    await first.flush();
    const redirecting = await receiver(() => ({
      status: 302,
      headers: { location: `https://user:pw@elsewhere.example/hooks?token=XXXXsecretXXXX` },
    }));
    const second = notifierFor(redirecting);
    await second.publish([requested()]);
    await second.flush();
    const errors = [...first.deadLetters(), ...second.deadLetters()].map((letter) => letter.lastError);
    expect(errors).toEqual([
      'HTTP 404: no_service for hooks.slack.com/… (see hooks.slack.com/…)',
      'HTTP 302 (redirect to elsewhere.example/… not followed; configure the final URL)',
    ]);
  });

  it('does not follow or retry a redirect, and says where it pointed', async () => {
    const target = await receiver(() => ({ status: 308, headers: { location: 'https://elsewhere.example/hooks' } }));
    const notifier = notifierFor(target);
    await notifier.publish([requested()]);
    await notifier.flush();
    expect(target.deliveries).toHaveLength(1);
    expect(notifier.deadLetters()[0]?.lastError).toContain('redirect to elsewhere.example/… not followed');
  });

  it('retries 408 and 429, and waits what Retry-After says on 429 and 503 (seconds or a date), capped at maxBackoffMs', async () => {
    const now = Date.now();
    const answers: ReceiverAnswer[] = [
      408,
      { status: 429, headers: { 'retry-after': '7' } },
      { status: 503, headers: { 'retry-after': new Date(now + 30_000).toUTCString() } },
      { status: 429, headers: { 'retry-after': '86400' } },
      200,
    ];
    const target = await receiver((delivery) => answers[delivery.seq - 1]!);
    const sleep = recordingSleep();
    const notifier = notifierFor(target, {
      sleep,
      clock: () => now,
      backoffMs: 10,
      maxBackoffMs: 60_000,
      random: () => 0,
    });
    await notifier.publish([requested()]);
    await notifier.flush();
    expect(target.deliveries).toHaveLength(5);
    expect(sleep.waits[0]).toBe(5);
    expect(sleep.waits[1]).toBe(7000);
    // An HTTP date has whole seconds, so the wait is up to a second short of 30 s.
    expect(sleep.waits[2]).toBeGreaterThan(28_999);
    expect(sleep.waits[2]).toBeLessThanOrEqual(30_000);
    expect(sleep.waits[3]).toBe(60_000);
    expect(notifier.deadLetters()).toEqual([]);
  });

  it('abandons a try the receiver never answers after timeoutMs and retries it', async () => {
    const target = await receiver((delivery) => (delivery.seq === 1 ? 'hang' : 200));
    const notifier = notifierFor(target, { timeoutMs: 150 });
    const started = Date.now();
    await notifier.publish([requested()]);
    await notifier.flush();
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(target.deliveries).toHaveLength(2);
    expect(target.deliveries[1]!.headers['webhook-id']).toBe(target.deliveries[0]!.headers['webhook-id']);
    expect(notifier.deadLetters()).toEqual([]);
  });

  it('names a timeout and a refused connection in the dead letter', async () => {
    const hanging = await receiver(() => 'hang');
    const slow = notifierFor(hanging, { timeoutMs: 50, maxAttempts: 2 });
    await slow.publish([requested()]);
    await slow.flush();
    expect(slow.deadLetters()).toMatchObject([{ attempts: 2, lastError: 'timed out after 50 ms' }]);
    expect(slow.deadLetters()[0]).not.toHaveProperty('lastStatus');

    const closed = await startReceiver();
    const url = closed.url;
    await closed.close();
    const refused = createWebhookNotifier({ url, secret: SECRET, sleep: recordingSleep(), maxAttempts: 3 });
    await refused.publish([requested()]);
    await refused.flush();
    expect(refused.deadLetters()).toMatchObject([{ attempts: 3, lastError: 'ECONNREFUSED' }]);
  });

  it('re-signs each try with the time of that try, so a late retry is not stale', async () => {
    // Half-way into a second, so the retry (a jittered hour, 2 ms short of it) lands in the 3,600th second after, whatever Date.now() was.
    let now = Math.floor(Date.now() / 1000) * 1000 - 3_600_000 + 500;
    const target = await receiver((delivery) => (delivery.seq === 1 ? 503 : 200));
    const sleep = async (ms: number) => {
      now += ms;
    };
    const notifier = notifierFor(target, {
      sleep,
      clock: () => now,
      backoffMs: 3_600_000,
      maxBackoffMs: 3_600_000,
      random: () => 0.999999,
    });
    await notifier.publish([requested()]);
    await notifier.flush();
    const [first, second] = target.deliveries;
    expect(Number(second!.headers['webhook-timestamp']) - Number(first!.headers['webhook-timestamp'])).toBeGreaterThan(
      3_599,
    );
    expect(() => verified(first!)).toThrow();
    expect(verified(second!).type).toBe('approval.requested');
  });

  it("keeps one run's events in order while an earlier one is retried, and does not hold up other runs", async () => {
    const target = await receiver((delivery) => (delivery.seq === 1 ? 500 : 200));
    let releaseSleep!: () => void;
    const sleeping = new Promise<void>((resolve) => (releaseSleep = resolve));
    const notifier = notifierFor(target, { sleep: () => sleeping });
    await notifier.publish([requested('run_1')]);
    await notifier.publish([resolved('run_1'), requested('run_2')]);
    await target.waitFor(2);
    // run_1's first event is waiting to retry; run_2 went ahead, run_1's second event waits its turn.
    expect(target.deliveries.map((delivery) => [verified(delivery).type, verified(delivery).data.runId])).toEqual([
      ['approval.requested', 'run_1'],
      ['approval.requested', 'run_2'],
    ]);
    releaseSleep();
    await notifier.flush();
    expect(
      target.deliveries.slice(2).map((delivery) => [verified(delivery).type, verified(delivery).data.runId]),
    ).toEqual([
      ['approval.requested', 'run_1'],
      ['approval.resolved', 'run_1'],
    ]);
  });

  it('keeps at most `deadLetters` entries, reports a failing onDeadLetter to onError, and redelivers with the same id', async () => {
    let healthy = false;
    const target = await receiver(() => (healthy ? 200 : 400));
    const onError = vi.fn();
    const notifier = notifierFor(target, {
      deadLetters: 2,
      onDeadLetter: async () => {
        throw new Error('disk full');
      },
      onError,
    });
    await notifier.publish([requested('run_1'), requested('run_2'), requested('run_3')]);
    await notifier.flush();
    const letters = notifier.deadLetters();
    expect(letters).toHaveLength(2);
    expect(new Set(letters.map((letter) => letter.event.data.runId)).size).toBe(2);
    expect(onError).toHaveBeenCalledTimes(3);
    expect(onError.mock.calls[0]![1]).toMatchObject({ operation: 'dead-letter' });

    healthy = true;
    const [letter] = letters;
    notifier.redeliver(letter!);
    await notifier.flush();
    expect(notifier.deadLetters()).toHaveLength(1);
    const last = target.deliveries.at(-1)!;
    expect(last.headers['webhook-id']).toBe(letter!.webhookId);
    expect(last.body).toBe(letter!.body);
    expect(verified(last).type).toBe('approval.requested');
  });

  it('lets other runs use the concurrency slot while a delivery waits between tries', async () => {
    const target = await receiver((delivery) => (delivery.seq === 1 ? 500 : 200));
    // The wait ends once run_2 has arrived (or after a while, when it never could: then the order below shows it).
    const sleep = () => Promise.race([target.waitFor(2), new Promise<void>((resolve) => setTimeout(resolve, 2000))]);
    const notifier = notifierFor(target, { sleep, concurrency: 1 });
    await notifier.publish([requested('run_1'), requested('run_2')]);
    await notifier.flush();
    expect(target.deliveries.map((delivery) => verified(delivery).data.runId)).toEqual(['run_1', 'run_2', 'run_1']);
  });

  it('puts at most `concurrency` deliveries on the wire at once', async () => {
    let open = 0;
    let most = 0;
    const target = await receiver();
    const countingFetch: typeof fetch = async (...args) => {
      open += 1;
      most = Math.max(most, open);
      try {
        await new Promise((resolve) => setTimeout(resolve, 5));
        return await fetch(...args);
      } finally {
        open -= 1;
      }
    };
    const notifier = notifierFor(target, { fetch: countingFetch, concurrency: 3 });
    await notifier.publish(Array.from({ length: 12 }, (_, index) => requested(`run_${index}`)));
    await notifier.flush();
    expect(target.deliveries).toHaveLength(12);
    expect(most).toBe(3);
  });
});

describe('through createRuntime', () => {
  it('announces a paused run as a verified approval.requested with redacted args, then its decision as approval.resolved', async () => {
    const target = await receiver();
    const notifier = notifierFor(target, { events: ['approval.requested', 'approval.resolved', 'run.completed'] });
    const executed: string[] = [];
    const tool = defineTool({
      name: 'send_payment',
      description: 'Send a payment',
      input: z.object({ to: z.string(), cents: z.number().int(), apiKey: z.string() }),
      needsApproval: true,
      execute: async ({ to }) => {
        executed.push(to);
        return `paid ${to}`;
      },
    });
    const model = createScriptedModel(({ messages }) =>
      messages.at(-1)?.role === 'tool'
        ? textTurn('paid')
        : toolCallTurn('send_payment', { to: 'acct-9', cents: 500, apiKey: 'sk-live-do-not-leak' }),
    );
    const agent = createAgent({ name: `payments-${randomUUID().slice(0, 8)}`, model, tools: [tool] });
    const onError = vi.fn();
    const runtime = createRuntime({ agents: [agent], store: createMemoryStore(), notifier, onError });

    const paused = await runtime.start(agent.name, { input: 'pay acct-9' });
    expect(paused.status).toBe('awaitingApproval');
    await notifier.flush();
    expect(target.deliveries).toHaveLength(1);
    const asked = verified(target.deliveries[0]!);
    expect(asked).toMatchObject({
      type: 'approval.requested',
      data: {
        runId: paused.runId,
        agentName: agent.name,
        approvalId: paused.pendingApprovals[0]!.approvalId,
        toolName: 'send_payment',
        args: { to: 'acct-9', cents: 500, apiKey: '[REDACTED]' },
      },
    });
    expect(target.deliveries[0]!.body).not.toContain('sk-live-do-not-leak');

    const { status } = await runtime.respond(paused.runId, {
      approvalId: paused.pendingApprovals[0]!.approvalId,
      approved: true,
      approvedBy: 'alice',
    });
    expect(status).toBe('completed');
    await notifier.flush();
    const later = target.deliveries.slice(1).map((delivery) => verified(delivery));
    expect(later.map((event) => event.type)).toEqual(['approval.resolved', 'run.completed']);
    expect(later[0]).toMatchObject({
      data: {
        runId: paused.runId,
        approvalId: paused.pendingApprovals[0]!.approvalId,
        decision: 'approved',
        by: 'alice',
        source: 'human',
      },
    });
    expect(later[1]).toMatchObject({ data: { runId: paused.runId, output: 'paid' } });
    expect(target.deliveries.some((delivery) => delivery.body.includes('sk-live-do-not-leak'))).toBe(false);
    expect(executed).toEqual(['acct-9']);
    expect(onError).not.toHaveBeenCalled();
  });

  it('sends tool.finished, when listed, with how the approved call ended', async () => {
    const target = await receiver();
    const notifier = notifierFor(target, { events: ['tool.finished'] });
    const tool = defineTool({
      name: 'wipe',
      description: 'Wipe',
      input: z.object({ path: z.string() }),
      needsApproval: true,
      execute: ({ path }) => `wiped ${path}`,
    });
    const model = createScriptedModel(({ messages }) =>
      messages.at(-1)?.role === 'tool' ? textTurn('done') : toolCallTurn('wipe', { path: '/tmp/x' }),
    );
    const agent = createAgent({ name: `wipe-${randomUUID().slice(0, 8)}`, model, tools: [tool] });
    const runtime = createRuntime({ agents: [agent], store: createMemoryStore(), notifier });
    const paused = await runtime.start(agent.name, { input: 'wipe' });
    const approvalId = paused.pendingApprovals[0]!.approvalId;
    await runtime.respond(paused.runId, { approvalId, approved: true, approvedBy: 'alice' });
    await notifier.flush();
    expect(target.deliveries.map((delivery) => verified(delivery))).toEqual([
      {
        type: 'tool.finished',
        timestamp: expect.any(String),
        data: {
          runId: paused.runId,
          agentName: agent.name,
          approvalId,
          toolCallId: paused.pendingApprovals[0]!.toolCallId,
          toolName: 'wipe',
          status: 'succeeded',
          result: 'wiped /tmp/x',
        },
      },
    ]);
  });

  it('lets a run finish while the receiver is down; the events end as dead letters, not run errors', async () => {
    const target = await receiver(() => 503);
    const notifier = notifierFor(target, { maxAttempts: 2 });
    const model = createScriptedModel(({ messages }) =>
      messages.at(-1)?.role === 'tool' ? textTurn('done') : toolCallTurn('wipe', { path: '/tmp/x' }),
    );
    const tool = defineTool({
      name: 'wipe',
      description: 'Wipe',
      input: z.object({ path: z.string() }),
      needsApproval: true,
      execute: () => 'wiped',
    });
    const agent = createAgent({ name: `wipe-${randomUUID().slice(0, 8)}`, model, tools: [tool] });
    const runtime = createRuntime({ agents: [agent], store: createMemoryStore(), notifier });
    const paused = await runtime.start(agent.name, { input: 'wipe' });
    const { status } = await runtime.respond(paused.runId, {
      approvalId: paused.pendingApprovals[0]!.approvalId,
      approved: false,
      reason: 'no',
    });
    expect(status).toBe('completed');
    await notifier.flush();
    expect(notifier.deadLetters().map((letter) => [letter.event.type, letter.attempts])).toEqual([
      ['approval.requested', 2],
      ['approval.resolved', 2],
    ]);
  });
});

describe("Standard Webhooks' asymmetric signature", () => {
  it('adds a v1a signature the whpk_ public key verifies, beside the v1 one the secret verifies', async () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    const target = await receiver();
    const notifier = notifierFor(target, { signingKey: privateKey });
    await notifier.publish([requested()]);
    await notifier.flush();
    const delivery = target.deliveries[0]!;
    const headers = {
      id: String(delivery.headers['webhook-id']),
      timestamp: String(delivery.headers['webhook-timestamp']),
      signature: String(delivery.headers['webhook-signature']),
    };
    expect(headers.signature).toMatch(/^v1,\S+ v1a,\S+$/);
    expect(verified(delivery).type).toBe('approval.requested');
    const publicKey = webhookPublicKey(privateKey);
    expect(publicKey).toMatch(/^whpk_[A-Za-z0-9+/]{43}=$/);
    expect(verifyWebhookAsymmetric(publicKey, headers, delivery.body)).toBe(true);
    expect(verifyWebhookAsymmetric(publicKey, headers, delivery.body.replace('appr_1', 'appr_9'))).toBe(false);
    expect(verifyWebhookAsymmetric(publicKey, { ...headers, id: 'msg_other' }, delivery.body)).toBe(false);
    const stranger = webhookPublicKey(generateKeyPairSync('ed25519').privateKey);
    expect(verifyWebhookAsymmetric(stranger, headers, delivery.body)).toBe(false);
    // Only a private Ed25519 key signs: a public half or another kind of key is refused at creation.
    for (const signingKey of [
      createPublicKey(privateKey),
      generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey,
    ])
      expect(() => createWebhookNotifier({ url: target.url, secret: SECRET, signingKey })).toThrow(/Ed25519 private/);
  });
});
