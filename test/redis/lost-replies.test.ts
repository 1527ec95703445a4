// A commit whose reply is lost after it landed: ioredis resends it on the new
// connection, and the resend must be recognised as the same commit, not as a
// conflict with itself.
import { randomUUID } from 'node:crypto';
import { describe, expect, inject, it } from 'vitest';
import { createRuntime } from 'countersign';
import { createRedisStore } from 'countersign/redis';
import { countingAgent } from '../support/runtime-harness.js';
import { uniquePrefix } from './redis-harness.js';
import { proxiedRedis } from './proxied-redis.js';

const url = inject('redisUrl');

describe.skipIf(!url)('Redis store: a commit whose reply was lost', () => {
  const prefix = uniquePrefix();
  const redis = proxiedRedis(url!, prefix);

  const setup = async () => {
    const counting = countingAgent();
    const runtime = createRuntime({
      agents: [counting.agent],
      store: createRedisStore({ redis: redis.viaProxy, prefix }),
    });
    // The scripts are loaded on the server first, so the lost reply is the commit's own, not a NOSCRIPT answer.
    await runtime.start(counting.agent.name, { input: 'pay' });
    return { counting, runtime, inspect: createRedisStore({ redis: redis.direct, prefix }) };
  };

  it('start resolves with the run it created when the reply of its create is lost', async () => {
    const { counting, runtime, inspect } = await setup();
    const runId = `run_${randomUUID()}`;
    const lost = redis.proxy.dropReplyTo(runId);
    const run = await runtime.start(counting.agent.name, { input: 'pay', runId });
    await lost;
    expect(run.status).toBe('awaitingApproval');
    expect(await inspect.load(runId)).toEqual(run);
  });

  it('respond records and carries on the decision whose commit reply is lost, instead of calling it a duplicate', async () => {
    const { counting, runtime, inspect } = await setup();
    const run = await runtime.start(counting.agent.name, { input: 'pay' });
    const approvedBy = `alice-${randomUUID()}`;
    const lost = redis.proxy.dropReplyTo(approvedBy);
    const result = await runtime.respond(run.runId, {
      approvalId: run.pendingApprovals[0]!.approvalId,
      approved: true,
      approvedBy,
    });
    await lost;
    expect(result).toMatchObject({ duplicate: false, status: 'completed' });
    expect(counting.executions).toEqual([`${run.runId}:${run.pendingApprovals[0]!.toolCallId}`]);
    const stored = await inspect.load(run.runId);
    expect(stored?.status).toBe('completed');
    expect(stored?.audit.filter((entry) => entry.by === approvedBy)).toHaveLength(1);
  });
});
