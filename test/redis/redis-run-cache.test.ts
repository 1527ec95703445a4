// The Redis store's cache of recent runs (for peek) is bounded by bytes, not by count: long histories cannot hold
// a process's memory.
import { describe, expect, it } from 'vitest';
import { RunCache, snapshotBytes } from '../../src/stores/redis/redis-run-cache.js';
import { pausedRun } from './redis-harness.js';

describe('RunCache', () => {
  it('keeps recent snapshots within its byte budget, forgetting the oldest first', async () => {
    // About 50 KB each (200 messages of about 250 bytes).
    const runs = await Promise.all(Array.from({ length: 12 }, () => pausedRun({ prior: 200 }).then(({ run }) => run)));
    const each = snapshotBytes(runs[0]!);
    expect(each).toBeGreaterThan(50_000);
    const budget = each * 5;
    const cache = new RunCache(budget);
    for (const run of runs) cache.remember(run, 'c1');
    expect(cache.bytes).toBeLessThanOrEqual(budget);
    expect(cache.peek(runs.at(-1)!.runId)).toBe(runs.at(-1));
    expect(cache.peek(runs[0]!.runId)).toBeUndefined();
    // The counts stay known for every run: only the snapshots are bounded.
    expect(cache.known(runs[0]!.runId)?.messages).toBe(runs[0]!.messages.length);
  });

  it('keeps no snapshot with a budget of 0, and none larger than the whole budget', async () => {
    const { run } = await pausedRun({ prior: 20 });
    const none = new RunCache(0);
    none.remember(run, 'c1');
    expect([none.peek(run.runId), none.bytes]).toEqual([undefined, 0]);
    const small = new RunCache(snapshotBytes(run) - 1);
    small.remember(run, 'c1');
    expect([small.peek(run.runId), small.bytes]).toEqual([undefined, 0]);
  });
});
