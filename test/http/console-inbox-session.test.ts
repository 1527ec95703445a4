// A console session an inbox link signed in (a reviewer's least-privilege credential) has the inbox's powers only:
// it shows and decides the pending approvals, reads what the inbox shows, edits nothing, touches no rule or grant,
// and ends when the links secret rotates.
import { describe, expect, it } from 'vitest';
import { createAgent, createMemoryRuleStore, createMemoryStore, createRuntime } from 'countersign';
import { createApprovalApp } from 'countersign/http';
import { createScriptedModel, textTurn } from 'countersign/testing';
import { inboxLinkUrl } from '../support/link-urls.js';
import { harness, NOW_MS, SECRET, TOKEN, type Harness } from './harness.js';
import { sseReader } from './sse-reader.js';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

async function signIn(app: Harness['app'], fields: Record<string, string>) {
  const response = await app.request('/console/session', {
    method: 'POST',
    headers: FORM,
    body: new URLSearchParams(fields).toString(),
  });
  expect(response.status).toBe(303);
  const cookie = response.headers.get('set-cookie')!.split(';')[0]!;
  const csrf = /data-csrf="([^"]+)"/.exec(await (await app.request('/', { headers: { cookie } })).text())![1]!;
  return { cookie, csrf };
}

const inboxSignIn = async (h: Harness, reviewer = 'carol') =>
  signIn(h.app, { inbox: (await inboxLinkUrl(h.runtime, reviewer)).url });

