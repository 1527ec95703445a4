// The global indexes: pending approvals (listPending, expiredRuns) and running runs (runsToRecover).
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { approveAll, createRuntime, type AgentSnapshot } from 'countersign';
import { createRedisStore } from 'countersign/redis';
import { parsePendingMember, pendingMember } from '../../src/stores/redis/keys.js';
import { connect, pausedRun, removePrefix, uniquePrefix } from './redis-harness.js';

const url = inject('redisUrl');

/** The same run, now running: one tool call executing under a lease, or none. */
function running(run: AgentSnapshot, options: { leaseUntil?: number; updatedAt: number }): AgentSnapshot {
  const { stopReason: _stopReason, ...rest } = run;
  const record = run.toolCalls[0]!;
  return {
    ...rest,
    status: 'running',
    state: 'executingTools',
    pendingApprovals: [],
    toolCalls:
      options.leaseUntil === undefined
        ? []
        : [{ ...record, status: 'executing', lease: { owner: 'worker-1', until: options.leaseUntil }, attempts: 1 }],
    version: run.version + 1,
    updatedAt: options.updatedAt,
  };
}

describe.skipIf(!url)('Redis store: indexes', () => {
  const redis = url ? connect(url) : undefined!;
  const prefixes: string[] = [];
  const fresh = (publish: 'inline' | 'outbox' = 'inline') => {
    const prefix = uniquePrefix();
    prefixes.push(prefix);
    return createRedisStore({ redis, prefix, publish });
  };
  afterAll(async () => {
    for (const prefix of prefixes) await removePrefix(redis, prefix);
    redis.disconnect();
  });

  it('lists soonest expiry first, ties by approval id, no expiry last, the same across page sizes', async () => {
    const store = fresh();
    const now = Date.now();
    const clock = () => now;
    const runs: AgentSnapshot[] = [];
    for (const ttlMs of [5_000, 1_000, 5_000, undefined, 5_000, 3_000, undefined])
      runs.push((await pausedRun({ clock, ...(ttlMs === undefined ? {} : { ttlMs }) })).run);
    for (const run of runs) await store.create(run);
    const expected = runs
      .map((run) => ({
        runId: run.runId,
        key: `${String(run.pendingApprovals[0]!.expiresAt ?? Number.MAX_SAFE_INTEGER).padStart(16, '0')}|${run.pendingApprovals[0]!.approvalId}`,
      }))
      .sort((a, b) => (a.key < b.key ? -1 : 1))
      .map((item) => item.runId);
    expect((await store.listPending()).items.map((item) => item.runId)).toEqual(expected);
    for (const limit of [1, 2, 3]) {
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await store.listPending({ limit, ...(cursor === undefined ? {} : { cursor }) });
        expect(page.items.length).toBeLessThanOrEqual(limit);
        seen.push(...page.items.map((item) => item.runId));
        cursor = page.cursor;
      } while (cursor !== undefined);
      expect(seen).toEqual(expected);
    }
    const page = await store.listPending({ limit: 7 });
    expect(page.cursor).toBeUndefined();
    expect(page.items[0]).toEqual({
      runId: runs[1]!.runId,
      agentName: runs[1]!.agentName,
      request: runs[1]!.pendingApprovals[0],
    });
  });

  it('lists one agent from its own index, paginated', async () => {
    const store = fresh();
    const agentName = `agent-${randomUUID().slice(0, 6)}`;
    const mine: AgentSnapshot[] = [];
    for (let index = 0; index < 5; index++) mine.push((await pausedRun({ agentName, ttlMs: 1_000 * (index + 1) })).run);
    for (const run of mine) await store.create(run);
    for (let index = 0; index < 5; index++) await store.create((await pausedRun({ ttlMs: 500 })).run);
    const first = await store.listPending({ agent: agentName, limit: 3 });
    expect(first.items.map((item) => item.runId)).toEqual(mine.slice(0, 3).map((run) => run.runId));
    const second = await store.listPending({ agent: agentName, limit: 3, cursor: first.cursor! });
    expect(second.items.map((item) => item.runId)).toEqual(mine.slice(3).map((run) => run.runId));
    expect(second.cursor).toBeUndefined();
    expect(await redis.zcard(store.keys.pendingAgent(agentName))).toBe(5);
    expect(await redis.zcard(store.keys.pending)).toBe(10);
  });

  it('reads the same number of keys for the first page with 10 or 1,000 runs waiting', async () => {
    const counts: number[] = [];
    for (const waiting of [10, 1000]) {
      const store = fresh();
      const { run } = await pausedRun({ ttlMs: 60_000 });
      const request = run.pendingApprovals[0]!;
      const all = Array.from({ length: waiting }, (_, index) => ({
        ...run,
        runId: `run_${randomUUID()}`,
        pendingApprovals: [{ ...request, approvalId: `apr_${randomUUID()}`, expiresAt: request.expiresAt! + index }],
      }));
      for (let start = 0; start < all.length; start += 100)
        await Promise.all(all.slice(start, start + 100).map((item) => store.create(item)));
      let commands = 0;
      const counted = new Proxy(redis, {
        get(target, property, receiver) {
          const value: unknown = Reflect.get(target, property, receiver);
          if (typeof value !== 'function') return value;
          return (...args: unknown[]) => {
            commands++;
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        },
      });
      const page = await createRedisStore({ redis: counted, prefix: store.keys.prefix }).listPending({ limit: 5 });
      expect(page.items.map((item) => item.runId)).toEqual(all.slice(0, 5).map((item) => item.runId));
      counts.push(commands);
    }
    expect(counts[1]).toBe(counts[0]);
  });

  it('refuses a cursor it did not hand out', async () => {
    await expect(fresh().listPending({ cursor: 'not-a-cursor' })).rejects.toThrow(/cursor/);
  });

  it('removes a run from the pending indexes when it stops waiting', async () => {
    const store = fresh();
    const { run, agent } = await pausedRun({ ttlMs: 60_000 });
    await store.create(run);
    expect(await redis.zcard(store.keys.pending)).toBe(1);
    const decided = approveAll(run, 'alice', { agent });
    await store.commit(decided, run.version);
    await store.commit(await agent.execute(decided), decided.version);
    expect(await redis.zcard(store.keys.pending)).toBe(0);
    expect(await redis.zcard(store.keys.pendingAgent(run.agentName))).toBe(0);
    expect(await redis.zcard(store.keys.runningIdle)).toBe(0);
  });

  it("keeps a session's own index: written with the run, emptied when it stops waiting, repaired when an update was lost", async () => {
    const store = fresh();
    const { run, agent } = await pausedRun({ ttlMs: 60_000, sessionId: 'chat-1' });
    const { run: lost, agent: lostAgent } = await pausedRun({ ttlMs: 60_000, sessionId: 'chat-1' });
    await store.create(run);
    await store.create(lost);
    expect(await redis.zcard(store.keys.pendingSession('chat-1'))).toBe(2);
    await store.commit(approveAll(run, 'alice', { agent }), run.version);
    expect(await redis.zcard(store.keys.pendingSession('chat-1'))).toBe(1);
    // A decision whose index update was lost: listing the session skips the entry and removes it.
    await redis.hset(store.keys.head(lost.runId), 'x', '');
    await store.commit(approveAll(lost, 'alice', { agent: lostAgent }), lost.version);
    expect((await store.listPending({ sessionId: 'chat-1' })).items).toEqual([]);
    expect(await redis.zcard(store.keys.pendingSession('chat-1'))).toBe(0);
  });

  it.for(['inline', 'outbox'] as const)(
    "keeps a session's index alive as long as its runs' keys, and the sweep removes the member of a run whose keys expired (%s)",
    async (publish) => {
      const store = fresh(publish);
      const now = Date.now();
      const clock = () => now;
      const sessionId = `chat-${randomUUID().slice(0, 8)}`;
      const index = store.keys.pendingSession(sessionId);
      const { run: gone, agent } = await pausedRun({ ttlMs: 1_000, clock, sessionId });
      const runtime = createRuntime({ agents: [agent], store, clock });
      const { run: later } = await pausedRun({ ttlMs: 60_000, clock, sessionId });
      await store.create(gone);
      await store.create(later);
      // Read at one instant: the index expires no sooner than the keys of its longest-lived run.
      const [[, headTtl], [, indexTtl]] = (await redis
        .multi()
        .pttl(store.keys.head(later.runId))
        .pttl(index)
        .exec()) as [[null, number], [null, number]];
      expect(headTtl).toBeGreaterThan(0);
      expect(indexTtl).toBeGreaterThanOrEqual(headTtl);
      // The first run's keys expire (deleted here, as their TTL would); nobody lists the session, the sweep passes.
      await redis.del(...store.keys.run(gone.runId));
      expect(await runtime.sweepExpired(gone.pendingApprovals[0]!.expiresAt! + 1)).toMatchObject({
        runs: 0,
        failed: 0,
      });
      expect((await redis.zrange(index, '0', '-1')).map((member) => parsePendingMember(member)?.runId)).toEqual([
        later.runId,
      ]);
      expect(await redis.zcard(store.keys.pending)).toBe(1);
      // A run whose request has no expiry keeps its keys for good, and so the index.
      const { run: open } = await pausedRun({ clock, sessionId });
      await store.create(open);
      expect(await redis.pttl(index)).toBe(-1);
    },
  );

  it('skips and removes stale index entries (a run gone, or no longer waiting), still filling the page', async () => {
    const store = fresh();
    const now = Date.now();
    const { run: live } = await pausedRun({ ttlMs: 10_000, clock: () => now });
    const { run: decidedRun, agent } = await pausedRun({ ttlMs: 5_000, clock: () => now });
    await store.create(live);
    await store.create(decidedRun);
    // A decision whose index update was lost (its process died after the commit): the entry stays behind.
    const decided = approveAll(decidedRun, 'alice', { agent });
    await redis.hset(store.keys.head(decidedRun.runId), 'x', '');
    await store.commit(decided, decidedRun.version);
    // An entry of a run whose keys expired or were deleted.
    const ghosts = Array.from({ length: 120 }, (_, index) =>
      pendingMember(now + 1_000 + index, `apr_ghost_${index}`, `run_ghost_${randomUUID()}`, 'ghost'),
    );
    await redis.zadd(store.keys.pending, ...ghosts.flatMap((member) => [0, member]));
    expect(await redis.zcard(store.keys.pending)).toBe(122);
    const page = await store.listPending({ limit: 1 });
    expect(page.items.map((item) => item.runId)).toEqual([live.runId]);
    expect(page.cursor).toBeUndefined();
    expect(await redis.zrange(store.keys.pending, '0', '-1')).toEqual([
      pendingMember(
        live.pendingApprovals[0]!.expiresAt,
        live.pendingApprovals[0]!.approvalId,
        live.runId,
        live.agentName,
      ),
    ]);
    expect(await redis.zcard(store.keys.pendingAgent(decidedRun.agentName))).toBe(0);
  });

  it('finds runs with an expired approval once each, up to the limit, and repairs stale entries on the way', async () => {
    const store = fresh();
    const now = Date.now();
    const clock = () => now;
    const expired: AgentSnapshot[] = [];
    for (let index = 0; index < 4; index++) expired.push((await pausedRun({ ttlMs: 1_000 + index, clock })).run);
    const { run: later } = await pausedRun({ ttlMs: 60_000, clock });
    const { run: open } = await pausedRun({ clock });
    for (const run of [...expired, later, open]) await store.create(run);
    // Two expired requests in one run: listed once.
    const twice = expired[0]!;
    const request = twice.pendingApprovals[0]!;
    const both = {
      ...twice,
      version: twice.version + 1,
      pendingApprovals: [request, { ...request, approvalId: `${request.approvalId}-b` }],
    };
    await store.commit(both, twice.version);
    await redis.zadd(store.keys.pending, 0, pendingMember(now, 'apr_gone', 'run_gone', 'ghost'));
    const at = now + 2_000;
    expect([...(await store.expiredRuns(at, 100))].sort()).toEqual(expired.map((run) => run.runId).sort());
    expect(await store.expiredRuns(at, 2)).toHaveLength(2);
    expect(await store.expiredRuns(now + 1_000, 100)).toEqual([twice.runId]);
    expect(await store.expiredRuns(now, 100)).toEqual([]);
    expect(await redis.zscore(store.keys.pending, pendingMember(now, 'apr_gone', 'run_gone', 'ghost'))).toBeNull();
  });

  it('finds running runs whose lease ended or that made no progress since staleBefore', async () => {
    const store = fresh();
    const now = Date.now();
    const make = async () => (await pausedRun({ clock: () => now - 120_000 })).run;
    const [leaseEnded, leaseLive, idleStale, idleFresh, done] = [
      await make(),
      await make(),
      await make(),
      await make(),
      await make(),
    ];
    for (const run of [leaseEnded, leaseLive, idleStale, idleFresh, done]) await store.create(run);
    await store.commit(running(leaseEnded, { leaseUntil: now - 1, updatedAt: now - 30_000 }), leaseEnded.version);
    await store.commit(running(leaseLive, { leaseUntil: now + 60_000, updatedAt: now - 90_000 }), leaseLive.version);
    await store.commit(running(idleStale, { updatedAt: now - 90_000 }), idleStale.version);
    await store.commit(running(idleFresh, { updatedAt: now - 1_000 }), idleFresh.version);
    const finished = running(done, { updatedAt: now - 90_000 });
    await store.commit(finished, done.version);
    const { stopReason: _s, ...rest } = finished;
    await store.commit(
      {
        ...rest,
        status: 'completed',
        state: 'completed',
        stopReason: 'completed',
        output: 'ok',
        version: finished.version + 1,
      },
      finished.version,
    );
    const staleBefore = now - 60_000;
    expect([...(await store.runsToRecover(now, staleBefore, 100))].sort()).toEqual(
      [leaseEnded.runId, idleStale.runId].sort(),
    );
    expect(await store.runsToRecover(now, staleBefore, 1)).toHaveLength(1);
    expect(await redis.zcard(store.keys.runningLease)).toBe(2);
    expect(await redis.zcard(store.keys.runningIdle)).toBe(2);
  });

  it('drops a running hint left by an older commit and puts back the current one', async () => {
    const store = fresh();
    const now = Date.now();
    const { run } = await pausedRun({ clock: () => now - 120_000 });
    await store.create(run);
    const first = running(run, { leaseUntil: now - 1, updatedAt: now - 90_000 });
    await store.commit(first, run.version);
    const second = { ...running(run, { updatedAt: now - 90_000 }), version: first.version + 1 };
    await store.commit(second, first.version);
    // A late index update from the first commit (its process stalled) re-adds its hint; the current one was lost.
    await redis.zadd(store.keys.runningLease, now - 1, `${first.version}@${run.runId}`);
    await redis.zrem(store.keys.runningIdle, `${second.version}@${run.runId}`);
    // The lease hint is dropped, the idle one put back, and found in the same pass.
    expect(await store.runsToRecover(now, now - 60_000, 100)).toEqual([run.runId]);
    expect(await redis.zcard(store.keys.runningLease)).toBe(0);
    expect(await redis.zrange(store.keys.runningIdle, '0', '-1')).toEqual([`${second.version}@${run.runId}`]);
    expect(await store.runsToRecover(now, now - 60 * 60_000, 100)).toEqual([]);
  });
});
