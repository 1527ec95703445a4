// The typed writes of a commit (CommitWrite) on the memory store: a claim or a replace of a key on its `once` is made
// in the same step as the run (nothing awaited between), a job on a queue is refused before anything is written.
import { describe, expect, it } from 'vitest';
import {
  type CommitWrite,
  createMemoryStore,
  type RunEvent,
  UnsupportedCommitWriteError,
  withApprovalResponse,
} from 'countersign';
import { pausedRun } from '../redis/redis-harness.js';

/** A memory store holding a paused run, its decided successor, and the events it announces. */
async function stored() {
  const store = createMemoryStore();
  const events: RunEvent[] = [];
  store.subscribe((event) => events.push(event));
  const { run, agent } = await pausedRun();
  await store.create(run);
  const next = withApprovalResponse(
    run,
    { approvalId: run.pendingApprovals[0]!.approvalId, approved: true, approvedBy: 'alice' },
    { agent },
  );
  const event = { type: 'run-status', runId: run.runId } as unknown as RunEvent;
  return { store, run, next, events, event };
}

describe('memory store: typed commit writes', () => {
  it('says which writes it makes with a commit: a claim or a replace of a key, not a job', () => {
    const store = createMemoryStore();
    expect(store.appliesAtomically({ kind: 'putIfAbsent', key: 'k', value: 'v', ttlMs: 1000 })).toBe(true);
    expect(store.appliesAtomically({ kind: 'replaceIf', key: 'k', expected: 'e', value: 'v', ttlMs: 1000 })).toBe(true);
    expect(store.appliesAtomically({ kind: 'enqueue', queue: { enqueue: async () => {} } })).toBe(false);
  });

  it('putIfAbsent: a free key is claimed with the commit; a held one stops it, and nothing is written or announced', async () => {
    const { store, run, next, events, event } = await stored();
    expect(
      await store.commit(next, run.version, [event], {
        writes: [{ kind: 'putIfAbsent', key: 'webhook:1', value: 'mine', ttlMs: 60_000 }],
      }),
    ).toEqual({
      replaced: true,
    });
    expect(await store.once.get('webhook:1')).toBe('mine');
    expect(await store.load(run.runId)).toBe(next);
    expect(events).toEqual([event]);

    const other = await stored();
    await other.store.once.putIfAbsent('webhook:2', 'theirs', 60_000);
    const receipt = await other.store.commit(other.next, other.run.version, [other.event], {
      writes: [{ kind: 'putIfAbsent', key: 'webhook:2', value: 'mine', ttlMs: 60_000 }],
    });
    expect(receipt).toEqual({ replaced: false, held: 'theirs' });
    expect(await other.store.load(other.run.runId)).toBe(other.run);
    expect(other.events).toEqual([]);
  });

  it('replaceIf: replaced with the commit while the key holds what was expected; the run is written either way', async () => {
    const { store, run, next } = await stored();
    await store.once.putIfAbsent('webhook:1', 'claim', 60_000);
    const write: CommitWrite = {
      kind: 'replaceIf',
      key: 'webhook:1',
      expected: 'claim',
      value: 'answer',
      ttlMs: 60_000,
    };
    expect(await store.commit(next, run.version, [], { writes: [write] })).toEqual({ replaced: true });
    expect(await store.once.get('webhook:1')).toBe('answer');

    const other = await stored();
    await other.store.once.putIfAbsent('webhook:1', 'someone else', 60_000);
    expect(await other.store.commit(other.next, other.run.version, [], { writes: [write] })).toEqual({
      replaced: false,
    });
    expect(await other.store.once.get('webhook:1')).toBe('someone else');
    expect(await other.store.load(other.run.runId)).toBe(other.next);
  });

  it('refuses a job, or two key writes, before writing anything', async () => {
    const refused: [string, readonly CommitWrite[]][] = [
      ['enqueue', [{ kind: 'enqueue', queue: { enqueue: async () => {} } }]],
      [
        'replaceIf',
        [
          { kind: 'putIfAbsent', key: 'webhook:1', value: 'answer', ttlMs: 60_000 },
          { kind: 'replaceIf', key: 'webhook:2', expected: 'claim', value: 'answer', ttlMs: 60_000 },
        ],
      ],
    ];
    for (const [kind, writes] of refused) {
      const { store, run, next, events, event } = await stored();
      const error = await store.commit(next, run.version, [event], { writes }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(UnsupportedCommitWriteError);
      expect(error).toMatchObject({ code: 'unsupported_write', kind, runId: run.runId });
      expect(await store.load(run.runId)).toBe(run);
      expect(events).toEqual([]);
      expect(await store.once.get('webhook:1')).toBeUndefined();
    }
  });
});
