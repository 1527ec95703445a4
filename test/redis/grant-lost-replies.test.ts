// A grant use whose reply is lost after Redis spent it: ioredis resends the command, and the resend must be known as
// the same call's use, not spend a second one. `uses: 2` means two calls, whatever the network did.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { createMemoryStore, createRuntime } from 'countersign';
import { createRedisGrantStore } from 'countersign/redis';
import { decisionSecret, grantAgent } from '../support/grant-harness.js';
import { sampleGrant, useOf } from '../support/grant-store-contract.js';
import { uniquePrefix } from './redis-harness.js';
import { proxiedRedis } from './proxied-redis.js';

const url = inject('redisUrl');
const deploy = JSON.stringify([{ name: 'deploy', args: { env: 'prod' } }]);

describe.skipIf(!url)('Redis grant store: a use whose reply was lost', () => {
  const prefix = uniquePrefix();
  const redis = proxiedRedis(url!, prefix);
  beforeAll(async () => {
    // The scripts are loaded on the server first, so the lost reply is the use's own, not a NOSCRIPT answer.
    const warm = createRedisGrantStore({ redis: redis.viaProxy, prefix });
    const grant = sampleGrant();
    await warm.put(grant);
    await warm.consume(useOf(grant, 2_000));
  });

  it('the store: a resent use answers used and spends nothing more', async () => {
    const store = createRedisGrantStore({ redis: redis.viaProxy, prefix });
    const grant = sampleGrant({ uses: 2 });
    await store.put(grant);
    const runId = `run_${randomUUID()}`;
    const lost = redis.proxy.dropReplyTo(runId);
    expect(await store.consume(useOf(grant, 2_000, `${runId}:call_1`))).toBe('used');
    await lost;
    const inspect = createRedisGrantStore({ redis: redis.direct, prefix });
    expect((await inspect.get(grant.id))?.used).toBe(1);
    expect(await store.consume(useOf(grant, 2_000, `run_${randomUUID()}:call_2`))).toBe('used');
    expect(await store.consume(useOf(grant, 2_000, `run_${randomUUID()}:call_3`))).toBe('used-up');
  });

  it("an agent's run: uses 2 covers two calls of the session after the first use's reply is lost", async () => {
    const name = `grants-${randomUUID().slice(0, 8)}`;
    const sessionId = `chat-${randomUUID().slice(0, 8)}`;
    const { agent, executions } = grantAgent({
      decisionSecret,
      name,
      grantStore: createRedisGrantStore({ redis: redis.viaProxy, prefix }),
    });
    const runtime = createRuntime({ agents: [agent], store: createMemoryStore() });
    const paused = await runtime.start(name, { input: deploy, sessionId });
    const request = paused.pendingApprovals[0]!;
    await runtime.respond(paused.runId, {
      approvalId: request.approvalId,
      approved: true,
      approvedBy: 'alice',
      scope: 'session',
      grant: { uses: 2 },
      signature: request.signature!,
    });

    const runId = `run_${randomUUID()}`;
    const lost = redis.proxy.dropReplyTo(runId);
    expect((await runtime.start(name, { input: deploy, sessionId, runId })).status).toBe('completed');
    await lost;
    expect((await runtime.start(name, { input: deploy, sessionId })).status).toBe('completed');
    expect((await runtime.start(name, { input: deploy, sessionId })).status).toBe('awaitingApproval');
    expect(executions.count('deploy')).toBe(3);
  });
});
