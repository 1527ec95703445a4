// The console's session approvals, bounded grants, quorum votes and grants page, over app.request. The browser test
// drives the same routes in Chromium.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, createRuntime, defineTool } from 'countersign';
import { createApprovalApp } from 'countersign/http';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';

const TOKEN = 'console-test-token-0123456789';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

function setup() {
  const tool = (name: string, approvals?: { required: number }) =>
    defineTool({
      name,
      description: `Run ${name}`,
      input: z.object({ target: z.string() }),
      needsApproval: true,
      ...(approvals === undefined ? {} : { approvals }),
      execute: ({ target }) => `${name} ${target}`,
    });
  const model = createScriptedModel(({ messages }) =>
    messages.at(-1)?.role === 'tool'
      ? textTurn('done')
      : toolCallTurn(String(messages.at(-1)?.content).startsWith('pay') ? 'transfer' : 'deploy', { target: 'staging' }),
  );
  const runtime = createRuntime({
    agents: [createAgent({ name: 'ops', model, tools: [tool('deploy'), tool('transfer', { required: 2 })] })],
  });
  const app = createApprovalApp(runtime, { bearerToken: TOKEN });
  const signIn = async (name = 'alice') => {
    const response = await app.request('/console/session', {
      method: 'POST',
      headers: FORM,
      body: new URLSearchParams({ token: TOKEN, name }).toString(),
    });
    const cookie = response.headers.get('set-cookie')!.split(';')[0]!;
    const csrf = /data-csrf="([^"]+)"/.exec(await (await app.request('/', { headers: { cookie } })).text())![1]!;
    return { cookie, csrf };
  };
  const post = (path: string, who: { cookie: string; csrf: string }, fields: Record<string, string>) =>
    app.request(path, {
      method: 'POST',
      headers: { ...FORM, cookie: who.cookie },
      body: new URLSearchParams({ csrf: who.csrf, ...fields }).toString(),
    });
  const page = async (path: string, who: { cookie: string }) =>
    (await app.request(path, { headers: { cookie: who.cookie } })).text();
  return { runtime, app, signIn, post, page };
}

describe('console: session approvals and bounded grants', () => {
  it('offers Approve for this session on a run with a session (else for this run) and records a bounded session grant', async () => {
    const { runtime, signIn, post, page } = setup();
    const alone = await runtime.start('ops', { input: 'deploy' });
    const inSession = await runtime.start('ops', { input: 'deploy', sessionId: 'chat-42' });
    const alice = await signIn();
    const cards = await page('/', alice);
    const card = (runId: string) => cards.slice(cards.indexOf(`data-run="${runId}"`)).split('</article>')[0]!;
    expect(card(alone.runId)).toContain('value="run"');
    expect(card(alone.runId)).not.toContain('value="session"');
    expect(card(inSession.runId)).toContain('Approve for this session');
    expect(card(inSession.runId)).toContain('name="ttlMinutes"');
    expect(card(inSession.runId)).not.toContain('value="run"');

    const approvalId = inSession.pendingApprovals[0]!.approvalId;
    const answer = await post('/console/decide', alice, {
      runId: inSession.runId,
      approvalId,
      decision: 'session',
      ttlMinutes: '15',
      uses: '2',
      approvedBy: 'mallory',
    });
    expect(answer.status).toBe(303);
    expect((await runtime.get(inSession.runId)).audit.find((entry) => entry.approvalId === approvalId)).toMatchObject({
      decision: 'approved',
      scope: 'session',
      by: 'alice',
    });
    const [grant] = await runtime.grants({ sessionId: 'chat-42' });
    expect(grant).toMatchObject({ toolName: 'deploy', decision: 'approved', grantedBy: 'alice', uses: 2, used: 0 });
    expect(grant!.expiresAt! - grant!.grantedAt).toBe(15 * 60_000);
  });

  it('refuses bounds that are not whole numbers of at least 1, deciding nothing', async () => {
    const { runtime, signIn, post } = setup();
    const run = await runtime.start('ops', { input: 'deploy', sessionId: 'chat-42' });
    const alice = await signIn();
    const fields = { runId: run.runId, approvalId: run.pendingApprovals[0]!.approvalId, decision: 'session' };
    expect((await post('/console/decide', alice, { ...fields, uses: '0' })).status).toBe(400);
    expect((await post('/console/decide', alice, { ...fields, ttlMinutes: '1.5' })).status).toBe(400);
    expect((await runtime.get(run.runId)).status).toBe('awaitingApproval');
    expect(await runtime.grants()).toEqual([]);
  });

  it('offers only votes on a quorum request, tells a session approval the core refused on the page, and answers a vote with what is left', async () => {
    const { runtime, signIn, post, page, app } = setup();
    const run = await runtime.start('ops', { input: 'pay', sessionId: 'chat-42' });
    const approvalId = run.pendingApprovals[0]!.approvalId;
    const alice = await signIn();
    const card = await page('/', alice);
    expect(card).toContain('value="approve"');
    expect(card).not.toContain('value="session"');
    expect(card).not.toContain('value="run"');

    const refused = await post('/console/decide', alice, { runId: run.runId, approvalId, decision: 'session' });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toMatch(/role="alert">[^<]*quorum/i);
    expect(await runtime.grants()).toEqual([]);

    const vote = await app.request('/console/decide', {
      method: 'POST',
      headers: { cookie: alice.cookie, 'content-type': 'application/json', 'x-csrf-token': alice.csrf },
      body: JSON.stringify({ runId: run.runId, approvalId, decision: 'approve' }),
    });
    expect(await vote.json()).toMatchObject({
      status: 'awaitingApproval',
      vote: { recorded: true, approvals: 1, required: 2, remaining: 1 },
    });
  });
});

