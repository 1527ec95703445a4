// A reviewer's inbox: GET /inbox/<token> lists pending approvals with buttons
// that post each one's one-click link as the reviewer.
import { describe, expect, it } from 'vitest';
import { createApprovalApp } from 'countersign/http';
import { createRuntime } from 'countersign';
import { expectOpaque } from '../support/opaque-token.js';
import { harness, TOKEN } from './harness.js';
import { linkUrls, inboxLinkUrl } from '../support/link-urls.js';

const tokenOf = (url: string, segment: 'inbox' | 'links') =>
  url.slice(url.lastIndexOf(`/${segment}/`) + segment.length + 2);
const formTargets = (html: string) => [...html.matchAll(/action="\.\.\/links\/([^"]+)"/g)].map((match) => match[1]!);

describe('reviewer inbox', () => {
  it("shows a run's session where it shows the run: on the link page and in the inbox", async () => {
    const h = harness();
    const run = await h.runtime.start('files', { input: '/tmp/one', sessionId: 'chat-7' });
    const links = await linkUrls(h.runtime, run.runId, run.pendingApprovals[0]!.approvalId);
    const page = await (await h.app.request(`/links/${tokenOf(links.approve, 'links')}`)).text();
    expect(page).toContain(`Run <code>${run.runId}</code>, session <code>chat-7</code>, approval`);
    const inbox = await inboxLinkUrl(h.runtime, 'alice@example.com');
    const listed = await (await h.app.request(`/inbox/${tokenOf(inbox.url, 'inbox')}`)).text();
    expect(listed).toContain(`Run <code>${run.runId}</code> · session <code>chat-7</code>`);
  });

  it('offers "Approve for this session" on a run with a session, on the link page and in the inbox; one click records a session grant', async () => {
    const h = harness();
    const run = await h.runtime.start('files', { input: '/tmp/one', sessionId: 'chat-7' });
    const tokens = await h.runtime.linkTokens(run.runId, run.pendingApprovals[0]!.approvalId);
    expect(tokens.wider).toBe('session');
    expect((await h.runtime.inspectLink(tokens.approveForRun!)).claim).toMatchObject({
      decision: 'approve',
      scope: 'session',
    });
    const page = await (await h.app.request(`/links/${tokens.approveForRun}`)).text();
    expect(page).toContain('>Approve for this session</button>');

    const inbox = await inboxLinkUrl(h.runtime, 'alice@example.com');
    const listed = await (await h.app.request(`/inbox/${tokenOf(inbox.url, 'inbox')}`)).text();
    expect(listed).toContain('>Approve for this session</button>');
    expect(listed).not.toContain('for this run');
    const claims = await Promise.all(
      formTargets(listed).map(async (token) => ({ token, claim: (await h.runtime.inspectLink(token)).claim })),
    );
    const forSession = claims.find((item) => item.claim.scope === 'session')!;
    expect((await h.app.request(`/links/${forSession.token}`, { method: 'POST' })).status).toBe(200);
    expect((await h.runtime.get(run.runId)).audit[0]).toMatchObject({
      decision: 'approved',
      scope: 'session',
      by: 'alice@example.com',
    });
    expect(await h.runtime.grants({ sessionId: 'chat-7' })).toMatchObject([
      { toolName: 'delete_file', grantedBy: 'alice@example.com' },
    ]);

    const alone = await h.runtime.start('files', { input: '/tmp/two' });
    const plain = await h.runtime.linkTokens(alone.runId, alone.pendingApprovals[0]!.approvalId);
    expect(plain.wider).toBe('run');
    expect((await h.runtime.inspectLink(plain.approveForRun!)).claim.scope).toBe('run');
    expect(await (await h.app.request(`/links/${plain.approveForRun}`)).text()).toContain(
      '>Approve for this run</button>',
    );
  });

  it('lists every pending approval with redacted arguments, and its buttons decide as the reviewer', async () => {
    const h = harness();
    const one = await h.runtime.start('files', { input: '/tmp/one' });
    const two = await h.runtime.start('files', { input: '/tmp/two' });
    const inbox = await inboxLinkUrl(h.runtime, 'alice@example.com');
    expect(inbox.url).toMatch(/^https:\/\/approvals\.example\.com\/inbox\/[\w-]+\.[\w-]+$/);
    const page = await h.app.request(`/inbox/${tokenOf(inbox.url, 'inbox')}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const html = await page.text();
    expect(html).toContain('alice@example.com');
    expect(html).toContain('/tmp/one');
    expect(html).toContain('/tmp/two');
    expect(html).toContain('[REDACTED]');
    expect(html).not.toContain('sk-secret-value');
    // Showing the inbox decided nothing.
    expect((await h.runtime.get(one.runId)).status).toBe('awaitingApproval');

    const targets = formTargets(html);
    // Approve, Approve for this run, Deny: for each approval.
    expect(targets).toHaveLength(6);
    expect(html).toContain('>Approve for this run</button>');
    // Tokens are opaque: only the runtime can say what each one grants.
    const claims = await Promise.all(targets.map(async (token) => (await h.runtime.inspectLink(token)).claim));
    expect(claims.every((claim) => claim.approvedBy === 'alice@example.com')).toBe(true);
    const approve = targets[claims.findIndex((claim) => claim.runId === one.runId && claim.decision === 'approve')]!;
    const decided = await h.app.request(`/links/${approve}`, { method: 'POST' });
    expect(decided.status).toBe(200);
    expect(await h.runtime.get(one.runId)).toMatchObject({
      status: 'completed',
      audit: [{ decision: 'approved', by: 'alice@example.com' }],
    });
    expect(h.executed).toEqual(['/tmp/one']);

    const after = await (await h.app.request(`/inbox/${tokenOf(inbox.url, 'inbox')}`)).text();
    expect(after).not.toContain('/tmp/one');
    expect(after).toContain('/tmp/two');
    expect(two.status).toBe('awaitingApproval');
  });

  it('keeps the reviewer out of sight: neither the inbox URL nor its buttons can be read by whoever sees them', async () => {
    const h = harness();
    const run = await h.runtime.start('files', { input: '/tmp/one' });
    const inbox = await inboxLinkUrl(h.runtime, 'alice@example.com');
    const token = tokenOf(inbox.url, 'inbox');
    expectOpaque(token, ['alice@example.com', 'alice']);
    const targets = formTargets(await (await h.app.request(`/inbox/${token}`)).text());
    expect(targets).toHaveLength(3);
    for (const target of targets) expectOpaque(target, ['alice@example.com', 'alice', run.runId]);
    // Still one click decides, as alice.
    expect((await h.app.request(`/links/${targets[0]}`, { method: 'POST' })).status).toBe(200);
    expect((await h.runtime.get(run.runId)).audit[0]!.by).toBe('alice@example.com');
  });

  it('refuses forged and expired inbox tokens, and an inbox token is no decision link', async () => {
    let now = Date.UTC(2026, 0, 1);
    const h = harness({ clock: () => now });
    const run = await h.runtime.start('files', { input: '/tmp/x' });
    const inbox = await inboxLinkUrl(h.runtime, 'bob', { expiresIn: 60_000 });
    const token = tokenOf(inbox.url, 'inbox');
    const forged = `${token.split('.')[0]}.${'A'.repeat(43)}`;
    expect((await h.app.request(`/inbox/${forged}`)).status).toBe(401);
    expect((await h.app.request(`/links/${token}`, { method: 'POST' })).status).toBe(401);
    expect((await h.app.request('/inbox/not-a-token')).status).toBe(401);
    // A decision link is no inbox token either.
    const links = await linkUrls(h.runtime, run.runId, run.pendingApprovals[0]!.approvalId);
    expect((await h.app.request(`/inbox/${tokenOf(links.approve, 'links')}`)).status).toBe(401);
    now += 60_000;
    expect((await h.app.request(`/inbox/${token}`)).status).toBe(410);
    expect((await h.runtime.get(run.runId)).status).toBe('awaitingApproval');
    await expect(inboxLinkUrl(h.runtime, '')).rejects.toThrow(/reviewer/);
  });

  it('shows requests the reviewer may not decide without buttons', async () => {
    const h = harness({ approvers: ['carol'] });
    await h.runtime.start('files', { input: '/tmp/guarded' });
    const html = await (
      await h.app.request(`/inbox/${tokenOf((await inboxLinkUrl(h.runtime, 'mallory')).url, 'inbox')}`)
    ).text();
    expect(html).toContain('/tmp/guarded');
    expect(html).toContain('Only carol may decide this one.');
    expect(formTargets(html)).toEqual([]);
  });

  it('says so when links are not set up', async () => {
    const h = harness();
    const app = createApprovalApp(createRuntime({ agents: [h.runtime.agent('files')] }), { bearerToken: TOKEN });
    const page = await app.request('/inbox/abc.def');
    expect(page.status).toBe(404);
    expect(await page.text()).toContain('Links are not enabled');
  });
});
