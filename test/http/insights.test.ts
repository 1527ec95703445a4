// GET /insights and the console's insights page over app.request: runs decided by different people (approved,
// denied, dismissed, expired by the sweeper on a test clock), the numbers they make, and who may read them.
import { describe, expect, it } from 'vitest';
import type { RunEvent } from 'countersign';
import { inboxLinkUrl } from '../support/link-urls.js';
import { bearer, harness, NOW_MS } from './harness.js';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const TTL_MS = 60_000;

/** A harness on a clock the test moves, with `decide` starting a run and answering it `afterMs` later. */
function decidedRuns() {
  let now = NOW_MS;
  const clock = () => now;
  const h = harness({ clock, approvalTtlMs: TTL_MS, app: { clock } });
  const events: RunEvent[] = [];
  h.runtime.subscribe((event) => events.push(event));
  const decide = async (afterMs: number, by: string, answer: { approved: boolean; dismissed?: boolean }) => {
    const run = await h.runtime.start('files', { input: `/tmp/${by}` });
    now += afterMs;
    await h.runtime.respond(run.runId, { approvalId: run.pendingApprovals[0]!.approvalId, approvedBy: by, ...answer });
  };
  return { h, events, decide, advance: (ms: number) => (now += ms), now: () => now };
}

const signIn = async (app: ReturnType<typeof harness>['app'], fields: Record<string, string>) => {
  const response = await app.request('/console/session', {
    method: 'POST',
    headers: FORM,
    body: new URLSearchParams(fields).toString(),
  });
  return response.headers.get('set-cookie')!.split(';')[0]!;
};

