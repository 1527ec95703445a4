// resumeMode 'record': the approval app (and a chat click) records the decision or the start and answers at once,
// 202 once the run is ready, leaving the run to the process that follows it; nothing goes on here, no queue needed.
import { describe, expect, it } from 'vitest';
import { ConfigError, createRuntime } from 'countersign';
import { answerClick, type Markup } from 'countersign/channels';
import { createApprovalApp } from 'countersign/http';
import { harness, json, LINK_SECRET, startPaused, TOKEN } from './harness.js';

type Body = Record<string, any>;
const read = async (res: Response) => ({
  status: res.status,
  location: res.headers.get('location'),
  body: (await res.json()) as Body,
});
const plainMarkup: Markup = {
  escape: (text) => text,
  strong: (text) => text,
  code: (text) => text,
  who: (by) => by ?? 'someone',
};

/** The harness's run, and an app with resumeMode 'record' on a runtime of its own over the same store (no queue). */
function recordingApp() {
  const h = harness();
  const errors: unknown[] = [];
  const front = createRuntime({ agents: [h.runtime.agent('files')], store: h.store, links: { secret: LINK_SECRET } });
  const app = createApprovalApp(front, {
    bearerToken: TOKEN,
    resumeMode: 'record',
    onError: (error) => errors.push(error),
  });
  return { h, front, app, errors };
}

describe("resumeMode: 'record'", () => {
  it('records a decision and answers 202 at once; the run goes on only where it is resumed, and a repeat is a 200 duplicate', async () => {
    const { h, app, errors } = recordingApp();
    const { runId, approvalId } = await startPaused(h);
    const modelCalls = h.modelCalls();
    const res = await read(
      await app.request(`/runs/${runId}/approvals/${approvalId}`, json({ approved: true, approvedBy: 'alice' })),
    );
    expect(res).toMatchObject({
      status: 202,
      location: `/runs/${runId}`,
      body: { status: 'running', accepted: true, runId, duplicate: false },
    });
    expect(h.executed).toEqual([]);
    expect(h.modelCalls()).toBe(modelCalls);
    expect((await h.runtime.get(runId)).audit).toMatchObject([{ approvalId, decision: 'approved', by: 'alice' }]);

    const repeat = await read(
      await app.request(`/runs/${runId}/approvals/${approvalId}`, json({ approved: true, approvedBy: 'alice' })),
    );
    expect(repeat).toMatchObject({ status: 200, body: { status: 'running', duplicate: true, run: { runId } } });
    expect(h.executed).toEqual([]);
    expect((await h.runtime.resume(runId)).status).toBe('completed');
    expect(h.executed).toEqual(['/tmp/x']);
    expect(errors).toEqual([]);
  });

  it('answers 200 with the run while other approvals of it still wait, and 202 for the blanket decision that makes it ready', async () => {
    const { h, app } = recordingApp();
    const started = await read(await h.app.request('/runs', json({ agent: 'files', input: '/a /b' })));
    const { runId, pendingApprovals } = started.body['run'] as {
      runId: string;
      pendingApprovals: { approvalId: string }[];
    };
    const first = await read(
      await app.request(
        `/runs/${runId}/approvals/${pendingApprovals[0]!.approvalId}`,
        json({ approved: true, approvedBy: 'alice' }),
      ),
    );
    expect(first).toMatchObject({ status: 200, body: { status: 'awaitingApproval', duplicate: false } });
    const rest = await read(
      await app.request(`/runs/${runId}/approvals`, json({ denyAll: true, approvedBy: 'bob', reason: 'not /b' })),
    );
    expect(rest).toMatchObject({
      status: 202,
      location: `/runs/${runId}`,
      body: { status: 'running', accepted: true, runId, results: [{ ok: true, duplicate: false }] },
    });
    expect(h.executed).toEqual([]);
    const run = await h.runtime.resume(runId);
    expect(run.status).toBe('completed');
    expect(h.executed).toEqual(['/a']);
  });

  it('starts a run by recording it: 202 before any model call', async () => {
    const { h, app } = recordingApp();
    const res = await read(
      await app.request('/runs', json({ agent: 'files', input: '/tmp/r', runId: 'recorded-run' })),
    );
    expect(res).toMatchObject({
      status: 202,
      location: '/runs/recorded-run',
      body: { status: 'running', accepted: true, runId: 'recorded-run' },
    });
    expect(h.modelCalls()).toBe(0);
    expect((await h.runtime.resume('recorded-run')).status).toBe('awaitingApproval');
  });

  it('answers a one-click link with 202 "Decision recorded" and a chat click with the recorded wording, running nothing', async () => {
    const { h, front, app } = recordingApp();
    const { runId, approvalId } = await startPaused(h);
    const tokens = await front.linkTokens(runId, approvalId, { approvedBy: 'carol' });
    const page = await app.request(`/links/${tokens.approve}`, { method: 'POST' });
    expect(page.status).toBe(202);
    expect(await page.text()).toContain('<h1>Decision recorded</h1>');
    expect(h.executed).toEqual([]);

    const other = await startPaused(h, '/tmp/y');
    const chat = await front.linkTokens(other.runId, other.approvalId);
    const reply = await answerClick(front, {
      token: chat.approve!,
      clicker: 'pager:dave',
      channel: 'Pager',
      markup: plainMarkup,
      resumeMode: 'record',
      resumeTimeoutMs: 5_000,
      onError: (error) => {
        throw error;
      },
    });
    expect(reply).toEqual({
      short: 'Decision recorded.',
      text: 'Decision by pager:dave recorded; the run is carrying on.',
      replace: true,
    });
    expect(h.executed).toEqual([]);
    expect((await h.runtime.get(other.runId)).audit).toMatchObject([{ decision: 'approved', by: 'pager:dave' }]);
  });

  it('refuses an unknown mode by name at creation, listing the three', () => {
    const { front } = recordingApp();
    const create = () => createApprovalApp(front, { bearerToken: TOKEN, resumeMode: 'later' as 'record' });
    expect(create).toThrow(ConfigError);
    expect(create).toThrow(/resumeMode/);
    expect(create).toThrow(/'inline'.*'record'.*'enqueue'|"inline".*"record".*"enqueue"/);
  });
});