describe('a console session signed in with an inbox link', () => {
  it('cannot add, disable or delete stored rules, revoke grants, or open history, grants and rules', async () => {
    const rules = createMemoryRuleStore();
    const h = harness({ app: { rules } });
    const kept = await rules.add({ tool: 'delete_file', action: 'ask', approvers: ['dana'] });
    const inSession = await h.runtime.start('files', { input: '/tmp/a', sessionId: 'chat-1' });
    await h.runtime.respond(inSession.runId, {
      approvalId: inSession.pendingApprovals[0]!.approvalId,
      approved: true,
      approvedBy: 'alice',
      scope: 'session',
    });
    const [grant] = await h.runtime.grants();
    expect(grant).toBeDefined();

    const carol = await inboxSignIn(h);
    const post = (path: string, fields: Record<string, string>) =>
      h.app.request(path, {
        method: 'POST',
        headers: { ...FORM, cookie: carol.cookie },
        body: new URLSearchParams({ csrf: carol.csrf, ...fields }).toString(),
      });
    const writes = [
      await post('/console/rules', { action: 'allow' }),
      await post('/console/rules', { tool: 'delete_file', action: 'ask', approvers: 'carol' }),
      await post(`/console/rules/${kept.id}`, { op: 'disable' }),
      await post(`/console/rules/${kept.id}`, { op: 'delete' }),
      await post(`/console/grants/${grant!.id}`, {}),
    ];
    const pages = await Promise.all(
      ['/console/rules', '/console/grants', '/console/history'].map((path) =>
        h.app.request(path, { headers: { cookie: carol.cookie } }),
      ),
    );
    for (const response of [...writes, ...pages]) {
      expect(response.status).toBe(403);
      expect(await response.json()).toMatchObject({ code: 'inbox_session_not_allowed' });
    }
    expect(await rules.list()).toEqual([kept]);
    expect((await h.runtime.grants()).map((live) => live.id)).toEqual([grant!.id]);

    // What the page offers says the same: no history, grants or rules, no edit.
    const html = await (await h.app.request('/', { headers: { cookie: carol.cookie } })).text();
    expect(html).toContain('Signed in as <strong>carol</strong>');
    expect(html).not.toContain('console/rules');
    expect(html).not.toContain('console/grants');
    expect(html).not.toContain('data-action="edit"');
  });

  it('reads through the read routes only what the inbox shows: the pending approvals, and their events without results', async () => {
    const h = harness();
    const paused = await h.runtime.start('files', { input: '/tmp/b' });
    const carol = await inboxSignIn(h);
    const read = (path: string) => h.app.request(path, { headers: { cookie: carol.cookie } });
    const listed = await read('/approvals');
    expect(listed.status).toBe(200);
    expect(((await listed.json()) as { items: unknown[] }).items).toHaveLength(1);
    for (const path of [
      `/runs/${paused.runId}`,
      '/grants',
      '/console/history.jsonl',
      '/agents/files/tools',
      '/connectors',
    ]) {
      const response = await read(path);
      expect(response.status, path).toBe(403);
      expect(await response.json()).toMatchObject({ code: 'inbox_session_not_allowed' });
    }

    const events = sseReader(await read('/events'));
    expect(await events.next()).toBe(': connected');
    const decided = await h.app.request('/console/decide', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-csrf-token': carol.csrf, cookie: carol.cookie },
      body: JSON.stringify({
        runId: paused.runId,
        approvalId: paused.pendingApprovals[0]!.approvalId,
        decision: 'approve',
      }),
    });
    expect(decided.status).toBe(200);
    const answer = (await decided.json()) as Record<string, unknown>;
    expect(answer).toMatchObject({ status: 'completed' });
    expect(answer).not.toHaveProperty('run');
    expect(await events.event()).toMatchObject({
      type: 'approval-resolved',
      data: { entry: { by: 'carol', decision: 'approved' } },
    });
    expect(await events.event()).toMatchObject({ type: 'tool-finished', data: { status: 'succeeded', result: '' } });
    // The run's output (run-completed) is not sent: the next event is the next run's request.
    const next = await h.runtime.start('files', { input: '/tmp/e' });
    expect(await events.event()).toMatchObject({ type: 'approval-requested', data: { runId: next.runId } });
    await events.cancel();
    expect((await h.runtime.get(paused.runId)).audit.at(-1)).toMatchObject({ by: 'carol', decision: 'approved' });
  });

  it('decides as its reviewer but never with edited arguments, which the inbox does not offer', async () => {
    const h = harness();
    const paused = await h.runtime.start('files', { input: '/tmp/c' });
    const carol = await inboxSignIn(h);
    const edited = await h.app.request('/console/decide', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-csrf-token': carol.csrf, cookie: carol.cookie },
      body: JSON.stringify({
        runId: paused.runId,
        approvalId: paused.pendingApprovals[0]!.approvalId,
        decision: 'approve',
        args: { path: '/etc/passwd' },
      }),
    });
    expect(edited.status).toBe(403);
    expect(await edited.json()).toMatchObject({ code: 'inbox_session_not_allowed' });
    expect((await h.runtime.get(paused.runId)).status).toBe('awaitingApproval');
    expect(h.executed).toEqual([]);
  });

  it('gets no Cancel run, and a cancel it sends anyway is refused with 403: an inbox stops no run', async () => {
    const h = harness();
    const paused = await h.runtime.start('files', { input: '/tmp/f' });
    const carol = await inboxSignIn(h);
    expect(await (await h.app.request('/', { headers: { cookie: carol.cookie } })).text()).not.toContain(
      'console/cancel',
    );
    await h.runtime.respond(
      paused.runId,
      { approvalId: paused.pendingApprovals[0]!.approvalId, approved: true, approvedBy: 'alice' },
      { mode: 'record' },
    );
    const cancel = await h.app.request('/console/cancel', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-csrf-token': carol.csrf, cookie: carol.cookie },
      body: JSON.stringify({ runId: paused.runId }),
    });
    expect(cancel.status).toBe(403);
    expect(await cancel.json()).toMatchObject({ code: 'inbox_session_not_allowed' });
    expect((await h.runtime.get(paused.runId)).status).toBe('running');
  });

  it('ends when the links secret rotates, while a token session of the same app goes on', async () => {
    const h = harness();
    await h.runtime.start('files', { input: '/tmp/d' });
    const carol = await inboxSignIn(h);
    const alice = await signIn(h.app, { token: TOKEN, name: 'alice' });
    const rotated = createApprovalApp(
      createRuntime({
        agents: [createAgent({ name: 'files', model: createScriptedModel([textTurn('hi')]), tools: [] })],
        store: createMemoryStore(),
        links: { secret: 'link-secret-rotated-0123456789' },
      }),
      { bearerToken: TOKEN, webhookSecret: SECRET, clock: () => NOW_MS },
    );
    expect(await (await rotated.request('/', { headers: { cookie: alice.cookie } })).text()).toContain(
      'Signed in as <strong>alice</strong>',
    );
    expect(await (await rotated.request('/', { headers: { cookie: carol.cookie } })).text()).toContain('name="inbox"');
    expect((await rotated.request('/approvals', { headers: { cookie: carol.cookie } })).status).toBe(401);
    // The same cookie still works where the secret it was minted with is.
    expect((await h.app.request('/approvals', { headers: { cookie: carol.cookie } })).status).toBe(200);
  });
});
