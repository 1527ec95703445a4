// The console's session and its guards, over app.request: the cookie and what it may do, CSRF on every write, the
// assets and the tool schemas the editor checks against. The browser test drives the same routes in Chromium.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, createMemoryRuleStore, createRuntime, defineTool } from 'countersign';
import { createApprovalApp } from 'countersign/http';
import { approvalCard } from '../../src/http/console/approval-card.js';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';

const TOKEN = 'console-test-token-0123456789';
const form = (fields: Record<string, string>) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
});

function setup() {
  const deleteFile = defineTool({
    name: 'delete_file',
    description: 'Delete a file',
    input: z.object({ path: z.string().min(1) }),
    needsApproval: true,
    execute: ({ path }) => `deleted ${path}`,
  });
  const model = createScriptedModel(({ messages }) =>
    messages.at(-1)?.role === 'tool' ? textTurn('done') : toolCallTurn('delete_file', { path: '/tmp/x' }),
  );
  const runtime = createRuntime({ agents: [createAgent({ name: 'files', model, tools: [deleteFile] })] });
  const app = createApprovalApp(runtime, { bearerToken: TOKEN });
  const signIn = async (url = 'http://localhost/console/session') => {
    const response = await app.request(url, form({ token: TOKEN, name: 'alice' }));
    const cookie = response.headers.get('set-cookie') ?? '';
    return { response, cookie, pair: cookie.split(';')[0]! };
  };
  /** The CSRF token the console page hands the signed-in person. */
  const csrfOf = async (pair: string) =>
    /data-csrf="([^"]+)"/.exec(await (await app.request('/', { headers: { cookie: pair } })).text())![1]!;
  return { runtime, app, signIn, csrfOf };
}

