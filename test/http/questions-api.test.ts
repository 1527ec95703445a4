// A question answered through the HTTP API (POST /runs/:runId/approvals/:approvalId with `answer`): a good answer is
// recorded and handed back typed; a bad one is a 422 naming each field, with nothing recorded; and the attack rows:
// extra fields, a choice outside the options, an oversized text, an answer to a request that asks nothing, the same
// answer twice and a different one after it.
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { createApprovalApp } from 'countersign/http';
import { ONE_CHOICE, questionWorld, WHOLE_FORM } from '../support/question-world.js';
import { bearer, harness, json, startPaused, TOKEN } from './harness.js';

const GOOD = {
  region: 'eu-west-1',
  zones: ['a', 'c'],
  name: 'blue',
  nodes: 3,
  public: false,
  launch: '2026-03-01',
};

async function asked(form: z.ZodObject = WHOLE_FORM) {
  const world = questionWorld();
  const app = createApprovalApp(world.runtime, { bearerToken: TOKEN });
  const { runId, approvalId } = await world.ask(form);
  const post = (body: unknown) => app.request(`/runs/${runId}/approvals/${approvalId}`, json(body));
  return { world, app, runId, approvalId, post };
}

describe('POST /runs/:runId/approvals/:approvalId with an answer', () => {
  it('lists the question with its form, records a good answer and hands it back typed', async () => {
    const { app, world, runId, post } = await asked();
    const listed = (await (await app.request('/approvals', { headers: bearer() })).json()) as {
      items: { request: { question?: { fields: { name: string; kind: string }[] } } }[];
    };
    expect(listed.items[0]!.request.question!.fields.map((field) => [field.name, field.kind])).toEqual([
      ['region', 'choice'],
      ['zones', 'choices'],
      ['name', 'text'],
      ['note', 'longText'],
      ['nodes', 'number'],
      ['public', 'boolean'],
      ['launch', 'date'],
    ]);
    const res = await post({ approved: true, approvedBy: 'alice', answer: GOOD });
    expect(res.status).toBe(200);
    expect(await world.state(runId)).toMatchObject({ status: 'approved', by: 'alice', answer: GOOD });
  });

  it('refuses an answer that does not fit with 422 invalid_answer, an issue per field, and records nothing', async () => {
    const { world, runId, post } = await asked();
    const res = await post({
      approved: true,
      answer: { ...GOOD, region: 'mars-1', nodes: 12, name: 'x'.repeat(41), admin: true },
    });
    expect(res.status).toBe(422);
    const problem = (await res.json()) as { code: string; issues: { path: string; message: string }[] };
    expect(problem.code).toBe('invalid_answer');
    expect(problem.issues).toEqual([
      { path: 'admin', message: 'is not a field of the question' },
      { path: 'region', message: 'must be one of eu-west-1, us-east-1, ap-south-1' },
      { path: 'name', message: 'is longer than 40 characters' },
      { path: 'nodes', message: 'must be at most 9' },
    ]);
    expect(await world.state(runId)).toMatchObject({ status: 'pending' });
    expect((await world.runtime.get(runId)).audit).toEqual([]);
  });

  it('refuses an approval of a question without an answer, and takes a denial as declining', async () => {
    const { world, runId, post } = await asked(ONE_CHOICE);
    const bare = await post({ approved: true });
    expect(bare.status).toBe(400);
    expect(((await bare.json()) as { detail: string }).detail).toMatch(/is a question; approve it with its answer/);
    expect((await post({ approved: false, approvedBy: 'bob', reason: 'not mine to say' })).status).toBe(200);
    expect(await world.state(runId)).toMatchObject({ status: 'denied', by: 'bob', reason: 'not mine to say' });
  });

  it('takes the same answer twice as a repeat and refuses a different one after it: one decision', async () => {
    const { world, runId, post } = await asked(ONE_CHOICE);
    const first = await post({ approved: true, approvedBy: 'alice', answer: { region: 'us-east-1' } });
    expect(((await first.json()) as { duplicate: boolean }).duplicate).toBe(false);
    const again = await post({ approved: true, approvedBy: 'alice', answer: { region: 'us-east-1' } });
    expect(again.status).toBe(200);
    expect(((await again.json()) as { duplicate: boolean }).duplicate).toBe(true);
    const other = await post({ approved: true, approvedBy: 'alice', answer: { region: 'eu-west-1' } });
    expect(other.status).toBe(409);
    expect((await world.runtime.get(runId)).audit).toHaveLength(1);
    expect(await world.state(runId)).toMatchObject({ answer: { region: 'us-east-1' } });
  });

  it('refuses an answer to a request that asks no question, and an answer with a denial', async () => {
    const h = harness();
    const { runId, approvalId } = await startPaused(h);
    const res = await h.app.request(
      `/runs/${runId}/approvals/${approvalId}`,
      json({ approved: true, answer: { path: '/etc/passwd' } }),
    );
    expect(res.status).toBe(400);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/asks no question; leave answer out/);
    expect(h.executed).toEqual([]);
    expect((await h.runtime.get(runId)).audit).toEqual([]);

    const { post, world, runId: asking } = await asked(ONE_CHOICE);
    const declined = await post({ approved: false, answer: { region: 'eu-west-1' } });
    expect(declined.status).toBe(400);
    expect((await world.runtime.get(asking)).audit).toEqual([]);
  });

  it('refuses an answer that is not an object of values at the boundary', async () => {
    const { post } = await asked(ONE_CHOICE);
    const res = await post({ approved: true, answer: { region: { $ne: null } } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { code: string }).code).toBe('invalid_body');
  });
});

