// On one server the commit script publishes the events and updates the indexes
// itself. On the outbox path (a Cluster, or publish: 'outbox') the events are
// queued in the run's outbox by the commit script and moved to the stream right
// after; a process that dies in between leaves them for drainOutboxes.
import { afterAll, describe, expect, inject, it } from 'vitest';
import { Redis } from 'ioredis';
import { approveAll, type AgentSnapshot, type RunEvent } from 'countersign';
import { createRedisStore } from 'countersign/redis';
import { connect, pausedRun, removePrefix, streamEvents, uniquePrefix, watchedCommands } from './redis-harness.js';

const url = inject('redisUrl');

/** The connection as a process sees it that dies right after its commit script: every later write is lost. */
function dyingAfterCommit(redis: Redis): Redis {
  const lost = new Set(['xadd', 'zadd', 'zrem', 'hdel']);
  return new Proxy(redis, {
    get(target, property, receiver) {
      if (typeof property === 'string' && lost.has(property))
        return () => Promise.reject(new Error('Connection is closed.'));
      // On one server the follow-up commands go out as one pipeline: lost as a whole.
      if (property === 'pipeline') return () => ({ exec: () => Promise.reject(new Error('Connection is closed.')) });
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

const requested = (run: AgentSnapshot): RunEvent => ({
  type: 'approval-requested',
  runId: run.runId,
  agentName: run.agentName,
  request: run.pendingApprovals[0]!,
});

describe.skipIf(!url)('Redis store: outbox and events stream', () => {
  const redis = url ? connect(url) : undefined!;
  const prefixes: string[] = [];
  const prefixed = () => {
    const prefix = uniquePrefix();
    prefixes.push(prefix);
    return prefix;
  };
  afterAll(async () => {
    for (const prefix of prefixes) await removePrefix(redis, prefix);
    redis.disconnect();
  });

  it('writes each event to the stream with the fields the notifier reads, and leaves the outbox empty', async () => {
    const prefix = prefixed();
    const store = createRedisStore({ redis, prefix });
    const { run, agent } = await pausedRun();
    await store.create(run, [requested(run)]);
    const decided = approveAll(run, 'alice', { agent });
    const resolved: RunEvent = {
      type: 'approval-resolved',
      runId: run.runId,
      agentName: run.agentName,
      entry: decided.audit[0]!,
    };
    await store.commit(decided, run.version, [resolved]);
    const done = await agent.execute(decided);
    const completed: RunEvent = {
      type: 'run-completed',
      runId: run.runId,
      agentName: run.agentName,
      output: done.output!,
    };
    await store.commit(done, decided.version, [completed]);
    const entries = await redis.xrange(`${prefix}events`, '-', '+');
    expect(entries.map(([, fields]) => fields.filter((_, index) => index % 2 === 0))).toEqual([
      ['type', 'runId', 'event'],
      ['type', 'runId', 'event'],
      ['type', 'runId', 'event'],
    ]);
    expect(entries.map(([, fields]) => [fields[1], fields[3]])).toEqual([
      ['approval-requested', run.runId],
      ['approval-resolved', run.runId],
      ['run-completed', run.runId],
    ]);
    expect(await streamEvents(redis, prefix)).toEqual([requested(run), resolved, completed]);
    expect(await redis.exists(store.keys.outbox(run.runId))).toBe(0);
  });

  it('keeps the events and index updates of a commit whose process died right after it, and drainOutboxes finishes them', async () => {
    const prefix = prefixed();
    const errors: Error[] = [];
    let now = Date.now();
    const clock = () => now;
    const dying = createRedisStore({
      redis: dyingAfterCommit(redis),
      prefix,
      clock,
      publish: 'outbox',
      onError: (error) => errors.push(error),
    });
    const { run } = await pausedRun();
    // The commit itself landed: create resolves, the run loads; only the steps after it were lost.
    await dying.create(run, [requested(run)]);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ name: 'StoreUnavailableError' });
    const store = createRedisStore({ redis, prefix, clock });
    expect(await store.load(run.runId)).toEqual(run);
    expect(await streamEvents(redis, prefix)).toEqual([]);
    expect((await store.listPending()).items).toEqual([]);
    expect(await redis.hlen(store.keys.outbox(run.runId))).toBe(1);

    // A young entry may still be finished by its own commit: left alone.
    expect(await store.drainOutboxes()).toBe(0);
    now += 10_000;
    expect(await store.drainOutboxes()).toBe(1);
    expect(await streamEvents(redis, prefix)).toEqual([requested(run)]);
    expect((await store.listPending()).items.map((item) => item.runId)).toEqual([run.runId]);
    expect(await redis.exists(store.keys.outbox(run.runId))).toBe(0);
    expect(await store.drainOutboxes({ minAgeMs: 0 })).toBe(0);
    expect(await streamEvents(redis, prefix)).toHaveLength(1);
  });

  it('repairs several lost commits of one run in order, and runsToRecover drains first', async () => {
    const prefix = prefixed();
    const now = Date.now();
    const clock = () => now;
    const dying = createRedisStore({
      redis: dyingAfterCommit(redis),
      prefix,
      clock,
      publish: 'outbox',
      onError: () => {},
    });
    const { run, agent } = await pausedRun();
    await dying.create(run, [requested(run)]);
    const decided = approveAll(run, 'alice', { agent });
    const resolved: RunEvent = {
      type: 'approval-resolved',
      runId: run.runId,
      agentName: run.agentName,
      entry: decided.audit[0]!,
    };
    await dying.commit(decided, run.version, [resolved]);
    const done = await agent.execute(decided);
    const completed: RunEvent = {
      type: 'run-completed',
      runId: run.runId,
      agentName: run.agentName,
      output: done.output!,
    };
    await dying.commit(done, decided.version, [completed]);
    const store = createRedisStore({ redis, prefix, clock });
    expect(await redis.hlen(store.keys.outbox(run.runId))).toBe(3);
    // A recovering process whose staleBefore is past the commits finishes them even if they look young by its clock.
    expect(await store.runsToRecover(now + 120_000, now + 60_000)).toEqual([]);
    expect(await streamEvents(redis, prefix)).toEqual([requested(run), resolved, completed]);
    // The create's pending entry was added, then removed by the decision's entry: nothing is left indexed.
    expect(await redis.zcard(store.keys.pending)).toBe(0);
    expect(await redis.exists(store.keys.outbox(run.runId))).toBe(0);
  });

  it('drains outboxes through a connection with an ioredis keyPrefix too', async () => {
    const prefix = prefixed();
    const prefixedRedis = new Redis(url!, { keyPrefix: 'kp:' });
    prefixedRedis.on('error', () => {});
    try {
      let now = Date.now();
      const clock = () => now;
      const dying = createRedisStore({
        redis: dyingAfterCommit(prefixedRedis),
        prefix,
        clock,
        publish: 'outbox',
        onError: () => {},
      });
      const { run } = await pausedRun();
      await dying.create(run, [requested(run)]);
      expect(await redis.hlen(`kp:${dying.keys.outbox(run.runId)}`)).toBe(1);
      now += 10_000;
      expect(await createRedisStore({ redis: prefixedRedis, prefix, clock }).drainOutboxes()).toBe(1);
      expect(await streamEvents(redis, `kp:${prefix}`)).toEqual([requested(run)]);
    } finally {
      await removePrefix(redis, `kp:${prefix}`);
      prefixedRedis.disconnect();
    }
  });

  it('on one server, publishes the events and updates the indexes in the commit itself: one command, nothing left in the outbox', async () => {
    const prefix = prefixed();
    const { run, agent } = await pausedRun();
    const sent: string[] = [];
    const store = createRedisStore({ redis: watchedCommands(redis, sent), prefix });
    await store.create(run, [requested(run)]);
    const decided = approveAll(run, 'alice', { agent });
    const resolved: RunEvent = {
      type: 'approval-resolved',
      runId: run.runId,
      agentName: run.agentName,
      entry: decided.audit[0]!,
    };
    await store.commit(decided, run.version, [resolved]);
    expect(sent.filter((name) => name !== 'defineCommand')).toEqual(['countersignWriteRun', 'countersignWriteRun']);
    expect(await streamEvents(redis, prefix)).toEqual([requested(run), resolved]);
    expect(await redis.zcard(store.keys.pending)).toBe(0);
    expect(await redis.zcard(store.keys.runningIdle)).toBe(1);
    expect(await redis.exists(store.keys.outbox(run.runId))).toBe(0);
  });

  it('on one server, finds the stream and the indexes through an ioredis keyPrefix too', async () => {
    const prefix = prefixed();
    const prefixedRedis = new Redis(url!, { keyPrefix: 'kp:' });
    prefixedRedis.on('error', () => {});
    try {
      const store = createRedisStore({ redis: prefixedRedis, prefix });
      const { run } = await pausedRun();
      await store.create(run, [requested(run)]);
      expect(await streamEvents(redis, `kp:${prefix}`)).toEqual([requested(run)]);
      expect((await store.listPending()).items.map((item) => item.runId)).toEqual([run.runId]);
    } finally {
      await removePrefix(redis, `kp:${prefix}`);
      prefixedRedis.disconnect();
    }
  });

  it('writes no outbox entry for a commit with no events and no index change', async () => {
    const prefix = prefixed();
    const store = createRedisStore({ redis, prefix });
    const { run } = await pausedRun();
    await store.create(run);
    const same = { ...run, version: run.version + 1 };
    const sent: string[] = [];
    const quiet = createRedisStore({ redis: watchedCommands(redis, sent), prefix, publish: 'outbox' });
    await quiet.commit(same, run.version);
    expect(sent.filter((name) => name !== 'defineCommand')).toEqual(['countersignWriteRun']);
    expect(await redis.exists(store.keys.outbox(run.runId))).toBe(0);
  });
});
