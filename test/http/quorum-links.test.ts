// Links and the inbox on a request several people must approve: the pages show the votes so far and who may still
// vote; a click is a vote and its page says how many more approvals are needed, not "Approved"; a spent link says
// the vote was already counted.
import { describe, expect, it } from 'vitest';
import { inboxLinkUrl, linkUrls } from '../support/link-urls.js';
import { harness } from './harness.js';

const tokenOf = (url: string, segment: 'inbox' | 'links') =>
  url.slice(url.lastIndexOf(`/${segment}/`) + segment.length + 2);
const title = (html: string) => /<h1>(.*?)<\/h1>/.exec(html)?.[1];

describe('quorum on link pages and the inbox', () => {
  it('a click is a vote: the page says how many more are needed; a repeat says it was counted; the second voter settles it', async () => {
    const h = harness({ approvals: { required: 2, from: ['ana', 'bo', 'cy'] } });
    const run = await h.runtime.start('files', { input: '/tmp/x', requestedBy: 'cy' });
    const approvalId = run.pendingApprovals[0]!.approvalId;
    const ana = await linkUrls(h.runtime, run.runId, approvalId, { approvedBy: 'ana' });
    const path = `/links/${tokenOf(ana.approve, 'links')}`;

    const confirm = await (await h.app.request(path)).text();
    expect(confirm).toContain('Needs 2 approvals: 0 so far, 2 more needed; may still vote: ana, bo');

    const voted = await (await h.app.request(path, { method: 'POST' })).text();
    expect(title(voted)).toBe('Vote recorded');
    expect(voted).toContain('Vote by you recorded: 1 of 2 approvals, 1 more approval needed.');
    expect(h.executed).toEqual([]);

    const again = await h.app.request(path, { method: 'POST' });
    expect(await again.text()).toContain(
      'This vote was already counted; nothing was done again: 1 of 2 approvals, 1 more approval needed.',
    );

    const inbox = await inboxLinkUrl(h.runtime, 'bo');
    const listed = await (await h.app.request(`/inbox/${tokenOf(inbox.url, 'inbox')}`)).text();
    // cy asked for the run, so the inbox does not offer cy as a voter.
    expect(listed).toContain('Needs 2 approvals: 1 so far (ana), 1 more needed; may still vote: bo</p>');
    const bo = await linkUrls(h.runtime, run.runId, approvalId, { approvedBy: 'bo' });
    const settled = await (await h.app.request(`/links/${tokenOf(bo.approve, 'links')}`, { method: 'POST' })).text();
    expect(title(settled)).toBe('Approved');
    expect(h.executed).toEqual(['/tmp/x']);
  });
});
