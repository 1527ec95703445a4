// Receipts on Redis, whose audit list is append-only: every decision is stored with its receipt whichever commit
// (a decision, the resume after it) wrote it, and a runtime of another connection reads an audit that verifies.
import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { verifyAudit } from 'countersign';
import { runView } from 'countersign/http';
import { createRedisStore } from 'countersign/redis';
import { ed25519, receiptWorld } from '../receipts/receipt-world.js';
import { removePrefix, uniquePrefix } from './redis-harness.js';

const url = inject('redisUrl');

describe.skipIf(!url)('decision receipts on Redis', () => {
  const prefix = uniquePrefix();
  const writer = new Redis(url!);
  const reader = new Redis(url!);
  afterAll(async () => {
    await removePrefix(writer, prefix);
    await Promise.all([writer.quit(), reader.quit()]);
  });

  it('stores each decision with its receipt; another connection loads an audit that verifies', async () => {
    const world = await receiptWorld(ed25519().privateKey, createRedisStore({ redis: writer, prefix }));
    const store = createRedisStore({ redis: reader, prefix });
    const runs = await Promise.all([world.singles.runId, world.quorum.runId].map((id) => store.load(id)));
    const views = runs.map((run) => runView(run!));
    expect(views.map((view) => view.audit.length)).toEqual([3, 1]);
    expect(views.flatMap((view) => view.audit).every((entry) => entry.receipt !== undefined)).toBe(true);
    expect(verifyAudit(JSON.parse(JSON.stringify(views)), world.keys)).toMatchObject({ ok: true, entries: 4 });
  });
});
