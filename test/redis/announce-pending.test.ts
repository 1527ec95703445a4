// announcePendingOnStart on a real Redis: two runtimes (two connections, as two processes would have) starting at
// once announce each waiting request exactly once, claimed in the store's own once store; an expired one not at all.
// And runtime.addRequest: a call added in one process is stored with the run and run once by another.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createRuntime } from 'countersign';
import { createRedisStore } from 'countersign/redis';
import { countingAgent, recordingNotifier } from '../support/runtime-harness.js';
import { testClock } from '../support/test-kit.js';
import { removePrefix } from './redis-harness.js';

const url = inject('redisUrl');

describe.skipIf(!url)('announcePendingOnStart on Redis', () => {
  const prefix = `cs-test:${randomUUID()}:`;
  const connections = [new Redis(url!), new Redis(url!), new Redis(url!)];
  afterAll(async () => {
    await removePrefix(connections[0]!, prefix);
    await Promise.all(connections.map((redis) => redis.quit()));
  });

  it('two runtimes starting together announce each waiting request exactly once', async () => {
    const clock = testClock(Date.now());
    const lasting = countingAgent({ clock, calls: 3 });
    const brief = countingAgent({ clock, approvalTtlMs: 60_000 });
    const agents = [lasting.agent, brief.agent];
    const seed = createRuntime({ agents, store: createRedisStore({ redis: connections[0]!, prefix }), clock });
    const waiting = await Promise.all(
      Array.from({ length: 5 }, () => seed.start(lasting.agent.name, { input: 'pay' })),
    );
    const expired = await seed.start(brief.agent.name, { input: 'pay' });
    clock.advance(120_000);

    const notifiers = [recordingNotifier(), recordingNotifier()];
    const runtimes = notifiers.map((notifier, index) =>
      createRuntime({
        agents,
        store: createRedisStore({ redis: connections[index + 1]!, prefix }),
        clock,
        notifier,
        announcePendingOnStart: true,
      }),
    );
    const reports = await Promise.all(runtimes.map((runtime) => runtime.announcePending()));

    const announced = notifiers.flatMap((notifier) =>
      notifier.events.flatMap((event) => (event.type === 'approval-requested' ? [event.request.approvalId] : [])),
    );
    const expected = waiting.flatMap((run) => run.pendingApprovals.map((item) => item.approvalId));
    expect(expected).toHaveLength(15);
    expect([...announced].sort()).toEqual([...expected].sort());
    expect(announced).not.toContain(expired.pendingApprovals[0]!.approvalId);
    expect(reports[0]!.announced + reports[1]!.announced).toBe(15);
    // The claims live in the store's once store, under the documented key, until the request expires.
    const held = await connections[0]!.keys(`${prefix}*announce:${waiting[0]!.runId}:*`);
    expect(held).toHaveLength(3);
  });

  it('stores a request added in one process with its run, and another process runs it once when approved', async () => {
    const counting = countingAgent({ decisionSecret: 'a-decision-secret-of-at-least-32-characters!' });
    const [here, there] = [1, 2].map((index) =>
      createRuntime({ agents: [counting.agent], store: createRedisStore({ redis: connections[index]!, prefix }) }),
    );
    const paused = await here!.start(counting.agent.name, { input: 'pay' });
    const added = await here!.addRequest(paused.runId, {
      toolCallId: 'ext_1',
      toolName: 'send_payment',
      args: { to: 'acct-x', cents: 7 },
      approvalId: 'apr_ext_1',
    });
    const loaded = await there!.get(paused.runId);
    expect(loaded).toEqual(added);
    expect(loaded.toolCalls.find((record) => record.toolCallId === 'ext_1')?.added).toEqual({
      args: { to: 'acct-x', cents: 7 },
    });
    for (const request of loaded.pendingApprovals) {
      await there!.respond(paused.runId, {
        approvalId: request.approvalId,
        approved: true,
        approvedBy: 'alice',
        signature: request.signature!,
      });
    }
    const done = await there!.get(paused.runId);
    expect(done.status).toBe('completed');
    expect(counting.executions.filter((key) => key === `${paused.runId}:ext_1`)).toHaveLength(1);
  });
});
