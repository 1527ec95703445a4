// A question's one-click links: the approve link's page is the form (escaped, nothing decided by opening it), a
// post of it is the answer (read from the form's text, typed, checked), a refused one shows the form again with each
// field's problem and spends nothing; the deny link declines. Attack rows: extra fields, a choice outside the
// options, an oversized text, the answer posted twice, a wider link, an answer posted to a request that asks nothing.
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { createApprovalApp } from 'countersign/http';
import { linkUrls, TEST_BASE_URL } from '../support/link-urls.js';
import { ONE_CHOICE, questionWorld, WHOLE_FORM } from '../support/question-world.js';
import { harness, startPaused, TOKEN } from './harness.js';

const path = (url: string) => url.slice(TEST_BASE_URL.length);

async function asked(form: z.ZodObject = WHOLE_FORM, options: { approvedBy?: string } = {}) {
  const world = questionWorld();
  const app = createApprovalApp(world.runtime, { bearerToken: TOKEN });
  const { runId, approvalId } = await world.ask(form);
  const links = await linkUrls(world.runtime, runId, approvalId, options);
  const post = (url: string, pairs: [string, string][]) =>
    app.request(path(url), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(pairs).toString(),
    });
  const answer = (pairs: [string, string][]) =>
    post(links.approve, [
      ['form', 'answer'],
      ...pairs.map(([name, value]): [string, string] => [`answer.${name}`, value]),
    ]);
  return { world, app, runId, links, post, answer };
}

const GOOD: [string, string][] = [
  ['region', 'ap-south-1'],
  ['zones', 'a'],
  ['zones', 'b'],
  ['name', 'blue'],
  ['nodes', '3'],
  ['public', 'true'],
  ['launch', '2026-03-01'],
];

describe('the link page of a question', () => {
  it('shows the form, escaped, and opening it decides nothing', async () => {
    const world = questionWorld();
    const app = createApprovalApp(world.runtime, { bearerToken: TOKEN });
    const handle = await world.runtime.requestInput({
      question: 'Pick <script>alert(1)</script> a region',
      answer: WHOLE_FORM,
    });
    const { request } = (await handle.status()) as { request: { approvalId: string } };
    const links = await linkUrls(world.runtime, handle.id, request.approvalId);
    const page = await app.request(path(links.approve));
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).not.toContain('<script>alert(1)</script>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    for (const input of [
      'type="radio" name="answer.region" value="eu-west-1"',
      'type="checkbox" name="answer.zones" value="a"',
      'name="answer.name" id="q-name" required aria-describedby="q-name-hint" type="text" value="" maxlength="40"',
      '<textarea name="answer.note"',
      'type="number"',
      'type="checkbox" name="answer.public" id="q-public" value="true"',
      'type="date"',
    ])
      expect(html).toContain(input);
    expect(html).toContain('one of eu-west-1, us-east-1, ap-south-1');
    expect(html).toContain('a whole number from 1 to 9');
    expect((await world.state(handle.id)).status).toBe('pending');
  });

  it('records a posted answer with its types read from the form, and says so', async () => {
    const { world, runId, answer } = await asked(WHOLE_FORM, { approvedBy: 'alice@example.com' });
    const res = await answer(GOOD);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('Answered by alice@example.com');
    expect(await world.state(runId)).toMatchObject({
      status: 'approved',
      by: 'alice@example.com',
      answer: { region: 'ap-south-1', zones: ['a', 'b'], name: 'blue', nodes: 3, public: true, launch: '2026-03-01' },
    });
  });

  it('shows the form again with each problem and what was typed, records nothing and spends nothing', async () => {
    const { world, runId, answer } = await asked();
    const bad = await answer([
      ...GOOD.filter(([name]) => name !== 'region' && name !== 'name' && name !== 'nodes'),
      ['region', 'mars-1'],
      ['name', 'x'.repeat(5000)],
      ['nodes', 'three'],
      ['admin', 'true'],
    ]);
    expect(bad.status).toBe(422);
    const html = await bad.text();
    expect(html).toContain('Not recorded');
    expect(html).toContain('Region must be one of eu-west-1, us-east-1, ap-south-1');
    expect(html).toContain('Cluster name is longer than 40 characters');
    expect(html).toContain('nodes must be a number');
    expect(html).toContain('admin is not a field of the question');
    expect(html).toContain('value="three"');
    expect((await world.runtime.get(runId)).audit).toEqual([]);
    // The token was not spent: the corrected answer goes through.
    expect((await answer(GOOD)).status).toBe(200);
    expect((await world.state(runId)).status).toBe('approved');
  });

  it('takes the same answer posted twice once, and refuses a different one after it', async () => {
    const { world, runId, answer } = await asked(ONE_CHOICE);
    expect((await answer([['region', 'eu-west-1']])).status).toBe(200);
    // The question is no longer pending: the repeat is told it changed nothing.
    const again = await answer([['region', 'eu-west-1']]);
    expect(again.status).toBe(409);
    expect(await again.text()).toMatch(/Already approved by .*; your click changed nothing/);
    const other = await answer([['region', 'us-east-1']]);
    expect(other.status).toBeGreaterThanOrEqual(400);
    expect((await world.runtime.get(runId)).audit).toHaveLength(1);
    expect(await world.state(runId)).toMatchObject({ answer: { region: 'eu-west-1' } });
  });

  it('declines with the deny link, and refuses to answer through a wider link', async () => {
    const { world, runId, app, links, post } = await asked(ONE_CHOICE);
    const wider = await app.request(path(links.approveForRun));
    expect(wider.status).toBe(400);
    expect(await wider.text()).toContain('cannot answer a question');
    expect(
      (
        await post(links.approveForRun, [
          ['form', 'answer'],
          ['answer.region', 'eu-west-1'],
        ])
      ).status,
    ).toBe(400);
    const deny = await app.request(path(links.deny));
    expect(await deny.text()).toContain('Decline');
    expect((await post(links.deny, [])).status).toBe(200);
    expect((await world.state(runId)).status).toBe('denied');
  });

  it('decides a request that asks nothing as before, whatever answer a post forges', async () => {
    const h = harness();
    const { runId, approvalId } = await startPaused(h);
    const links = await linkUrls(h.runtime, runId, approvalId);
    const res = await h.app.request(path(links.approve), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'form=answer&answer.path=%2Fetc%2Fpasswd',
    });
    expect(res.status).toBe(200);
    expect(h.executed).toEqual(['/tmp/x']);
  });
});
