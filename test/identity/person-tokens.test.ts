// Personal API tokens: issued to a named person, kept hashed, listed, revoked; over the HTTP API a decision made with
// one is recorded as its person whatever the body says, and the shared token keeps to service calls.
import { describe, expect, it } from 'vitest';
import { ConfigError, createMemoryPersonTokenStore, type PersonTokenStore } from 'countersign';
import { thrown } from '../support/test-kit.js';
import { personWorld, SHARED } from './person-world.js';

describe('issuing, checking, listing and revoking personal tokens', () => {
  it('issues a token shown once; the store keeps only its hash; list never shows a secret', async () => {
    const kept: PersonTokenStore = createMemoryPersonTokenStore();
    const { runtime } = personWorld({ tokens: kept });
    const tokens = runtime.personTokens!;
    const { token, record } = await tokens.issue({ person: 'ana@example.com', label: 'laptop CLI' });
    expect(token).toMatch(/^cspt_[A-Za-z0-9_-]{16}_[A-Za-z0-9_-]{43}$/);
    expect(record).toEqual({
      id: token.slice(5, 21),
      person: 'ana@example.com',
      label: 'laptop CLI',
      createdAt: expect.any(Number),
    });
    const stored = (await kept.get(record.id))!;
    expect(JSON.stringify(stored)).not.toContain(token.slice(22));
    expect(stored.hash).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await tokens.verify(token)).toEqual(record);
    expect(await tokens.list()).toEqual([record]);
    expect(JSON.stringify(await tokens.list())).not.toContain('hash');
  });

  it('refuses a forged secret, an unknown id, a malformed token, a revoked and an expired one', async () => {
    const { runtime, clock } = personWorld();
    const tokens = runtime.personTokens!;
    const { token, record } = await tokens.issue({ person: 'ana' });
    const forged = `${token.slice(0, 22)}${token.at(22) === 'A' ? 'B' : 'A'}${token.slice(23)}`;
    expect(await tokens.verify(forged)).toBeUndefined();
    expect(await tokens.verify(`cspt_${'x'.repeat(16)}_${token.slice(22)}`)).toBeUndefined();
    expect(await tokens.verify(`${token}x`)).toBeUndefined();
    const short = await tokens.issue({ person: 'bo', expiresInMs: 60_000 });
    expect(await tokens.verify(short.token)).toMatchObject({ person: 'bo' });
    clock.advance(60_000);
    expect(await tokens.verify(short.token)).toBeUndefined();
    expect(await tokens.revoke(record.id)).toMatchObject({ id: record.id, revokedAt: clock() });
    expect(await tokens.verify(token)).toBeUndefined();
    expect(await tokens.revoke(record.id)).toMatchObject({ revokedAt: clock() });
    expect(await tokens.revoke('unknown-id-00000')).toBeUndefined();
  });

  it('refuses a person name that hides characters, and bad options, with a ConfigError', async () => {
    const tokens = personWorld().runtime.personTokens!;
    for (const input of [
      { person: 'a\u202Ena' },
      { person: ' ' },
      { person: 'ana', expiresInMs: -1 },
      { person: 'ana', admin: true },
    ])
      expect(await tokens.issue(input as never).catch((error: unknown) => error)).toBeInstanceOf(ConfigError);
    expect(await tokens.revoke('../../etc').catch((error: unknown) => error)).toBeInstanceOf(ConfigError);
    expect(thrown(() => personWorld({ tokens: {} as never }))).toBeInstanceOf(ConfigError);
  });
});