describe('the console', () => {
  it('shows the sign-in form at / under a CSP that allows only its own scripts and styles', async () => {
    const { app } = setup();
    const response = await app.request('/');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(response.headers.get('content-security-policy')).not.toContain('unsafe-inline');
    expect(await response.text()).toContain('name="token"');
  });

  it('exchanges the token for an HttpOnly, SameSite=Strict cookie, Secure over https; a wrong token gets none', async () => {
    const { app, signIn } = setup();
    const wrong = await app.request('/console/session', form({ token: 'wrong-token-0123456789', name: 'mallory' }));
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('set-cookie')).toBeNull();
    const { response, cookie } = await signIn();
    expect(response.status).toBe(303);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).not.toMatch(/Secure/);
    expect((await signIn('https://localhost/console/session')).cookie).toMatch(/Secure/);
  });

  it('decides as the signed-in person only with the CSRF token; a tampered cookie is signed out', async () => {
    const { runtime, app, signIn, csrfOf } = setup();
    const run = await runtime.start('files', { input: 'go' });
    const approvalId = run.pendingApprovals[0]!.approvalId;
    const { pair } = await signIn();
    const decide = (fields: Record<string, string>, cookie = pair) =>
      app.request('/console/decide', {
        ...form({ runId: run.runId, approvalId, decision: 'approve', ...fields }),
        headers: { ...form({}).headers, cookie },
      });

    expect((await decide({})).status).toBe(403);
    expect((await decide({ csrf: 'x'.repeat(43) })).status).toBe(403);
    const [name, value] = pair.split('=') as [string, string];
    const [version, payload, mac] = value.split('.') as [string, string, string];
    const forged = Buffer.from(Buffer.from(payload, 'base64url').toString().replace('alice', 'admin')).toString(
      'base64url',
    );
    expect((await decide({ csrf: await csrfOf(pair) }, `${name}=${version}.${forged}.${mac}`)).status).toBe(401);
    expect((await runtime.get(run.runId)).status).toBe('awaitingApproval');

    const answer = await decide({ csrf: await csrfOf(pair) });
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe('../');
    expect((await runtime.get(run.runId)).audit.at(-1)).toMatchObject({
      decision: 'approved',
      by: 'alice',
      source: 'human',
    });
  });

  it('answers a CSRF token with a multi-byte character, and a history date past what a Date holds, with 400 problem details', async () => {
    const { runtime, app, signIn, csrfOf } = setup();
    const run = await runtime.start('files', { input: 'go' });
    const { pair } = await signIn();
    const csrf = await csrfOf(pair);
    const fields = { runId: run.runId, approvalId: run.pendingApprovals[0]!.approvalId, decision: 'approve' };
    // As long as the real token in characters, longer in bytes.
    for (const sent of [{ csrf: `${csrf.slice(0, -1)}é` }, {}]) {
      const answer = await app.request('/console/decide', {
        ...form({ ...fields, ...(sent.csrf === undefined ? {} : sent) }),
        headers: {
          ...form({}).headers,
          cookie: pair,
          ...(sent.csrf === undefined ? { 'x-csrf-token': `${csrf.slice(0, -1)}é` } : {}),
        },
      });
      expect(answer.status).toBe(400);
      expect(await answer.json()).toMatchObject({ code: 'malformed_csrf_token' });
    }
    expect((await runtime.get(run.runId)).status).toBe('awaitingApproval');
    for (const query of ['since=99999999999999999999', 'until=99999999999999999999', 'since=275760-09-13T00:00']) {
      const history = await app.request(`/console/history?${query}`, { headers: { cookie: pair } });
      expect(history.status, query).toBe(400);
      expect(await history.json()).toMatchObject({ code: 'invalid_query' });
      const lines = await app.request(`/console/history.jsonl?${query}`, { headers: { cookie: pair } });
      expect(lines.status, query).toBe(400);
    }
  });

  it('Approve for this run records scope run, as the signed-in person whatever name the form sends', async () => {
    const { runtime, app, signIn, csrfOf } = setup();
    const run = await runtime.start('files', { input: 'go' });
    const { pair } = await signIn();
    const fields = {
      runId: run.runId,
      approvalId: run.pendingApprovals[0]!.approvalId,
      decision: 'run',
      approvedBy: 'mallory',
      csrf: await csrfOf(pair),
    };
    const answer = await app.request('/console/decide', {
      ...form(fields),
      headers: { ...form({}).headers, cookie: pair },
    });
    expect(answer.status).toBe(303);
    expect((await runtime.get(run.runId)).audit.at(-1)).toMatchObject({
      decision: 'approved',
      scope: 'run',
      by: 'alice',
    });
  });

  it('Dismiss closes the request without a decision, recorded with source dismissed as the signed-in person; the call does not run', async () => {
    const { runtime, app, signIn, csrfOf } = setup();
    const run = await runtime.start('files', { input: 'go' });
    const { pair } = await signIn();
    expect(await (await app.request('/', { headers: { cookie: pair } })).text()).toContain(
      'value="dismiss" data-action="dismiss">Dismiss</button>',
    );
    const fields = {
      runId: run.runId,
      approvalId: run.pendingApprovals[0]!.approvalId,
      decision: 'dismiss',
      approvedBy: 'mallory',
      csrf: await csrfOf(pair),
    };
    const answer = await app.request('/console/decide', {
      ...form(fields),
      headers: { ...form({}).headers, cookie: pair },
    });
    expect(answer.status).toBe(303);
    const after = await runtime.get(run.runId);
    expect(after.audit.find((entry) => entry.approvalId === fields.approvalId)).toMatchObject({
      decision: 'denied',
      source: 'dismissed',
      by: 'alice',
    });
    expect(after.status).toBe('completed');
    expect(JSON.stringify(after.messages)).not.toContain('deleted /tmp/x');
  });

  it('Cancel run cancels an approved run still running, CSRF checked, as the signed-in person', async () => {
    const { runtime, app, signIn, csrfOf } = setup();
    const run = await runtime.start('files', { input: 'go' });
    // Approved, recorded only: the run is running and its call has not run yet.
    const recorded = await runtime.respond(
      run.runId,
      { approvalId: run.pendingApprovals[0]!.approvalId, approved: true, approvedBy: 'bob' },
      { mode: 'record' },
    );
    expect(recorded.status).toBe('running');
    const { pair } = await signIn();
    const cancel = (headers: Record<string, string>) =>
      app.request('/console/cancel', {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie: pair, ...headers },
        body: JSON.stringify({ runId: run.runId }),
      });
    expect((await cancel({})).status).toBe(403);
    expect((await runtime.get(run.runId)).status).toBe('running');
    const answer = await cancel({ 'x-csrf-token': await csrfOf(pair) });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ status: 'cancelled' });
    expect((await runtime.get(run.runId)).status).toBe('cancelled');
  });

  it('lets the session cookie read the API but never write through it', async () => {
    const { runtime, app, signIn } = setup();
    const run = await runtime.start('files', { input: 'go' });
    const { pair } = await signIn();
    expect((await app.request('/approvals', { headers: { cookie: pair } })).status).toBe(200);
    const write = await app.request(`/runs/${run.runId}/approvals/${run.pendingApprovals[0]!.approvalId}`, {
      method: 'POST',
      headers: { cookie: pair, 'content-type': 'application/json' },
      body: JSON.stringify({ approved: true, approvedBy: 'someone-else' }),
    });
    expect(write.status).toBe(401);
    expect((await runtime.get(run.runId)).status).toBe('awaitingApproval');
  });

  it("serves its script as a module and lists an agent's tool schemas for the editor", async () => {
    const { app, signIn } = setup();
    const script = await app.request('/console/assets/main.js');
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(await script.text()).toContain('import');
    expect((await app.request('/console/assets/..%2Fsecrets.js')).status).toBe(404);
    const { pair } = await signIn();
    const tools = (await (await app.request('/agents/files/tools', { headers: { cookie: pair } })).json()) as {
      tools: { name: string; parameters: unknown }[];
    };
    expect(tools.tools[0]).toMatchObject({ name: 'delete_file', parameters: { type: 'object', required: ['path'] } });
    expect((await app.request('/agents/files/tools')).status).toBe(401);
  });
});

