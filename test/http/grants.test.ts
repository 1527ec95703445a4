// The grant routes over the app: a session decision posted to the app, the grant listed, revoked by id, a session
// cleared; signed deletes name their target.
import { describe, expect, it } from 'vitest';
import { bearer, harness, json, signed } from './harness.js';

async function read(res: Response) {
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

/** Starts a run of a session on the app and returns its pending approval. */
async function startInSession(h: ReturnType<typeof harness>, sessionId: string, input = '/tmp/x') {
  const res = await read(await h.app.request('/runs', json({ agent: 'files', input, sessionId })));
  return {
    status: res.body['status'] as string,
    runId: res.body['run'].runId as string,
    approvalId: res.body['run'].pendingApprovals[0]?.approvalId as string,
  };
}

describe('grants over HTTP', () => {
  it('a decision with scope session and bounds makes a grant: listed, covering the next run, revoked by DELETE /grants/:id', async () => {
    const h = harness();
    const { runId, approvalId } = await startInSession(h, 'chat-1');
    const decided = await read(
      await h.app.request(
        `/runs/${runId}/approvals/${approvalId}`,
        json({
          approved: true,
          approvedBy: 'alice',
          scope: 'session',
          grant: { uses: 5, argsMatch: { path: '/tmp/*' } },
        }),
      ),
    );
    expect(decided.status).toBe(200);
    expect(decided.body['run'].audit[0]).toMatchObject({
      scope: 'session',
      grant: { uses: 5, argsMatch: { path: '/tmp/*' } },
    });
    const listed = await read(await h.app.request('/grants?sessionId=chat-1', { headers: bearer() }));
    expect(listed.status).toBe(200);
    const [grant] = listed.body['grants'];
    expect(grant).toMatchObject({
      scope: 'session',
      sessionId: 'chat-1',
      toolName: 'delete_file',
      grantedBy: 'alice',
      uses: 5,
      used: 0,
    });

    expect((await startInSession(h, 'chat-1', '/tmp/y')).status).toBe('completed');
    expect((await startInSession(h, 'chat-1', '/etc/passwd')).status).toBe('awaitingApproval');
    const revoked = await read(await h.app.request(`/grants/${grant.id}`, { method: 'DELETE', headers: bearer() }));
    expect(revoked).toEqual({ status: 200, body: { revoked: 1 } });
    expect((await startInSession(h, 'chat-1', '/tmp/z')).status).toBe('awaitingApproval');
    expect(h.executed).toEqual(['/tmp/x', '/tmp/y']);
  });

  it('DELETE /sessions/:id/grants revokes every grant of the session; a signed delete must name its target', async () => {
    const h = harness();
    const { runId, approvalId } = await startInSession(h, 'chat-2');
    await h.app.request(
      `/runs/${runId}/approvals/${approvalId}`,
      json({ approved: false, approvedBy: 'alice', scope: 'session' }),
    );
    expect((await read(await h.app.request('/grants?agent=files', { headers: bearer() }))).body['grants']).toHaveLength(
      1,
    );

    const unnamed = await read(
      await h.app.request('/sessions/chat-2/grants', { method: 'DELETE', headers: signed('{}'), body: '{}' }),
    );
    expect(unnamed).toMatchObject({ status: 400, body: { code: 'target_mismatch' } });
    const body = JSON.stringify({ sessionId: 'chat-2' });
    const cleared = await read(
      await h.app.request('/sessions/chat-2/grants', { method: 'DELETE', headers: signed(body), body }),
    );
    expect(cleared).toEqual({ status: 200, body: { revoked: 1 } });
    expect((await read(await h.app.request('/grants', { headers: bearer() }))).body['grants']).toEqual([]);
  });

  it('refuses scope session on a run without a session, and an unauthenticated listing', async () => {
    const h = harness();
    const res = await read(await h.app.request('/runs', json({ agent: 'files', input: '/tmp/x' })));
    const { runId } = res.body['run'];
    const approvalId = res.body['run'].pendingApprovals[0].approvalId;
    const refused = await read(
      await h.app.request(`/runs/${runId}/approvals/${approvalId}`, json({ approved: true, scope: 'session' })),
    );
    expect(refused.status).toBe(400);
    expect(refused.body['detail']).toMatch(/sessionId/);
    expect((await h.app.request('/grants')).status).toBe(401);
  });
});
