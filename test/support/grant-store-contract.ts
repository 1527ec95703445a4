// What every GrantStore promises, run against the memory and the Redis adapter alike.
import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import type { Grant, GrantStore } from 'countersign';

export function sampleGrant(fields: Partial<Grant> = {}): Grant {
  const id = `grt_${randomUUID().replaceAll('-', '')}`;
  return {
    id,
    scope: 'session',
    sessionId: 's1',
    agentName: 'a1',
    toolName: 'deploy',
    decision: 'approved',
    grantedBy: 'alice',
    grantedAt: 1_000,
    approvalId: 'apr_1',
    runId: 'run_1',
    ...fields,
  };
}

export function grantStoreContract(makeStore: () => GrantStore): void {
  it('lists live grants by session, agent and scope, and writes a grant id once', async () => {
    const store = makeStore();
    const session = sampleGrant();
    const agentWide = sampleGrant({ scope: 'agent', sessionId: undefined as never, expiresAt: 60_000 });
    delete (agentWide as { sessionId?: string }).sessionId;
    expect(await store.put(session)).toBe(true);
    expect(await store.put(agentWide)).toBe(true);
    expect(await store.put({ ...session, toolName: 'other' })).toBe(false);
    expect((await store.list({ sessionId: 's1', now: 2_000 })).map((grant) => grant.id)).toEqual([session.id]);
    expect((await store.list({ agentName: 'a1', scope: 'agent', now: 2_000 })).map((grant) => grant.id)).toEqual([agentWide.id]);
    expect((await store.list({ agentName: 'a1', now: 2_000 })).map((grant) => grant.id).sort()).toEqual([session.id, agentWide.id].sort());
    expect(await store.list({ agentName: 'a1', now: 60_000 })).toHaveLength(1);
    expect(await store.list({ sessionId: 's2', now: 2_000 })).toEqual([]);
  });

  it('spends uses up to the limit, never past expiry, and never after revocation', async () => {
    const store = makeStore();
    const limited = sampleGrant({ uses: 2, expiresAt: 10_000 });
    await store.put(limited, 1);
    expect(await store.consume(limited.id, 2_000)).toBe('used');
    expect(await store.consume(limited.id, 2_000)).toBe('used-up');
    expect((await store.list({ sessionId: 's1', now: 2_000 })).map((grant) => grant.id)).not.toContain(limited.id);
    const timed = sampleGrant({ expiresAt: 10_000 });
    await store.put(timed);
    expect(await store.consume(timed.id, 9_999)).toBe('used');
    expect(await store.consume(timed.id, 10_000)).toBe('expired');
    const revocable = sampleGrant();
    await store.put(revocable);
    expect(await store.revoke(revocable.id)).toBe(true);
    expect(await store.revoke(revocable.id)).toBe(false);
    expect(await store.consume(revocable.id, 2_000)).toBe('revoked');
    // A revoked grant is not written again by its decision.
    expect(await store.put(revocable)).toBe(false);
    expect(await store.consume('grt_missing', 2_000)).toBe('missing');
  });

  it('revokes every grant of a session at once', async () => {
    const store = makeStore();
    const sessionId = `s-${randomUUID().slice(0, 8)}`;
    const grants = [sampleGrant({ sessionId }), sampleGrant({ sessionId, decision: 'denied' }), sampleGrant({ sessionId: 'kept' })];
    for (const grant of grants) await store.put(grant);
    expect(await store.revokeSession(sessionId)).toBe(2);
    expect(await store.list({ sessionId, now: 2_000 })).toEqual([]);
    expect(await store.list({ sessionId: 'kept', now: 2_000 })).toHaveLength(1);
  });

  it('counts uses exactly under concurrency: uses 3 with 10 concurrent consumers is 3 uses', async () => {
    const store = makeStore();
    const grant = sampleGrant({ uses: 3 });
    await store.put(grant);
    const outcomes = await Promise.all(Array.from({ length: 10 }, () => store.consume(grant.id, 2_000)));
    expect(outcomes.filter((outcome) => outcome === 'used')).toHaveLength(3);
    expect(outcomes.filter((outcome) => outcome === 'used-up')).toHaveLength(7);
  });
}