describe('GET/POST/DELETE /rules', () => {
  it('lists, adds, disables and removes stored rules with the bearer token, and refuses without it', async () => {
    const rules = createMemoryRuleStore();
    const runtime = createRuntime({
      agents: [
        createAgent({ name: 'files', model: createScriptedModel([textTurn('hi')]), tools: [], ruleStore: rules }),
      ],
    });
    const app = createApprovalApp(runtime, { bearerToken: TOKEN, rules });
    const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
    expect(
      (
        await app.request('/rules', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"action":"allow"}',
        })
      ).status,
    ).toBe(401);
    const added = await app.request('/rules', {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ tool: 'search_*', action: 'allow', reason: 'read-only' }),
    });
    expect(added.status).toBe(201);
    const { rule } = (await added.json()) as { rule: { id: string } };
    expect(
      (await app.request('/rules', { method: 'POST', headers: auth, body: JSON.stringify({ action: 'maybe' }) }))
        .status,
    ).toBe(400);
    const disabled = await app.request(`/rules/${rule.id}`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ enabled: false }),
    });
    expect(((await disabled.json()) as { rule: { enabled: boolean } }).rule.enabled).toBe(false);
    const listed = (await (await app.request('/rules', { headers: auth })).json()) as {
      items: { id: string; enabled: boolean }[];
    };
    expect(listed.items).toEqual([expect.objectContaining({ id: rule.id, enabled: false, tool: 'search_*' })]);
    expect((await app.request(`/rules/${rule.id}`, { method: 'DELETE', headers: auth })).status).toBe(200);
    expect((await app.request(`/rules/${rule.id}`, { method: 'DELETE', headers: auth })).status).toBe(404);
    expect(await rules.list()).toEqual([]);
  });

  it('refuses a rule whose approver list names nobody, over the API and on the rules page, and adds nothing', async () => {
    const rules = createMemoryRuleStore();
    const runtime = createRuntime({
      agents: [
        createAgent({ name: 'files', model: createScriptedModel([textTurn('hi')]), tools: [], ruleStore: rules }),
      ],
    });
    const app = createApprovalApp(runtime, { bearerToken: TOKEN, rules });
    const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
    for (const approvers of [[], [' ']]) {
      const refused = await app.request('/rules', {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ tool: 'deploy', action: 'ask', approvers }),
      });
      expect(refused.status).toBe(400);
      const problem = (await refused.json()) as { code: string; detail: string; issues: { path: string }[] };
      expect(problem.code).toBe('invalid_body');
      expect(problem.issues[0]!.path).toMatch(/^approvers/);
    }
    await expect(
      problem400Detail(
        await app.request('/rules', { method: 'POST', headers: auth, body: '{"action":"ask","approvers":[]}' }),
      ),
    ).resolves.toContain('at least one approver');
    const signIn = await app.request('/console/session', form({ token: TOKEN, name: 'alice' }));
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
    const csrf = /data-csrf="([^"]+)"/.exec(await (await app.request('/', { headers: { cookie } })).text())![1]!;
    const page = await app.request('/console/rules', {
      ...form({ csrf, tool: 'deploy', action: 'ask', approvers: ' , ,' }),
      headers: { ...form({}).headers, cookie },
    });
    expect(page.status).toBe(400);
    expect(await page.text()).toContain('at least one approver');
    expect(await rules.list()).toEqual([]);
  });
});