describe('deciding over the HTTP API with a personal token', () => {
  it("records the token's person; a body naming the same person as people read it is fine", async () => {
    const world = personWorld();
    const { token } = await world.runtime.personTokens!.issue({ person: 'Ana' });
    const target = await world.paused();
    const res = await world.decide(token, target, { approvedBy: ' ana ' });
    expect(res.status).toBe(200);
    expect((await world.runtime.get(target.runId)).audit).toEqual([
      expect.objectContaining({ by: 'Ana', decision: 'approved' }),
    ]);
    expect(world.executed).toEqual(['/tmp/x']);
  });

  it('refuses a body that names someone else (403 approver_mismatch), recording nothing', async () => {
    const world = personWorld();
    const { token } = await world.runtime.personTokens!.issue({ person: 'ana' });
    const target = await world.paused();
    const res = await world.decide(token, target, { approvedBy: 'the-cfo' });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ code: 'approver_mismatch', person: 'ana', approvedBy: 'the-cfo' });
    const batch = await world.app.request(`/runs/${target.runId}/approvals`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({
        decisions: [{ approvalId: target.approvalId, approved: true, approvedBy: 'bo', signature: target.signature }],
      }),
    });
    expect(batch.status).toBe(403);
    expect((await world.runtime.get(target.runId)).audit).toEqual([]);
  });

  it('is refused where the tool names other approvers, whatever the body says', async () => {
    const world = personWorld({ approvers: ['bo'] });
    const ana = (await world.runtime.personTokens!.issue({ person: 'ana' })).token;
    const bo = (await world.runtime.personTokens!.issue({ person: 'bo' })).token;
    const target = await world.paused();
    expect((await world.decide(ana, target)).status).toBe(403);
    expect((await world.decide(ana, target, { approvedBy: 'bo' })).status).toBe(403);
    expect(world.executed).toEqual([]);
    expect((await world.decide(bo, target)).status).toBe(200);
    expect(world.executed).toEqual(['/tmp/x']);
  });

  it('counts one person once in a quorum, however often they vote with their token', async () => {
    const world = personWorld({ approvals: { required: 2, from: ['ana', 'bo', 'cy'] } });
    const ana = (await world.runtime.personTokens!.issue({ person: 'ana' })).token;
    const bo = (await world.runtime.personTokens!.issue({ person: 'bo' })).token;
    const target = await world.paused();
    expect((await world.decide(ana, target)).status).toBe(200);
    expect(await (await world.decide(ana, target)).json()).toMatchObject({ duplicate: true });
    expect((await world.decide(ana, target, { approvedBy: 'bo' })).status).toBe(403);
    expect(world.executed).toEqual([]);
    expect((await world.decide(bo, target)).status).toBe(200);
    const [entry] = (await world.runtime.get(target.runId)).audit;
    expect(entry?.votes?.map((vote) => vote.by)).toEqual(['ana', 'bo']);
    expect(world.executed).toEqual(['/tmp/x']);
  });

  it('refuses a revoked or expired token with 401, at once', async () => {
    const world = personWorld();
    const tokens = world.runtime.personTokens!;
    const revoked = await tokens.issue({ person: 'ana' });
    const expiring = await tokens.issue({ person: 'bo', expiresInMs: 1_000 });
    const target = await world.paused();
    await tokens.revoke(revoked.record.id);
    expect((await world.decide(revoked.token, target)).status).toBe(401);
    world.clock.advance(1_000);
    expect((await world.decide(expiring.token, target)).status).toBe(401);
    expect((await world.runtime.get(target.runId)).audit).toEqual([]);
  });
});

describe('the shared bearer token beside personal tokens', () => {
  it('still starts and reads runs, but does not decide (403 person_token_required)', async () => {
    const world = personWorld();
    const started = await world.app.request('/runs', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${SHARED}` },
      body: JSON.stringify({ agent: 'files', input: 'delete it' }),
    });
    expect(started.status).toBe(201);
    const { run } = (await started.json()) as {
      run: { runId: string; pendingApprovals: { approvalId: string; signature: string }[] };
    };
    const read = await world.app.request(`/runs/${run.runId}`, { headers: { authorization: `Bearer ${SHARED}` } });
    expect(read.status).toBe(200);
    const target = { runId: run.runId, ...run.pendingApprovals[0]! };
    const refused = await world.decide(SHARED, target, { approvedBy: 'ana' });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ code: 'person_token_required' });
    expect(world.executed).toEqual([]);
  });

  it('decides under the name given with sharedTokenDecides: true', async () => {
    const world = personWorld({ app: { sharedTokenDecides: true } });
    const target = await world.paused();
    expect((await world.decide(SHARED, target, { approvedBy: 'ops-bot' })).status).toBe(200);
    expect((await world.runtime.get(target.runId)).audit[0]).toMatchObject({ by: 'ops-bot' });
  });
});

describe('starting a run with a personal token', () => {
  it("records the token's person as the requester, so they cannot also vote as a non-requester", async () => {
    const world = personWorld({ approvals: { required: 2, from: ['ana', 'bo', 'cy'], excludeRequester: true } });
    const ana = (await world.runtime.personTokens!.issue({ person: 'ana' })).token;
    const start = (body: Record<string, unknown>) =>
      world.app.request('/runs', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${ana}` },
        body: JSON.stringify({ agent: 'files', input: 'delete it', ...body }),
      });
    const posing = await start({ requestedBy: 'cy' });
    expect(posing.status).toBe(403);
    expect(await posing.json()).toMatchObject({ code: 'approver_mismatch', requestedBy: 'cy' });
    const started = await start({});
    expect(started.status).toBe(201);
    const { run } = (await started.json()) as {
      run: { runId: string; pendingApprovals: { approvalId: string; signature: string }[] };
    };
    expect((await world.runtime.get(run.runId)).requestedBy).toBe('ana');
    const vote = await world.decide(ana, { runId: run.runId, ...run.pendingApprovals[0]! });
    expect(vote.status).toBe(403);
    expect(world.executed).toEqual([]);
  });
});