describe('GET /insights', () => {
  it('counts per tool and per approver what people approved, denied, dismissed and let expire, with the time to decide', async () => {
    const { h, events, decide, advance, now } = decidedRuns();
    const first = await h.app.request('/insights', { headers: bearer() });
    expect(first.status).toBe(200);
    expect(await first.json()).toMatchObject({ source: 'history', count: 0, listeningSince: NOW_MS, limit: 1000 });

    await decide(2_000, 'alice', { approved: true });
    await decide(4_000, 'bob', { approved: false });
    await decide(6_000, 'alice', { approved: true });
    await decide(1_000, 'bob', { approved: false, dismissed: true });
    await h.runtime.start('files', { input: '/tmp/nobody' });
    advance(TTL_MS + 1);
    expect((await h.runtime.sweepExpired(now())).expired).toBe(1);

    const resolved = events.filter((event) => event.type === 'approval-resolved');
    expect(resolved).toHaveLength(5);
    for (const event of resolved) expect(event.requestedAt).toBeTypeOf('number');

    const response = await h.app.request('/insights', { headers: bearer() });
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ source: 'history', count: 5, until: now(), since: now() - 7 * 86_400_000 });
    expect(body['tools']).toEqual([
      {
        tool: 'delete_file',
        requests: 5,
        approved: 2,
        denied: 1,
        expired: 1,
        dismissed: 1,
        approvalRate: 2 / 3,
        timeToDecideMs: { median: 2_000, p90: 6_000, measured: 4 },
      },
    ]);
    expect(body['approvers']).toEqual([
      expect.objectContaining({
        approver: 'alice',
        requests: 2,
        approved: 2,
        approvalRate: 1,
        timeToDecideMs: { median: 2_000, p90: 6_000, measured: 2 },
      }),
      expect.objectContaining({ approver: 'bob', requests: 2, denied: 1, dismissed: 1, approvalRate: 0 }),
      expect.objectContaining({ approver: null, requests: 1, expired: 1, approvalRate: null, timeToDecideMs: null }),
    ]);

    // A later window leaves the first decisions out; ISO and epoch ms say the same.
    const since = NOW_MS + 5_000;
    for (const query of [String(since), new Date(since).toISOString()]) {
      const windowed = (await (await h.app.request(`/insights?since=${query}`, { headers: bearer() })).json()) as {
        count: number;
        since: number;
      };
      expect(windowed).toMatchObject({ count: 4, since });
    }
    // An emptied form field is the default window.
    expect(await (await h.app.request('/insights?since=', { headers: bearer() })).json()).toMatchObject({ count: 5 });
  });

  it('refuses a since that is not a time, older than 90 days or in the future, with 400 invalid_query', async () => {
    const { h, now } = decidedRuns();
    for (const since of ['yesterday', String(now() - 91 * 86_400_000), String(now() + 60_000)]) {
      const response = await h.app.request(`/insights?since=${encodeURIComponent(since)}`, { headers: bearer() });
      expect(response.status, since).toBe(400);
      expect(await response.json()).toMatchObject({ code: 'invalid_query' });
    }
  });

  it('is for token holders: 401 without a credential, 403 for an inbox session, on the API and the console page', async () => {
    const { h } = decidedRuns();
    expect((await h.app.request('/insights')).status).toBe(401);
    const cookie = await signIn(h.app, { inbox: (await inboxLinkUrl(h.runtime, 'carol')).url });
    for (const path of ['/insights', '/console/insights']) {
      const response = await h.app.request(path, { headers: { cookie } });
      expect(response.status, path).toBe(403);
      expect(await response.json()).toMatchObject({ code: 'inbox_session_not_allowed' });
    }
    const page = await (await h.app.request('/', { headers: { cookie } })).text();
    expect(page).not.toContain('console/insights');
  });
  it('counts a quorum request once per tool and each vote for its voter', async () => {
    const h = harness({ approvals: { required: 2 }, app: { clock: Date.now } });
    await h.app.request('/insights', { headers: bearer() });
    const run = await h.runtime.start('files', { input: '/tmp/quorum' });
    const approvalId = run.pendingApprovals[0]!.approvalId;
    for (const by of ['alice', 'bob'])
      await h.runtime.respond(run.runId, { approvalId, approvedBy: by, approved: true });
    const body = (await (await h.app.request('/insights', { headers: bearer() })).json()) as {
      tools: { requests: number; approved: number }[];
      approvers: { approver: string; approved: number }[];
    };
    expect(body.tools).toEqual([expect.objectContaining({ requests: 1, approved: 1 })]);
    expect(body.approvers.map((row) => [row.approver, row.approved])).toEqual([
      ['alice', 1],
      ['bob', 1],
    ]);
  });
});

describe('the console insights page', () => {
  it('shows the tables and bar charts, escaped, under the console CSP, linked from the navigation', async () => {
    const { h, decide } = decidedRuns();
    const cookie = await signIn(h.app, { token: 'test-bearer-token-0123456789', name: 'alice' });
    const empty = await h.app.request('/console/insights', { headers: { cookie } });
    expect(empty.status).toBe(200);
    expect(await empty.text()).toContain('No request was decided in this window.');

    await decide(3_000, 'alice', { approved: true });
    await decide(50_000, '<img src=x onerror=alert(1)>', { approved: false });
    const response = await h.app.request('/console/insights', { headers: { cookie } });
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(response.headers.get('content-security-policy')).not.toContain('unsafe-inline');
    const html = await response.text();
    expect(html).toContain('<a href="../console/insights">Insights</a>');
    expect(html).toContain('<caption class="visually-hidden">By tool</caption>');
    expect(html).toMatch(
      /<th scope="row"><code>delete_file<\/code><\/th><td>2<\/td><td>1<\/td><td>1<\/td><td>0<\/td><td>0<\/td><td>50%<\/td><td>3 s<\/td><td>50 s<\/td>/,
    );
    expect(html).toContain('<caption class="visually-hidden">By approver</caption>');
    expect(html).toContain('<svg role="img" aria-label="Approval rate by tool"');
    expect(html).toContain('<svg role="img" aria-label="Median time to decide by approver"');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).not.toContain('<img src=x');
    expect(html).not.toContain('style=');
  });
});
