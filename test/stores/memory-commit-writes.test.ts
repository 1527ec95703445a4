// The memory store makes no write beside the run: it says so (no `appliesAtomically`), and a commit that carries
// one is refused with a typed error before anything is written or announced.
import { describe, expect, it } from 'vitest';
import { type CommitWrite, createMemoryStore, type RunEvent, UnsupportedCommitWriteError, withApprovalResponse } from 'countersign';
import { pausedRun } from '../redis/redis-harness.js';

describe('memory store: typed commit writes', () => {
  const writes: readonly CommitWrite[] = [
    { kind: 'enqueue', queue: { enqueue: async () => {} } },
    { kind: 'putIfAbsent', key: 'webhook:msg_1', value: 'answer', ttlMs: 60_000 },
    { kind: 'replaceIf', key: 'webhook:msg_1', expected: 'claim', value: 'answer', ttlMs: 60_000 },
  ];

  it.each(writes.map((write) => [write.kind, write] as const))('refuses a %s write before writing anything', async (kind, write) => {
    const store = createMemoryStore();
    expect(store.appliesAtomically).toBeUndefined();
    const events: RunEvent[] = [];
    store.subscribe((event) => events.push(event));
    const { run, agent } = await pausedRun();
    await store.create(run);
    const next = withApprovalResponse(run, { approvalId: run.pendingApprovals[0]!.approvalId, approved: true, approvedBy: 'alice' }, { agent });
    const error = await store.commit(next, run.version, [{ type: 'run-status', runId: run.runId } as unknown as RunEvent], { writes: [write] }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UnsupportedCommitWriteError);
    expect(error).toMatchObject({ code: 'unsupported_write', kind, runId: run.runId });
    expect(await store.load(run.runId)).toBe(run);
    expect(events).toEqual([]);
    expect(await store.once.get('webhook:msg_1')).toBeUndefined();
  });
});
