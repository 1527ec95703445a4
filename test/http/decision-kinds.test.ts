// The decisions a tool offers, over HTTP: a decision of another kind is answered 403 decision_not_offered and records
// nothing; one-click tokens are minted only for what is offered, and the link page and the inbox show nothing else
// (a token minted without the request's decisions gets no form, and its post is refused).
import { describe, expect, it } from 'vitest';
import { openApiDocument } from 'countersign/http';
import { inboxLinkUrl } from '../support/link-urls.js';
import { harness, json, startPaused, stateOf } from './harness.js';

type Body = Record<string, any>;
const read = async (res: Response) => ({ status: res.status, body: (await res.json()) as Body });
const tokenOf = (url: string) => url.slice(url.lastIndexOf('/inbox/') + '/inbox/'.length);

describe('a decision of a kind the tool does not offer', () => {
  it('is answered 403 decision_not_offered with what was asked and what is offered, and records nothing', async () => {
    const h = harness({ decisions: ['approve', 'deny'] });
    const { runId, approvalId } = await startPaused(h);
    const before = await stateOf(h, runId);
    const decide = async (body: unknown) =>
      read(await h.app.request(`/runs/${runId}/approvals/${approvalId}`, json(body)));
    for (const [body, asked] of [
      [{ approved: true, approvedBy: 'alice', scope: 'run' }, 'run'],
      [{ approved: true, approvedBy: 'alice', args: { path: '/tmp/other' } }, 'edit'],
    ] as const) {
      expect(await decide(body)).toMatchObject({
        status: 403,
        body: { code: 'decision_not_offered', approvalId, asked, offered: ['approve', 'deny'] },
      });
    }
    expect(await stateOf(h, runId)).toBe(before);
    expect(await decide({ approved: true, approvedBy: 'alice' })).toMatchObject({ status: 200 });
    expect(h.executed).toEqual(['/tmp/x']);
  });

  it('is refused item by item in a batch, and the OpenAPI document names the code', async () => {
    const h = harness({ decisions: ['deny'] });
    const start = await read(await h.app.request('/runs', json({ agent: 'files', input: '/a /b' })));
    const runId = start.body['run'].runId as string;
    const approve = await read(
      await h.app.request(`/runs/${runId}/approvals`, json({ approveAll: true, approvedBy: 'alice' })),
    );
    expect(approve.body['results'].map((item: Body) => [item['ok'], item['problem']?.code])).toEqual([
      [false, 'decision_not_offered'],
      [false, 'decision_not_offered'],
    ]);
    expect((await h.runtime.get(runId)).audit).toEqual([]);
    const deny = await read(
      await h.app.request(`/runs/${runId}/approvals`, json({ denyAll: true, approvedBy: 'alice' })),
    );
    expect(deny.body['status']).toBe('completed');
    expect(JSON.stringify(openApiDocument())).toContain('decision_not_offered');
  });
});

describe('one-click links of a tool that offers fewer decisions', () => {
  it('mints no token for a kind not offered, and the inbox shows a button only for the others', async () => {
    const h = harness({ decisions: ['approve', 'deny'] });
    const run = await h.runtime.start('files', { input: '/tmp/one', sessionId: 'chat-1' });
    const tokens = await h.runtime.linkTokens(run.runId, run.pendingApprovals[0]!.approvalId);
    expect(Object.keys(tokens).sort()).toEqual(['approve', 'deny', 'expiresAt', 'wider']);
    const page = await (await h.app.request(`/links/${tokens.approve}`)).text();
    expect(page).toContain('>Approve</button>');
    const inbox = await inboxLinkUrl(h.runtime, 'alice@example.com');
    const listed = await (await h.app.request(`/inbox/${tokenOf(inbox.url)}`)).text();
    expect([...listed.matchAll(/<button type="submit" class="\w+">([^<]+)<\/button>/g)].map((m) => m[1])).toEqual([
      'Approve',
      'Deny',
    ]);

    const denyOnly = harness({ decisions: ['deny'] });
    await denyOnly.runtime.start('files', { input: '/tmp/two' });
    const other = await inboxLinkUrl(denyOnly.runtime, 'alice@example.com');
    const denyPage = await (await denyOnly.app.request(`/inbox/${tokenOf(other.url)}`)).text();
    expect(denyPage).toContain('>Deny</button>');
    expect(denyPage).not.toContain('>Approve');
  });

  it('shows no form for a token minted without the request decisions (links.mint), and refuses its post', async () => {
    const h = harness({ decisions: ['approve', 'deny'] });
    const run = await h.runtime.start('files', { input: '/tmp/one' });
    const { approvalId } = run.pendingApprovals[0]!;
    const minted = h.runtime.links.mint({ runId: run.runId, approvalId, expiresAt: Date.now() + 60_000 });
    const page = await h.app.request(`/links/${minted.approveForRun}`);
    expect(page.status).toBe(403);
    const html = await page.text();
    expect(html).not.toContain('<form');
    expect(html).toContain('This approval does not offer that decision');
    const posted = await h.app.request(`/links/${minted.approveForRun}`, { method: 'POST' });
    expect(posted.status).toBe(403);
    expect(await posted.text()).toContain('nothing was done');
    expect((await h.runtime.get(run.runId)).audit).toEqual([]);
    // The one it offers still works.
    expect((await h.app.request(`/links/${minted.approve}`, { method: 'POST' })).status).toBe(200);
    expect(h.executed).toEqual(['/tmp/one']);
  });
});
