// What every GrantStore promises, run against the memory and the Redis adapter alike.
import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import type { Grant, GrantStore, GrantUse } from 'countersign';

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

/** A use of `grant` by one call (its key `${runId}:${toolCallId}`), unsigned as a store takes it. */
export function useOf(grant: Grant, at: number, useKey = `run_x:call_${randomUUID().slice(0, 8)}`): GrantUse {
  return { grantId: grant.id, useKey, at };
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
    expect((await store.list({ agentName: 'a1', scope: 'agent', now: 2_000 })).map((grant) => grant.id)).toEqual([
      agentWide.id,
    ]);
    expect((await store.list({ agentName: 'a1', now: 2_000 })).map((grant) => grant.id).sort()).toEqual(
      [session.id, agentWide.id].sort(),
    );
    expect(await store.list({ agentName: 'a1', now: 60_000 })).toHaveLength(1);
    expect(await store.list({ sessionId: 's2', now: 2_000 })).toEqual([]);
  });

  it('spends uses up to the limit, never past expiry, and never after revocation', async () => {
    const store = makeStore();
    const limited = sampleGrant({ uses: 2, expiresAt: 10_000 });
    await store.put(limited, [useOf(limited, 1_000)]);
    expect(await store.consume(useOf(limited, 2_000))).toBe('used');
    expect(await store.consume(useOf(limited, 2_000))).toBe('used-up');
    expect((await store.list({ sessionId: 's1', now: 2_000 })).map((grant) => grant.id)).not.toContain(limited.id);
    const timed = sampleGrant({ expiresAt: 10_000 });
    await store.put(timed);
    expect(await store.consume(useOf(timed, 9_999))).toBe('used');
    expect(await store.consume(useOf(timed, 10_000))).toBe('expired');
    const revocable = sampleGrant();
    await store.put(revocable);
    expect(await store.revoke(revocable.id)).toBe(true);
    expect(await store.revoke(revocable.id)).toBe(false);
    expect(await store.consume(useOf(revocable, 2_000))).toBe('revoked');
    // A revoked grant is not written again by its decision.
    expect(await store.put(revocable)).toBe(false);
    expect(await store.consume(useOf(sampleGrant({ id: 'grt_missing' }), 2_000))).toBe('missing');
  });

  it('revokes every grant of a session at once', async () => {
    const store = makeStore();
    const sessionId = `s-${randomUUID().slice(0, 8)}`;
    const grants = [
      sampleGrant({ sessionId }),
      sampleGrant({ sessionId, decision: 'denied' }),
      sampleGrant({ sessionId: 'kept' }),
    ];
    for (const grant of grants) await store.put(grant);
    expect(await store.revokeSession(sessionId)).toBe(2);
    expect(await store.list({ sessionId, now: 2_000 })).toEqual([]);
    expect(await store.list({ sessionId: 'kept', now: 2_000 })).toHaveLength(1);
  });

  it('counts uses exactly under concurrency: uses 3 with 10 concurrent consumers is 3 uses', async () => {
    const store = makeStore();
    const grant = sampleGrant({ uses: 3 });
    await store.put(grant);
    const outcomes = await Promise.all(Array.from({ length: 10 }, () => store.consume(useOf(grant, 2_000))));
    expect(outcomes.filter((outcome) => outcome === 'used')).toHaveLength(3);
    expect(outcomes.filter((outcome) => outcome === 'used-up')).toHaveLength(7);
  });

  it('spends one use per call: the same key again is used without spending, even when no use is left', async () => {
    const store = makeStore();
    const grant = sampleGrant({ uses: 2 });
    const sibling = useOf(grant, 1_000, 'run_1:call_sibling');
    await store.put(grant, [sibling]);
    const first = useOf(grant, 2_000, 'run_2:call_a');
    const resent = await Promise.all([
      store.consume(first),
      store.consume(first),
      store.consume({ ...first, at: 2_500 }),
    ]);
    expect(resent).toEqual(['used', 'used', 'used']);
    expect(await store.consume(sibling)).toBe('used');
    expect(await store.consume(useOf(grant, 3_000, 'run_3:call_b'))).toBe('used-up');
    expect(await store.get(grant.id)).toEqual({ grant, used: 2, revoked: false });
    expect(await store.useOf(grant.id, first.useKey)).toEqual(first);
    expect(await store.useOf(grant.id, 'run_3:call_b')).toBeUndefined();
    expect((await store.list({ sessionId: 's1', now: 3_000 })).map((listed) => listed.id)).not.toContain(grant.id);
    expect(await store.list({ sessionId: 's1', now: 3_000, includeUsedUp: true })).toEqual([{ ...grant, used: 2 }]);
  });

  it('keeps a revocation for good: a revoked grant without expiry is read as revoked and never written again', async () => {
    const store = makeStore();
    const grant = sampleGrant();
    await store.put(grant);
    await store.revoke(grant.id);
    expect(await store.get(grant.id)).toEqual({ grant, used: 0, revoked: true });
    expect(await store.put(grant)).toBe(false);
    expect(await store.put({ ...grant, grantedAt: 5_000 })).toBe(false);
    expect(await store.consume(useOf(grant, 10 * 365 * 86_400_000))).toBe('revoked');
    expect(await store.get('grt_none')).toBeUndefined();
  });
}
