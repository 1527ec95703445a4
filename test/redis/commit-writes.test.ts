// The typed writes of a commit (CommitWrite) on the Redis store: each kind made by the commit's own script, in the
// same atomic step as the run, and a write the store cannot make refused before anything is written.
import { afterAll, describe, expect, inject, it } from 'vitest';
import { type AgentSnapshot, type CommitWrite, UnsupportedCommitWriteError, withApprovalResponse } from 'countersign';
import { createRedisResumeQueue, createRedisStore } from 'countersign/redis';
import { connect, pausedRun, removePrefix, uniquePrefix, watchedCommands } from './redis-harness.js';

const url = inject('redisUrl');

describe.skipIf(!url)('Redis store: typed commit writes', () => {
  const redis = url ? connect(url) : undefined!;
  const prefix = uniquePrefix();
  afterAll(async () => {
    await removePrefix(redis, prefix);
    redis.disconnect();
  });

  /** A stored paused run and its decided successor, to commit with writes. */
  const stored = async (store = createRedisStore({ redis, prefix })) => {
    const { run, agent } = await pausedRun();
    await store.create(run);
    const next: AgentSnapshot = withApprovalResponse(
      run,
      { approvalId: run.pendingApprovals[0]!.approvalId, approved: true, approvedBy: 'alice' },
      { agent },
    );
    return { store, run, next };
  };

  it('says which writes it makes atomically: every kind, an enqueue only onto a queue on its own connection', async () => {
    const store = createRedisStore({ redis, prefix });
    const elsewhere = connect(url!);
    try {
      expect(store.appliesAtomically({ kind: 'enqueue', queue: createRedisResumeQueue({ redis, prefix }) })).toBe(true);
      expect(
        store.appliesAtomically({ kind: 'enqueue', queue: createRedisResumeQueue({ redis: elsewhere, prefix }) }),
      ).toBe(false);
      expect(store.appliesAtomically({ kind: 'enqueue', queue: { enqueue: async () => {} } })).toBe(false);
      expect(store.appliesAtomically({ kind: 'putIfAbsent', key: 'k', value: 'v', ttlMs: 1000 })).toBe(true);
      expect(store.appliesAtomically({ kind: 'replaceIf', key: 'k', expected: 'e', value: 'v', ttlMs: 1000 })).toBe(
        true,
      );
      // Publishing through an outbox, the script cannot reach the job stream or the remembered keys.
      const outbox = createRedisStore({ redis, prefix, publish: 'outbox' });
      expect(outbox.appliesAtomically({ kind: 'putIfAbsent', key: 'k', value: 'v', ttlMs: 1000 })).toBe(false);
    } finally {
      elsewhere.disconnect();
    }
  });

  it('enqueue: the run and its job land in one script', async () => {
    const sent: string[] = [];
    const watched = watchedCommands(redis, sent);
    const queue = createRedisResumeQueue({ redis: watched, prefix });
    const { store, next, run } = await stored(createRedisStore({ redis: watched, prefix }));
    const jobsBefore = await redis.xlen(queue.key);
    sent.length = 0;
    const receipt = await store.commit(next, run.version, [], { writes: [{ kind: 'enqueue', queue }] });
    expect(receipt).toEqual({ replaced: false });
    expect(sent.filter((name) => name !== 'defineCommand')).toEqual(['countersignWriteRun']);
    expect(await redis.xlen(queue.key)).toBe(jobsBefore + 1);
    expect((await store.load(run.runId))?.version).toBe(next.version);
  });

  it('putIfAbsent: a free key is claimed with the commit; a held one stops it, and nothing is written', async () => {
    const { store, next, run } = await stored();
    const key = `claim:${run.runId}`;
    expect(
      await store.commit(next, run.version, [], {
        writes: [{ kind: 'putIfAbsent', key, value: 'mine', ttlMs: 60_000 }],
      }),
    ).toEqual({ replaced: true });
    expect(await store.once.get(key)).toBe('mine');

    const other = await stored(store);
    const heldKey = `claim:${other.run.runId}`;
    await store.once.putIfAbsent(heldKey, 'theirs', 60_000);
    const receipt = await store.commit(other.next, other.run.version, [], {
      writes: [{ kind: 'putIfAbsent', key: heldKey, value: 'mine', ttlMs: 60_000 }],
    });
    expect(receipt).toEqual({ replaced: false, held: 'theirs' });
    expect((await createRedisStore({ redis, prefix }).load(other.run.runId))?.version).toBe(other.run.version);
    expect(await store.once.get(heldKey)).toBe('theirs');
  });

  it('replaceIf: replaced with the commit while the key holds what was expected; the run is written either way', async () => {
    const { store, next, run } = await stored();
    const key = `settle:${run.runId}`;
    await store.once.putIfAbsent(key, 'claim', 60_000);
    expect(
      await store.commit(next, run.version, [], {
        writes: [{ kind: 'replaceIf', key, expected: 'claim', value: 'answer', ttlMs: 60_000 }],
      }),
    ).toEqual({
      replaced: true,
    });
    expect(await store.once.get(key)).toBe('answer');

    const other = await stored(store);
    const otherKey = `settle:${other.run.runId}`;
    await store.once.putIfAbsent(otherKey, 'someone else', 60_000);
    const receipt = await store.commit(other.next, other.run.version, [], {
      writes: [{ kind: 'replaceIf', key: otherKey, expected: 'claim', value: 'answer', ttlMs: 60_000 }],
    });
    expect(receipt).toEqual({ replaced: false });
    expect(await store.once.get(otherKey)).toBe('someone else');
    expect((await createRedisStore({ redis, prefix }).load(other.run.runId))?.version).toBe(other.next.version);
  });

  it('refuses, before writing anything, a write it cannot make: a queue on another connection, two remembered keys, any write through an outbox', async () => {
    const elsewhere = connect(url!);
    try {
      const refused: [string, readonly CommitWrite[], ReturnType<typeof createRedisStore>?][] = [
        ['enqueue', [{ kind: 'enqueue', queue: createRedisResumeQueue({ redis: elsewhere, prefix }) }]],
        [
          'replaceIf',
          [
            { kind: 'putIfAbsent', key: 'a', value: 'v', ttlMs: 1000 },
            { kind: 'replaceIf', key: 'b', expected: 'e', value: 'v', ttlMs: 1000 },
          ],
        ],
        [
          'putIfAbsent',
          [{ kind: 'putIfAbsent', key: 'a', value: 'v', ttlMs: 1000 }],
          createRedisStore({ redis, prefix, publish: 'outbox' }),
        ],
      ];
      for (const [kind, writes, store] of refused) {
        const { next, run } = await stored(store);
        const queue = createRedisResumeQueue({ redis, prefix });
        const jobsBefore = await redis.xlen(queue.key);
        const error = await (store ?? createRedisStore({ redis, prefix }))
          .commit(next, run.version, [], { writes })
          .catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(UnsupportedCommitWriteError);
        expect(error).toMatchObject({ code: 'unsupported_write', kind, runId: run.runId });
        expect((await createRedisStore({ redis, prefix }).load(run.runId))?.version).toBe(run.version);
        expect(await redis.xlen(queue.key)).toBe(jobsBefore);
        expect(await createRedisStore({ redis, prefix }).once.get('a')).toBeUndefined();
      }
    } finally {
      elsewhere.disconnect();
    }
  });
});