describe('console: grants page', () => {
  it("shows each grant's bounds: the arguments it covers, the uses left and when it ends", async () => {
    const { runtime, signIn, page } = setup();
    const run = await runtime.start('ops', { input: 'deploy', sessionId: 'chat-7' });
    const grant = { ttlMs: 30 * 60_000, uses: 3, argsMatch: { target: 'staging-*' } };
    await runtime.respond(run.runId, {
      approvalId: run.pendingApprovals[0]!.approvalId,
      approved: true,
      approvedBy: 'alice',
      scope: 'session',
      grant,
    });
    const [live] = await runtime.grants();
    const listed = await page('/console/grants', await signIn());
    expect(listed).toContain('<th scope="col">Arguments</th>');
    expect(listed).toContain('<code>target</code> matches <code>&quot;staging-*&quot;</code>');
    expect(listed).toContain('3 of 3 uses left');
    expect(listed).toContain(`until <time datetime="${new Date(live!.expiresAt!).toISOString()}" title=`);
  });

  it('lists the live grants and revokes one with the CSRF token, effective for the next call', async () => {
    const { runtime, signIn, post, page } = setup();
    const run = await runtime.start('ops', { input: 'deploy', sessionId: 'chat-42' });
    const alice = await signIn();
    await post('/console/decide', alice, {
      runId: run.runId,
      approvalId: run.pendingApprovals[0]!.approvalId,
      decision: 'session',
      uses: '2',
    });
    const [grant] = await runtime.grants();
    const listed = await page('/console/grants', alice);
    expect(listed).toContain('<code>deploy</code>');
    expect(listed).toContain('session <code>chat-42</code>');
    expect(listed).toContain('2 of 2 uses left');
    expect((await runtime.start('ops', { input: 'deploy', sessionId: 'chat-42' })).status).toBe('completed');

    expect((await post(`/console/grants/${grant!.id}`, { ...alice, csrf: 'x'.repeat(43) }, {})).status).toBe(403);
    expect(await runtime.grants()).toHaveLength(1);
    const revoked = await post(`/console/grants/${grant!.id}`, alice, {});
    expect(revoked.status).toBe(303);
    expect(revoked.headers.get('location')).toBe('../grants');
    expect(await runtime.grants()).toEqual([]);
    expect(await page('/console/grants', alice)).toContain('No live grants.');
    expect((await runtime.start('ops', { input: 'deploy', sessionId: 'chat-42' })).status).toBe('awaitingApproval');
  });
});
