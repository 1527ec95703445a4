// With a decisionSecret, editing a grant's record in Redis never gives back what a person took away: a revocation
// flag set back to 0 or a use counter reset leaves the call asked, and a revocation outlives the grant it revokes.
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createMemoryStore, createRuntime } from 'countersign';
import { createRedisGrantStore } from 'countersign/redis';
import { decisionSecret, grantAgent } from '../support/grant-harness.js';
import { connect, removePrefix, uniquePrefix } from './redis-harness.js';

const url = inject('redisUrl');
const deploy = [{ name: 'deploy', args: { env: 'prod' } }];

describe.skipIf(!url)('Redis grant store: storage edits with a decisionSecret', () => {
  const redis = url ? connect(url) : undefined!;
  const prefixes: string[] = [];
  afterAll(async () => {
    for (const prefix of prefixes) await removePrefix(redis, prefix);
    redis.disconnect();
  });

  /** A session grant made by alice through a runtime on Redis; `process()` is another process on the same Redis. */
  const granted = async (grant?: { uses?: number; ttlMs?: number }, mode: 'record' | undefined = undefined) => {
    const prefix = uniquePrefix();
    prefixes.push(prefix);
    const name = `grants-${randomUUID().slice(0, 8)}`;
    const sessionId = `chat-${randomUUID().slice(0, 8)}`;
    const process = () => {
      const { agent, executions } = grantAgent({
        decisionSecret,
        name,
        grantStore: createRedisGrantStore({ redis, prefix }),
      });
      return { agent, executions, runtime: createRuntime({ agents: [agent], store: createMemoryStore() }) };
    };
    const first = process();
    const paused = await first.runtime.start(name, { input: JSON.stringify(deploy), sessionId });
    const request = paused.pendingApprovals[0]!;
    const response = {
      approvalId: request.approvalId,
      approved: true,
      approvedBy: 'alice',
      scope: 'session',
      signature: request.signature!,
      ...(grant ? { grant } : {}),
    } as const;
    await first.runtime.respond(paused.runId, response, mode === undefined ? {} : { mode });
    const [listed] = await first.runtime.grants({ sessionId });
    const key = `${prefix}grant:${listed!.id}`;
    const start = (runtime = process()) => runtime.runtime.start(name, { input: JSON.stringify(deploy), sessionId });
    return { first, paused, response, listed: listed!, key, start, process };
  };

  it("a revoked grant set back to revoked '0' in Redis still covers nothing, in this process and in a fresh one", async () => {
    const { first, listed, key, start } = await granted();
    expect((await start(first)).status).toBe('completed');
    expect(await first.runtime.revokeGrant(listed.id)).toBe(true);
    await redis.hset(key, 'revoked', '0');
    expect((await start(first)).status).toBe('awaitingApproval');
    expect((await start()).status).toBe('awaitingApproval');
  });

  it('a use counter reset in Redis gives no use back: uses are counted from their receipts', async () => {
    const { first, key, start } = await granted({ uses: 1 });
    expect((await start(first)).status).toBe('completed');
    expect((await start(first)).status).toBe('awaitingApproval');
    await redis.hset(key, 'used', '0');
    expect((await start()).status).toBe('awaitingApproval');
    expect(first.executions.count('deploy')).toBe(2);
  });

  it('a negative legacy use counter written into Redis gives no use back either', async () => {
    const { first, key, start } = await granted({ uses: 1 });
    expect((await start(first)).status).toBe('completed');
    await redis.hset(key, 'used', '-5');
    expect((await start()).status).toBe('awaitingApproval');
  });

  it('a process that saw a revocation keeps it when the revocation record is deleted from Redis', async () => {
    const { first, listed, key, start } = await granted();
    await first.runtime.revokeGrant(listed.id);
    await redis.hdel(key, 'r');
    expect((await start(first)).status).toBe('awaitingApproval');
  });

  it('a revocation outlives its grant: kept with no TTL, and neither a repeated respond nor the deciding run resuming writes the grant again', async () => {
    const { first, paused, response, listed, key, start } = await granted(undefined, 'record');
    expect(await first.runtime.revokeGrant(listed.id)).toBe(true);
    // Kept for good: a grant without expiry whose revocation record expired would be written again by its decision.
    expect(await redis.pttl(key)).toBe(-1);
    await first.runtime.respond(paused.runId, response, { mode: 'record' });
    expect((await first.runtime.resume(paused.runId)).status).toBe('completed');
    expect(await redis.hexists(key, 'r')).toBe(1);
    expect(await redis.pttl(key)).toBe(-1);
    expect(await first.runtime.grants({ sessionId: listed.sessionId! })).toEqual([]);
    expect((await start()).status).toBe('awaitingApproval');
  });
});
