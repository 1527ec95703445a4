// Key layout, TTLs, append-only history, flat bytes per commit and harmless resends.
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, inject, it } from 'vitest';
import {
  approveAll,
  deserialize,
  serialize,
  withApprovalResponse,
  SnapshotError,
  VersionConflictError,
  type AgentSnapshot,
  type RunEvent,
} from 'countersign';
import { createRedisStore, type RedisStore } from 'countersign/redis';
import { encodeHead } from '../../src/run/snapshot-codec.js';
import { bytesSent, connect, keySlot, pausedRun, removePrefix, streamEvents, uniquePrefix } from './redis-harness.js';

const url = inject('redisUrl');
const HOUR = 3_600_000;

describe.skipIf(!url)('Redis store: layout, TTLs and commits', () => {
  const redis = url ? connect(url) : undefined!;
  const prefix = uniquePrefix();
  const store = url ? createRedisStore({ redis, prefix, retentionMs: HOUR, graceMs: 10 * 60_000 }) : undefined!;
  afterAll(async () => {
    await removePrefix(redis, prefix);
    redis.disconnect();
  });

  const resolved = (snapshot: AgentSnapshot): RunEvent[] => [
    { type: 'approval-resolved', runId: snapshot.runId, agentName: snapshot.agentName, entry: snapshot.audit.at(-1)! },
  ];

  /** PTTL of every key the run has (a missing list is no key at all). */
  const ttls = async (s: RedisStore, runId: string) => {
    const result: Record<string, number> = {};
    for (const key of s.keys.run(runId))
      if (await redis.exists(key)) result[key.slice(key.lastIndexOf(':') + 1)] = await redis.pttl(key);
    return result;
  };

  it('keeps every key of a run in one Cluster slot (the run id is the hash tag), whatever the id looks like', async () => {
    expect(keySlot('123456789')).toBe(12739); // the check value from the Redis Cluster spec
    for (const runId of [randomUUID(), 'run:with:colons', 'run}brace', 'ünïcode-run']) {
      const slots = store.keys.run(runId).map(keySlot);
      expect(new Set(slots).size).toBe(1);
    }
    const { run } = await pausedRun();
    await store.create(run);
    const existing = [];
    for (const key of store.keys.run(run.runId)) if (await redis.exists(key)) existing.push(key);
    expect(existing).toEqual([store.keys.head(run.runId), store.keys.messages(run.runId)]);
    expect(existing.every((key) => key.includes(`{${run.runId}}`))).toBe(true);
  });

  it('refuses a prefix with a brace (it would put every run in one slot)', () => {
    expect(() => createRedisStore({ redis, prefix: '{app}:' })).toThrow(/brace/);
  });

  it('loads a deeply frozen snapshot equal to what was committed, in one script call', async () => {
    const { run, agent } = await pausedRun({ prior: 5 });
    await store.create(run);
    const decided = approveAll(run, 'alice', { agent });
    await store.commit(decided, run.version, resolved(decided));
    const done = await agent.execute(decided);
    await store.commit(done, decided.version);
    const loaded = (await store.load(run.runId))!;
    expect(loaded).toEqual(done);
    expect(Object.isFrozen(loaded)).toBe(true);
    expect(Object.isFrozen(loaded.messages.at(-1))).toBe(true);
    expect(Object.isFrozen(loaded.audit[0])).toBe(true);
    expect(deserialize(serialize(loaded))).toEqual(done);
  });

  it('stores the head as superjson encodes it, also when it holds values JSON cannot carry', async () => {
    const { run, agent } = await pausedRun();
    await store.create(run);
    const { messages: _m, audit: _a, ...head } = run;
    expect(JSON.parse((await redis.hget(store.keys.head(run.runId), 'h'))!)).toEqual(
      JSON.parse(JSON.stringify(encodeHead({ ...head, audit: [] }))),
    );
    // An edited argument with a Date and a Map goes through superjson, and comes back as it was.
    const decided = withApprovalResponse(
      run,
      { approvalId: run.pendingApprovals[0]!.approvalId, approved: true, approvedBy: 'alice' },
      { agent },
    );
    const record = decided.toolCalls[0]!;
    const edited = {
      ...decided,
      toolCalls: [{ ...record, editedArgs: { at: new Date(0), tags: new Map([['a', 1]]), n: -0 } }],
    };
    await store.commit(edited, run.version);
    expect(JSON.parse((await redis.hget(store.keys.head(run.runId), 'h'))!).meta).toBeDefined();
    const loaded = (await store.load(run.runId))!;
    expect(loaded.toolCalls[0]!.editedArgs).toEqual({ at: new Date(0), tags: new Map([['a', 1]]), n: -0 });
    expect(loaded).toEqual(edited);
  });

  it('refuses a head that does not validate, naming the field', async () => {
    const { run } = await pausedRun();
    await store.create(run);
    const encoded = JSON.parse((await redis.hget(store.keys.head(run.runId), 'h'))!);
    encoded.json.status = 'sleeping';
    await redis.hset(store.keys.head(run.runId), 'h', JSON.stringify(encoded));
    await expect(store.load(run.runId)).rejects.toThrow(SnapshotError);
    await expect(store.load(run.runId)).rejects.toThrow(/status/);
  });

  it('appends history: a commit pushes only the new messages and audit entries, earlier ones stay untouched', async () => {
    const { run, agent } = await pausedRun({ prior: 20 });
    await store.create(run);
    const firstBefore = await redis.lrange(store.keys.messages(run.runId), 0, -1);
    const decided = approveAll(run, 'alice', { agent });
    await store.commit(decided, run.version);
    expect(await redis.llen(store.keys.messages(run.runId))).toBe(run.messages.length);
    expect(await redis.llen(store.keys.audit(run.runId))).toBe(1);
    const done = await agent.execute(decided);
    await store.commit(done, decided.version);
    const after = await redis.lrange(store.keys.messages(run.runId), 0, -1);
    expect(after.length).toBe(done.messages.length);
    expect(after.slice(0, firstBefore.length)).toEqual(firstBefore);
    expect(after.map((text) => JSON.parse(text))).toEqual(done.messages);
    // The head holds no history.
    expect((await redis.hget(store.keys.head(run.runId), 'h'))!).not.toContain('lorem ipsum');
  });

  it('writes the same number of bytes per decision with 10 or 1,000 prior messages', async () => {
    const measured: { prior: number; decision: number; resume: number; snapshot: number }[] = [];
    for (const prior of [10, 1000]) {
      const own = connect(url!);
      const ownStore = createRedisStore({ redis: own, prefix, retentionMs: HOUR });
      const { run, agent } = await pausedRun({ prior });
      await ownStore.create(run);
      const decided = approveAll(run, 'alice', { agent });
      const decision = await bytesSent(own, () => ownStore.commit(decided, run.version, resolved(decided)));
      const done = await agent.execute(decided);
      const resume = await bytesSent(own, () => ownStore.commit(done, decided.version));
      expect(await ownStore.load(run.runId)).toEqual(done);
      measured.push({ prior, decision, resume, snapshot: serialize(done).length });
      own.disconnect();
    }
    const [small, large] = measured as [(typeof measured)[0], (typeof measured)[0]];
    expect(large.snapshot).toBeGreaterThan((100 * small.snapshot) / 10); // the history did grow a lot
    // Only digits of counts may differ ("11" vs "1001").
    expect(Math.abs(large.decision - small.decision)).toBeLessThan(32);
    expect(Math.abs(large.resume - small.resume)).toBeLessThan(32);
    expect(large.decision).toBeLessThan(8_000);
  });

  it('refuses a resent commit harmlessly, also from another connection after a reconnect', async () => {
    const { run, agent } = await pausedRun();
    const events: RunEvent[] = [
      { type: 'approval-requested', runId: run.runId, agentName: run.agentName, request: run.pendingApprovals[0]! },
    ];
    await store.create(run, events);
    const decided = approveAll(run, 'alice', { agent });
    await store.commit(decided, run.version, resolved(decided));
    const done = await agent.execute(decided);
    await store.commit(done, decided.version);
    const lengths = async () => [
      await redis.llen(store.keys.messages(run.runId)),
      await redis.llen(store.keys.audit(run.runId)),
      (await streamEvents(redis, prefix)).filter((event) => event.runId === run.runId).length,
    ];
    const before = await lengths();
    await expect(store.commit(done, decided.version)).rejects.toMatchObject({
      name: 'VersionConflictError',
      expected: decided.version,
      actual: done.version,
    });
    const other = connect(url!);
    const fresh = createRedisStore({ redis: other, prefix });
    await expect(fresh.commit(done, decided.version, resolved(decided))).rejects.toBeInstanceOf(VersionConflictError);
    await expect(fresh.commit(decided, run.version, resolved(decided))).rejects.toBeInstanceOf(VersionConflictError);
    other.disconnect();
    expect(await lengths()).toEqual(before);
    expect(await store.load(run.runId)).toEqual(done);
  });

  it('lets exactly one of 20 concurrent commits at the same version land, from separate connections', async () => {
    const { run } = await pausedRun({ prior: 3 });
    await store.create(run);
    const contenders = Array.from({ length: 20 }, (_, index) => {
      const own = connect(url!);
      const next: AgentSnapshot = {
        ...run,
        version: run.version + 1,
        messages: [...run.messages, { role: 'user', content: `contender ${index}` }],
        updatedAt: run.updatedAt + index,
      };
      return { own, next, store: createRedisStore({ redis: own, prefix }) };
    });
    const outcomes = await Promise.allSettled(contenders.map(({ store: s, next }) => s.commit(next, run.version)));
    for (const { own } of contenders) own.disconnect();
    const winners = outcomes.flatMap((outcome, index) => (outcome.status === 'fulfilled' ? [index] : []));
    expect(winners).toHaveLength(1);
    for (const outcome of outcomes)
      if (outcome.status === 'rejected') expect(outcome.reason).toBeInstanceOf(VersionConflictError);
    expect(await store.load(run.runId)).toEqual(contenders[winners[0]!]!.next);
    expect(await redis.llen(store.keys.messages(run.runId))).toBe(run.messages.length + 1);
  });

  it('commits from a store that never loaded the run (asks the counts, then sends only the tail)', async () => {
    const { run, agent } = await pausedRun({ prior: 30 });
    await store.create(run);
    const decided = approveAll(run, 'alice', { agent });
    const done = await agent.execute(decided);
    const other = connect(url!);
    const fresh = createRedisStore({ redis: other, prefix });
    await fresh.commit(done, run.version);
    other.disconnect();
    expect(await store.load(run.runId)).toEqual(done);
  });

  it('refuses a successor with a shorter history than the stored one', async () => {
    const { run, agent } = await pausedRun({ prior: 4 });
    await store.create(run);
    const decided = approveAll(run, 'alice', { agent });
    const other = connect(url!);
    const fresh = createRedisStore({ redis: other, prefix });
    const truncated = { ...decided, messages: decided.messages.slice(0, 2) };
    await expect(fresh.commit(truncated, run.version)).rejects.toBeInstanceOf(VersionConflictError);
    other.disconnect();
    expect(await store.load(run.runId)).toEqual(run);
  });

  it('refuses a commit whose version is not above the expected one (a resend could not be told apart)', async () => {
    const { run } = await pausedRun();
    await store.create(run);
    await expect(store.commit(run, run.version)).rejects.toThrow(/not above the expected/);
  });

  it('commit of a missing run is a version conflict with no actual version', async () => {
    const { run, agent } = await pausedRun();
    const decided = approveAll(run, 'alice', { agent });
    await expect(store.commit(decided, run.version)).rejects.toMatchObject({
      name: 'VersionConflictError',
      actual: undefined,
    });
  });

  it('keeps a waiting run until its latest expiresAt plus the grace period, and rewrites keep the TTL right', async () => {
    const { run, agent } = await pausedRun({ ttlMs: 60_000 });
    await store.create(run);
    const expected = run.pendingApprovals[0]!.expiresAt! - Date.now() + 10 * 60_000;
    for (const ttl of Object.values(await ttls(store, run.runId))) {
      expect(ttl).toBeLessThanOrEqual(expected + 50);
      expect(ttl).toBeGreaterThan(expected - 5_000);
    }
    // A later expiry pushes the TTL out; a request without expiry removes it.
    const request = run.pendingApprovals[0]!;
    const later = {
      ...run,
      version: run.version + 1,
      pendingApprovals: [{ ...request, expiresAt: Date.now() + 2 * HOUR }],
    };
    await store.commit(later, run.version);
    for (const ttl of Object.values(await ttls(store, run.runId))) expect(ttl).toBeGreaterThan(2 * HOUR);
    const { expiresAt: _expiresAt, ...open } = request;
    const forever = { ...later, version: later.version + 1, pendingApprovals: [open] };
    await store.commit(forever, later.version);
    expect(Object.values(await ttls(store, run.runId))).toEqual([-1, -1]);
    // Finished: kept for retentionMs, every key (the audit list now exists too).
    const decided = approveAll(forever, 'alice', { agent });
    await store.commit(decided, forever.version);
    const done = await agent.execute(decided);
    await store.commit(done, decided.version);
    const finished = await ttls(store, run.runId);
    expect(Object.keys(finished).sort()).toEqual(['audit', 'head', 'msgs']);
    for (const ttl of Object.values(finished)) {
      expect(ttl).toBeLessThanOrEqual(HOUR);
      expect(ttl).toBeGreaterThan(HOUR - 5_000);
    }
  });

  it('gives a waiting run whose expiry already passed the full grace period, and a running run no TTL', async () => {
    const { run } = await pausedRun({ ttlMs: 1_000, clock: () => Date.now() - 60_000 });
    await store.create(run);
    for (const ttl of Object.values(await ttls(store, run.runId))) expect(ttl).toBeGreaterThan(10 * 60_000 - 5_000);
    const { stopReason: _stopReason, ...rest } = run;
    const running: AgentSnapshot = {
      ...rest,
      status: 'running',
      state: 'callingModel',
      pendingApprovals: [],
      version: run.version + 1,
    };
    await store.commit(running, run.version);
    expect(Object.values(await ttls(store, run.runId))).toEqual([-1, -1]);
  });

  it('remembers a key with its TTL and returns what it held', async () => {
    const key = `dedupe:${randomUUID()}`;
    expect(await store.once.putIfAbsent(key, 'first', 90_000)).toBeUndefined();
    expect(await store.once.putIfAbsent(key, 'second', 90_000)).toBe('first');
    const ttl = await redis.pttl(store.keys.remember(key));
    expect(ttl).toBeLessThanOrEqual(90_000);
    expect(ttl).toBeGreaterThan(85_000);
    await expect(store.once.putIfAbsent(key, 'x', 0)).rejects.toThrow(/ttlMs/);
  });

  it('reports a key of another type under the prefix as a configuration problem, not a retryable one', async () => {
    const { run, agent } = await pausedRun();
    await store.create(run);
    await redis.set(store.keys.audit(run.runId), 'not a list');
    await expect(store.commit(approveAll(run, 'alice', { agent }), run.version)).rejects.toMatchObject({
      name: 'ConfigError',
      message: expect.stringMatching(/WRONGTYPE.*prefix of its own/),
    });
  });

  it('deletes every key of a run and its index entries', async () => {
    const { run } = await pausedRun();
    await store.create(run);
    await store.delete(run.runId);
    for (const key of store.keys.run(run.runId)) expect(await redis.exists(key)).toBe(0);
    expect((await store.listPending({ agent: run.agentName })).items).toEqual([]);
    expect(await redis.exists(store.keys.pendingAgent(run.agentName))).toBe(0);
    await store.delete(run.runId);
    expect(await store.load(run.runId)).toBeUndefined();
  });
});