const problem400Detail = async (response: Response) => {
  expect(response.status).toBe(400);
  return ((await response.json()) as { detail: string }).detail;
};

describe('console sessions and cards', () => {
  const model = createScriptedModel([textTurn('hi')]);
  it('signs in with a name alone when the app is insecure (loopback demos), and a removed token signs its sessions out', async () => {
    const runtime = createRuntime({ agents: [createAgent({ name: 'a', model, tools: [] })] });
    const insecure = createApprovalApp(runtime, { insecure: true });
    const demo = await insecure.request('http://127.0.0.1/console/session', form({ name: 'demo' }));
    expect(demo.status).toBe(303);
    expect(demo.headers.get('set-cookie')).toMatch(/^countersign_console=/);

    const other = 'console-test-token-rotated-out';
    const before = createApprovalApp(runtime, { bearerToken: [TOKEN, other] });
    const cookie = (await before.request('/console/session', form({ token: other, name: 'alice' }))).headers
      .get('set-cookie')!
      .split(';')[0]!;
    expect(await (await before.request('/', { headers: { cookie } })).text()).toContain('Signed in as');
    const after = createApprovalApp(runtime, { bearerToken: TOKEN });
    expect(await (await after.request('/', { headers: { cookie } })).text()).toContain('name="token"');
  });

  it('shows votes when the request carries them, and warns of a call whose outcome is unknown', () => {
    const request = {
      approvalId: 'apr_1',
      toolCallId: 'call_1',
      toolName: 'transfer',
      args: { amount: 5 },
      argsDigest: 'x',
      description: 'Transfer 5',
      requestedAt: 0,
      warnings: [],
      outcomeUnknown: true,
      votes: [{ by: 'alice', approved: true, at: 0 }],
      quorum: { required: 2, distinctPeople: true, excludeRequester: true, anyDenyDenies: true },
    };
    const html = approvalCard({ runId: 'run_1', agentName: 'bank', request }, { csrf: 'c', runPending: [request] });
    expect(html).toContain('Needs 2 approvals: 1 so far (alice), 1 more needed');
    // A dismissal is not a vote: a quorum request takes Approve or Deny only.
    expect(html).not.toContain('data-action="dismiss"');
    expect(html).toContain('Outcome unknown');
  });

  it("names the chain of agents down to a sub-agent's request, and none on a run's own call", () => {
    const own = {
      approvalId: 'apr_1',
      toolCallId: 'call_1',
      toolName: 'deploy',
      args: { version: '1.4' },
      argsDigest: 'x',
      description: 'Deploy 1.4',
      requestedAt: 0,
      warnings: [],
    };
    const inner = {
      ...own,
      path: [
        { agentName: 'ops', toolCallId: 'call_1', toolName: 'ops' },
        { agentName: 'deployer<x>', toolCallId: 'call_2', toolName: 'deployer' },
      ],
    };
    const card = (request: typeof own) =>
      approvalCard({ runId: 'run_1', agentName: 'lead', request }, { csrf: 'c', runPending: [request] });
    expect(card(inner)).toContain(
      '<p class="delegation">↳ Asked by sub-agent <strong>deployer&lt;x&gt;</strong>: <strong>lead</strong> › <strong>ops</strong> › <strong>deployer&lt;x&gt;</strong> (via delegate calls ops <code>call_1</code> › deployer <code>call_2</code>). You decide its call <code>deploy</code> itself.</p>',
    );
    expect(card(own)).not.toContain('class="delegation"');
  });

  it('offers no Approve for this run on a run that makes one call, and still Approve for this session on one with a session', () => {
    const request = {
      approvalId: 'apr_1',
      toolCallId: 'call_1',
      toolName: 'read_file',
      args: {},
      argsDigest: 'x',
      description: 'Read',
      requestedAt: 0,
      warnings: [],
      oneCallRun: true as const,
    };
    const alone = approvalCard(
      { runId: 'run_1', agentName: 'mcp-gateway', request },
      { csrf: 'c', runPending: [request] },
    );
    expect(alone).not.toContain('Approve for this run');
    expect(alone).toContain('>Approve</button>');
    const inSession = approvalCard(
      { runId: 'run_2', agentName: 'mcp-gateway', sessionId: 'chat-1', request },
      { csrf: 'c', runPending: [request] },
    );
    expect(inSession).toContain('Approve for this session');
  });

  it("offers a button (so a key) only for a decision the request offers, and Approve all or Deny all only when all of the run's offer it", () => {
    const base = {
      toolCallId: 'call_1',
      toolName: 'refund',
      args: {},
      argsDigest: 'x',
      description: 'Refund',
      requestedAt: 0,
      warnings: [],
    };
    const onceOnly = { ...base, approvalId: 'apr_1', decisions: ['approve', 'deny'] as const };
    const denyOnly = { ...base, approvalId: 'apr_2', decisions: ['deny'] as const };
    const actions = (html: string) => [...html.matchAll(/data-action="([^"]+)"/g)].map((match) => match[1]);
    const card = approvalCard(
      { runId: 'run_1', agentName: 'billing', sessionId: 'chat-1', request: onceOnly },
      { csrf: 'c', runPending: [onceOnly, denyOnly] },
    );
    expect(actions(card)).toEqual(['approve', 'deny', 'dismiss', 'deny-all', 'cancel-run']);
    const denying = approvalCard(
      { runId: 'run_1', agentName: 'billing', request: denyOnly },
      { csrf: 'c', runPending: [denyOnly] },
    );
    expect(actions(denying)).toEqual(['deny', 'dismiss', 'cancel-run']);
    const runWide = { ...base, approvalId: 'apr_3', decisions: ['approve', 'run', 'edit'] as const };
    const wider = approvalCard(
      { runId: 'run_2', agentName: 'billing', sessionId: 'chat-1', request: runWide },
      { csrf: 'c', runPending: [runWide] },
    );
    expect(actions(wider)).toEqual(['approve', 'approve-run', 'dismiss', 'edit', 'cancel-run']);
    expect(wider).not.toContain('name="reason"');
  });
});
