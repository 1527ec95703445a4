// A streaming model's deltas over a real socket: a client of `GET /events?runId=` sees the model's answer as it
// comes, then the approval it asks for, then (after a decision posted over HTTP) how the call ended and the run's
// end, in that order; from the runtime's own feed, and from the Redis stream other processes read.
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import type { ModelDeltaEvent, RunEvent } from 'countersign';
import { serve, type ServeHandle, type EventFeed } from 'countersign/http';
import { createRedisStore, createStreamNotifier, type StreamNotifier } from 'countersign/redis';
import { removePrefix, uniquePrefix } from '../redis/redis-harness.js';
import { bearer, harness, json, type HarnessOptions } from './harness.js';
import { sseReader } from './sse-reader.js';

const url = inject('redisUrl');

describe('model deltas on GET /events over a socket', () => {
  let server: ServeHandle | undefined;
  let redis: Redis | undefined;
  const prefixes: string[] = [];
  const notifiers: StreamNotifier[] = [];

  beforeAll(() => {
    if (!url) return;
    redis = new Redis(url, { maxRetriesPerRequest: 1 });
    redis.on('error', () => {});
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
    for (const notifier of notifiers.splice(0)) await notifier.close();
  });
  afterAll(async () => {
    for (const prefix of prefixes) await removePrefix(redis!, prefix);
    await redis?.quit();
  });

  /** Serves a streaming app, follows one run's events, starts the run and decides it over HTTP; returns what the client saw. */
  async function followRun(options: Omit<HarnessOptions, 'stream'>) {
    const h = harness({ ...options, stream: true });
    server = await serve(h.app, { port: 0 });
    const runId = `run_${Math.random().toString(36).slice(2)}`;
    const events = sseReader(await fetch(`${server.url}/events?runId=${runId}`, { headers: bearer() }));
    expect(await events.next()).toBe(': connected');
    const seen: RunEvent[] = [];
    const until = async (type: RunEvent['type']) => {
      for (;;) {
        const { data } = await events.event();
        seen.push(data);
        if (data.type === type) return data;
      }
    };

    const paused = await h.runtime.start('files', { input: '/tmp/x', runId });
    const approvalId = paused.pendingApprovals[0]!.approvalId;
    await until('approval-requested');
    const decided = await fetch(
      `${server.url}/runs/${runId}/approvals/${approvalId}`,
      json({ approved: true, approvedBy: 'alice' }),
    );
    expect(decided.status).toBe(200);
    await until('run-completed');
    await events.cancel();
    return { seen, paused, errors: h.errors };
  }

  function expectTheRunStreamed({ seen, paused, errors }: Awaited<ReturnType<typeof followRun>>) {
    // Deltas collapsed: the order of what happened.
    const order = seen
      .map((event) => event.type)
      .filter((type, index, all) => type !== 'model-delta' || all[index - 1] !== 'model-delta');
    expect(order).toEqual([
      'model-delta',
      'approval-requested',
      'approval-resolved',
      'tool-finished',
      'model-delta',
      'run-completed',
    ]);
    const deltas = seen.filter((event): event is ModelDeltaEvent => event.type === 'model-delta');
    const call = paused.messages.at(-1)!.toolCalls![0]!;
    const argsOfCall = deltas.filter((delta) => delta.turn === 1 && delta.toolCallId === call.id);
    expect(argsOfCall[0]).toMatchObject({ kind: 'tool-call', toolName: 'delete_file' });
    // How much of the arguments arrived, never what (the approval request shows them, redacted).
    expect(argsOfCall.reduce((sum, delta) => sum + (delta.argsChars ?? 0), 0)).toBe(JSON.stringify(call.args).length);
    expect(argsOfCall.map((delta) => delta.delta).join('')).toBe('');
    const answer = deltas.filter((delta) => delta.turn === 2 && delta.kind === 'text');
    expect(answer.map((delta) => delta.delta).join('')).toBe(
      seen.find((event) => event.type === 'run-completed' && 'output' in event)!.output,
    );
    expect(errors).toEqual([]);
  }

  it("from the runtime's own feed", async () => {
    expectTheRunStreamed(await followRun({}));
  });

  it.skipIf(!url)('from the Redis stream, through createStreamNotifier as the feed', async () => {
    const prefix = uniquePrefix();
    prefixes.push(prefix);
    const notifier = createStreamNotifier({ redis: redis!, prefix, group: 'sse', blockMs: 200 });
    notifiers.push(notifier);
    const feed: EventFeed = notifier;
    expectTheRunStreamed(
      await followRun({ store: createRedisStore({ redis: redis!, prefix }), app: { events: feed } }),
    );
  });
});
