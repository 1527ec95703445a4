import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createRuntime, createMemoryStore } from 'countersign';
import { createRedisGrantStore } from 'countersign/redis';
import { decisionSecret, grantAgent } from '../support/grant-harness.js';
import { grantStoreContract, sampleGrant, useOf } from '../support/grant-store-contract.js';
import { connect, removePrefix, uniquePrefix } from './redis-harness.js';

const url = inject('redisUrl');

describe.skipIf(!url)('Redis grant store', () => {
  const redis = url ? connect(url) : undefined!;
  const prefixes: string[] = [];
  const fresh = () => {
    const prefix = uniquePrefix();
    prefixes.push(prefix);
    return prefix;
  };
  afterAll(async () => {
    for (const prefix of prefixes) await removePrefix(redis, prefix);
    redis.disconnect();
  });

  grantStoreContract(() => createRedisGrantStore({ redis, prefix: fresh() }));

  it('counts uses exactly across separate connections: 10 consumers, uses 3, exactly 3 uses', async () => {
    const prefix = fresh();
    const grant = sampleGrant({ uses: 3 });
    await createRedisGrantStore({ redis, prefix }).put(grant);
    const connections = Array.from({ length: 10 }, () => connect(url!));
    try {
      const outcomes = await Promise.all(
        connections.map((connection) =>
          createRedisGrantStore({ redis: connection, prefix }).consume(useOf(grant, 2_000)),
        ),
      );
      expect(outcomes.filter((outcome) => outcome === 'used')).toHaveLength(3);
    } finally {
      for (const connection of connections) connection.disconnect();
    }
  });

  it("gives the grant's key the grant's ttl", async () => {
    const prefix = fresh();
    const grant = sampleGrant({ grantedAt: 1_000, expiresAt: 1_000 + 60_000 });
    await createRedisGrantStore({ redis, prefix }).put(grant);
    const ttl = await redis.pttl(`${prefix}grant:${grant.id}`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });

  it("keeps a session's and an agent's grant index alive as long as their grants' keys, and for good while one has no expiry", async () => {
    const prefix = fresh();
    const store = createRedisGrantStore({ redis, prefix });
    const sessionId = `s-${randomUUID().slice(0, 8)}`;
    const agentName = `a-${randomUUID().slice(0, 8)}`;
    const session = (ttlMs?: number) =>
      sampleGrant({ sessionId, agentName, ...(ttlMs === undefined ? {} : { expiresAt: 1_000 + ttlMs }) });
    const agentWide = (ttlMs: number) => {
      const { sessionId: _sessionId, ...grant } = sampleGrant({ scope: 'agent', agentName, expiresAt: 1_000 + ttlMs });
      return grant;
    };
    const sessionIndex = `${prefix}grants:session:${sessionId}`;
    const agentIndex = `${prefix}grants:agent:${agentName}`;
    for (const ttlMs of [60_000, 30_000]) {
      await store.put(session(ttlMs));
      await store.put(agentWide(ttlMs));
    }
    expect(await redis.zcard(sessionIndex)).toBe(2);
    expect(await redis.zcard(agentIndex)).toBe(2);
    // Each index expires no sooner than its longest-lived grant, and with it.
    const replies = (await redis.multi().pttl(sessionIndex).pttl(agentIndex).exec()) as [null, number][];
    for (const [, ttl] of replies) {
      expect(ttl).toBeGreaterThan(30_000);
      expect(ttl).toBeLessThanOrEqual(60_000);
    }
    await store.put(session());
    expect(await redis.pttl(sessionIndex)).toBe(-1);
    await store.put(session(90_000));
    expect(await redis.pttl(sessionIndex)).toBe(-1);
  });

  it('refuses a grant forged straight into Redis when the agent has a decisionSecret: the call is still asked', async () => {
    const prefix = fresh();
    const grantStore = createRedisGrantStore({ redis, prefix });
    const { agent } = grantAgent({ decisionSecret, grantStore });
    const forged = sampleGrant({
      scope: 'agent',
      agentName: agent.name,
      grantedAt: Date.now(),
      expiresAt: Date.now() + 60_000,
    });
    delete (forged as { sessionId?: string }).sessionId;
    await redis.zadd(`${prefix}grants:agent:${agent.name}`, forged.grantedAt, forged.id);
    await redis.hset(
      `${prefix}grant:${forged.id}`,
      'g',
      JSON.stringify(forged),
      'exp',
      String(forged.expiresAt),
      'uses',
      '',
      'used',
      '0',
      'revoked',
      '0',
    );
    const errors: unknown[] = [];
    const paused = await agent.execute(
      { input: JSON.stringify([{ name: 'deploy', args: { env: 'prod' } }]) },
      { onError: (error) => void errors.push(error) },
    );
    expect(paused.status).toBe('awaitingApproval');
    expect(errors).toHaveLength(1);
  });

  it("shares a session's grants between runtimes on the same Redis: mode 'record' grants at once, revokeGrant from another", async () => {
    const prefix = fresh();
    const sessionId = `chat-${randomUUID().slice(0, 8)}`;
    const shared = { decisionSecret, name: `grants-${randomUUID().slice(0, 8)}` };
    const one = grantAgent({ ...shared, grantStore: createRedisGrantStore({ redis, prefix }) });
    const two = grantAgent({ ...shared, grantStore: createRedisGrantStore({ redis, prefix }) });
    const store = createMemoryStore();
    const first = createRuntime({ agents: [one.agent], store });
    const second = createRuntime({ agents: [two.agent], store: createMemoryStore() });
    const input = JSON.stringify([{ name: 'deploy', args: { env: 'prod' } }]);
    const paused = await first.start(one.agent.name, { input, sessionId });
    const request = paused.pendingApprovals[0]!;
    await first.respond(
      paused.runId,
      {
        approvalId: request.approvalId,
        approved: true,
        approvedBy: 'alice',
        scope: 'session',
        signature: request.signature!,
      },
      { mode: 'record' },
    );
    const [grant] = await second.grants({ sessionId });
    expect(grant).toMatchObject({
      sessionId,
      toolName: 'deploy',
      grantedBy: 'alice',
      approvalId: request.approvalId,
      runId: paused.runId,
    });
    expect((await second.start(two.agent.name, { input, sessionId })).status).toBe('completed');
    expect(await second.revokeGrant(grant!.id)).toBe(true);
    expect((await first.start(one.agent.name, { input, sessionId })).status).toBe('awaitingApproval');
  });
});