describe('POST /console/decide with an answer', () => {
  async function console_() {
    const world = questionWorld();
    const app = createApprovalApp(world.runtime, { bearerToken: TOKEN });
    const signIn = await app.request('/console/session', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: TOKEN, name: 'alice' }).toString(),
    });
    const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0]!;
    const csrf = /data-csrf="([^"]+)"/.exec(await (await app.request('/', { headers: { cookie } })).text())![1]!;
    const decide = (body: Record<string, unknown>) =>
      app.request('/console/decide', {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/json', 'x-csrf-token': csrf },
        body: JSON.stringify({ csrf, ...body }),
      });
    return { world, decide };
  }

  it('reads the typed form, refuses a bad answer with each field and records nothing, then records a good one', async () => {
    const { world, decide } = await console_();
    const { runId, approvalId } = await world.ask(WHOLE_FORM);
    const fields = (pairs: [string, string][]) => pairs.map(([name, value]) => [`answer.${name}`, value]);
    const base: [string, string][] = [
      ['zones', 'a'],
      ['name', 'blue'],
      ['public', 'true'],
      ['launch', '2026-03-01'],
    ];
    const bad = await decide({
      runId,
      approvalId,
      decision: 'answer',
      answerFields: fields([...base, ['region', 'mars-1'], ['nodes', 'x'], ['admin', '1']]),
    });
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as { issues: { path: string }[] }).issues.map((issue) => issue.path)).toEqual([
      'admin',
      'region',
      'nodes',
    ]);
    expect((await world.runtime.get(runId)).audit).toEqual([]);
    const good = await decide({
      runId,
      approvalId,
      decision: 'answer',
      answerFields: fields([...base, ['region', 'us-east-1'], ['nodes', '2']]),
    });
    expect(good.status).toBe(200);
    expect(await world.state(runId)).toMatchObject({
      status: 'approved',
      by: 'alice',
      answer: { region: 'us-east-1', nodes: 2, public: true, zones: ['a'] },
    });
  });

  it('never takes Answer on a request that asks no question as an approval', async () => {
    const { world, decide } = await console_();
    const other = await world.runtime.requestApproval({ tool: 'deploy', args: { service: 'billing' } });
    const { request } = (await other.status()) as { request: { approvalId: string } };
    const res = await decide({ runId: other.id, approvalId: request.approvalId, decision: 'answer', answerFields: [] });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/asks no question/);
    expect(await other.status()).toMatchObject({ status: 'pending' });
  });
});
