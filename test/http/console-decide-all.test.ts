// Approve all / Deny all on the console decide the approvals the person saw and nothing else: the page's forms carry
// their ids, the server decides only those, and a request that arrived since waits for its own decision.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, createRuntime, defineTool } from 'countersign';
import { createApprovalApp } from 'countersign/http';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';

const TOKEN = 'console-decide-all-token-0123456789';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

function setup() {
  const deleteFile = defineTool({
    name: 'delete_file',
    description: 'Delete a file',
    input: z.object({ path: z.string().min(1) }),
    needsApproval: true,
    execute: ({ path }) => `deleted ${path}`,
  });
  const model = createScriptedModel(({ messages }) =>
    messages.at(-1)?.role === 'tool'
      ? textTurn('done')
      : toolCallTurn([
          { name: 'delete_file', args: { path: '/tmp/a' } },
          { name: 'delete_file', args: { path: '/tmp/b' } },
        ]),
  );
  const runtime = createRuntime({
    agents: [
      createAgent({
        name: 'files',
        model,
        tools: [deleteFile],
        decisionSecret: 'console-decide-all-secret-0123456789',
      }),
    ],
  });
  const app = createApprovalApp(runtime, { bearerToken: TOKEN });
  const signIn = async () => {
    const response = await app.request('/console/session', {
      method: 'POST',
      headers: FORM,
      body: new URLSearchParams({ token: TOKEN, name: 'alice' }).toString(),
    });
    const cookie = response.headers.get('set-cookie')!.split(';')[0]!;
    const page = await (await app.request('/', { headers: { cookie } })).text();
    return { cookie, page, csrf: /data-csrf="([^"]+)"/.exec(page)![1]! };
  };
  return { runtime, app, signIn };
}

describe('console Approve all', () => {
  it('decides only the listed approvals (the ones the person saw): the other request of the run still waits', async () => {
    const { runtime, app, signIn } = setup();
    const run = await runtime.start('files', { input: 'go' });
    const [seen, unseen] = run.pendingApprovals;
    const { cookie, csrf } = await signIn();
    const answer = await app.request('/console/decide-all', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-csrf-token': csrf, cookie },
      body: JSON.stringify({
        runId: run.runId,
        decision: 'approve',
        approvalIds: [seen!.approvalId],
        signatures: run.pendingApprovals.map((request) => request.signature),
      }),
    });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({
      status: 'awaitingApproval',
      results: [{ approvalId: seen!.approvalId, ok: true }],
    });
    const after = await runtime.get(run.runId);
    expect(after.audit.map((entry) => entry.approvalId)).toEqual([seen!.approvalId]);
    expect(after.pendingApprovals.map((request) => request.approvalId)).toEqual([unseen!.approvalId]);
  });

  it('refuses a blanket decision that lists no approvals, and decides nothing', async () => {
    const { runtime, app, signIn } = setup();
    const run = await runtime.start('files', { input: 'go' });
    const { cookie, csrf } = await signIn();
    const answer = await app.request('/console/decide-all', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-csrf-token': csrf, cookie },
      body: JSON.stringify({
        runId: run.runId,
        decision: 'approve',
        signatures: run.pendingApprovals.map((request) => request.signature),
      }),
    });
    expect(answer.status).toBe(400);
    expect(await answer.json()).toMatchObject({ code: 'invalid_body' });
    expect((await runtime.get(run.runId)).audit).toEqual([]);
  });

  it("the no-script form carries the ids of the run's cards it shows, and posting it decides those", async () => {
    const { runtime, app, signIn } = setup();
    const run = await runtime.start('files', { input: 'go' });
    const { cookie, csrf, page } = await signIn();
    const form = /<form method="post" action="console\/decide-all"[\s\S]*?<\/form>/.exec(page)![0];
    const ids = [...form.matchAll(/name="approvalIds" value="([^"]+)"/g)].map((match) => match[1]);
    expect(ids.sort()).toEqual(run.pendingApprovals.map((request) => request.approvalId).sort());
    const fields = new URLSearchParams({ csrf, runId: run.runId, decision: 'approve' });
    for (const request of run.pendingApprovals) {
      fields.append('approvalIds', request.approvalId);
      fields.append('signatures', request.signature!);
    }
    const answer = await app.request('/console/decide-all', {
      method: 'POST',
      headers: { ...FORM, cookie },
      body: fields.toString(),
    });
    expect(answer.status).toBe(303);
    expect((await runtime.get(run.runId)).status).toBe('completed');
  });
});
