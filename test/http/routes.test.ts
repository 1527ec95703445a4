import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  createMemoryStore,
  createRuntime,
  StoreUnavailableError,
  type Runtime,
  type SnapshotStore,
} from 'countersign';
import { createApprovalApp, openApiDocument } from 'countersign/http';
import { bearer, harness, json, startPaused, stateOf, TOKEN } from './harness.js';

type Body = Record<string, any>;
const read = async (res: Response) => ({
  status: res.status,
  type: res.headers.get('content-type'),
  body: (await res.json()) as Body,
});

describe('POST /runs and GET /runs/:runId', () => {
  it('starts a run and answers 201 with its status and pending approvals once it pauses', async () => {
    const h = harness();
    const res = await h.app.request('/runs', json({ agent: 'files', input: '/tmp/a' }));
    const { status, body } = await read(res);
    expect(status).toBe(201);
    expect(res.headers.get('location')).toBe(`/runs/${body['run'].runId}`);
    expect(body['status']).toBe('awaitingApproval');
    expect(body['run'].pendingApprovals).toHaveLength(1);
    expect(body['run'].pendingApprovals[0]).toMatchObject({ toolName: 'delete_file', args: { path: '/tmp/a' } });
  });

  it('shows the public view: redacted display args, warnings, audit; never the raw messages', async () => {
    const h = harness();
    const { runId } = await startPaused(h, '/tmp/b');
    const res = await h.app.request(`/runs/${runId}`, { headers: bearer() });
    const { status, body } = await read(res);
    expect(status).toBe(200);
    expect(Object.keys(body).sort()).toEqual([
      'agentName',
      'audit',
      'createdAt',
      'pendingApprovals',
      'runId',
      'status',
      'stopReason',
      'updatedAt',
      'version',
    ]);
    expect(body['stopReason']).toBe('awaiting_approval');
    expect(body['pendingApprovals'][0].warnings).toEqual([]);
    const text = JSON.stringify(body);
    expect(text).not.toContain('sk-secret-value');
    expect(text).not.toContain('messages');
  });

  it('takes a conversation as input and a chosen run id; the same start again gets that run, another start for the id a 409', async () => {
    const h = harness();
    const input = [
      { role: 'user', content: 'hello' },
      { role: 'assistant', content: 'hi' },
      { role: 'user', content: '/tmp/c' },
    ];
    const first = await h.app.request('/runs', json({ agent: 'files', input, runId: 'my-run-1' }));
    expect(first.status).toBe(201);
    const again = await read(await h.app.request('/runs', json({ agent: 'files', input, runId: 'my-run-1' })));
    expect(again).toMatchObject({ status: 201, body: { status: 'awaitingApproval', run: { runId: 'my-run-1' } } });
    expect(h.modelCalls()).toBe(1);
    const other = await read(
      await h.app.request('/runs', json({ agent: 'files', input: '/tmp/other', runId: 'my-run-1' })),
    );
    expect(other).toMatchObject({ status: 409, body: { code: 'run_exists', runId: 'my-run-1' } });
  });

  it('refuses system and tool messages from clients, unknown agents and unknown runs', async () => {
    const h = harness();
    const system = await read(
      await h.app.request('/runs', json({ agent: 'files', input: [{ role: 'system', content: 'obey' }] })),
    );
    expect(system).toMatchObject({ status: 400, type: 'application/problem+json', body: { code: 'invalid_body' } });
    const agent = await read(await h.app.request('/runs', json({ agent: 'nobody', input: 'x' })));
    expect(agent).toMatchObject({ status: 404, body: { code: 'agent_not_found', agentName: 'nobody' } });
    const run = await read(await h.app.request('/runs/run_missing', { headers: bearer() }));
    expect(run).toMatchObject({
      status: 404,
      body: {
        code: 'run_not_found',
        runId: 'run_missing',
        type: 'urn:countersign:problem:run_not_found',
        title: 'Not Found',
      },
    });
    expect(h.modelCalls()).toBe(0);
  });

  it('answers 202 when the run takes longer than resumeTimeoutMs, and the run goes on', async () => {
    const h = harness({ holdTool: true, app: { resumeTimeoutMs: 20 } });
    const { runId, approvalId } = await startPaused(h);
    const res = await read(
      await h.app.request(`/runs/${runId}/approvals/${approvalId}`, json({ approved: true, approvedBy: 'alice' })),
    );
    expect(res).toMatchObject({ status: 202, body: { status: 'running', accepted: true, runId } });
    h.release();
    await expect.poll(async () => (await h.runtime.get(runId)).status, { timeout: 10_000 }).toBe('completed');
    expect(h.executed).toEqual(['/tmp/x']);
  });

  it('reports to onError a run that failed after its 202', async () => {
    const errors: unknown[] = [];
    const h = harness({ holdTool: true, app: { resumeTimeoutMs: 20, onError: (error) => errors.push(error) } });
    const { runId, approvalId } = await startPaused(h);
    const broken = h.store;
    const commit = broken.commit.bind(broken);
    let fail = false;
    (broken as { commit: SnapshotStore['commit'] }).commit = async (...args) => {
      if (fail) throw new Error('the disk is gone');
      return commit(...args);
    };
    const res = await h.app.request(
      `/runs/${runId}/approvals/${approvalId}`,
      json({ approved: true, approvedBy: 'alice' }),
    );
    expect(res.status).toBe(202);
    fail = true;
    h.release();
    await expect.poll(() => errors.length, { timeout: 10_000 }).toBe(1);
    expect(String(errors[0])).toContain('the disk is gone');
  });
});

describe('decisions', () => {
  it('approves: 200 once the run completes; an identical repeat is a duplicate that runs nothing again', async () => {
    const h = harness();
    const { runId, approvalId } = await startPaused(h);
    const first = await read(
      await h.app.request(`/runs/${runId}/approvals/${approvalId}`, json({ approved: true, approvedBy: 'alice' })),
    );
    expect(first).toMatchObject({
      status: 200,
      body: { status: 'completed', duplicate: false, run: { output: 'done: {"deleted":"/tmp/x"}' } },
    });
    expect(first.body['run'].audit[0]).toMatchObject({ decision: 'approved', by: 'alice', source: 'human' });
    const repeat = await read(
      await h.app.request(`/runs/${runId}/approvals/${approvalId}`, json({ approved: true, approvedBy: 'bob' })),
    );
    expect(repeat).toMatchObject({ status: 200, body: { status: 'completed', duplicate: true } });
    expect(h.executed).toEqual(['/tmp/x']);
  });

  it('a conflicting decision is a 409 naming the winner', async () => {
    const h = harness();
    const { runId, approvalId } = await startPaused(h);
    await h.app.request(
      `/runs/${runId}/approvals/${approvalId}`,
      json({ approved: false, approvedBy: 'alice', reason: 'no' }),
    );
    const late = await read(
      await h.app.request(`/runs/${runId}/approvals/${approvalId}`, json({ approved: true, approvedBy: 'bob' })),
    );
    expect(late).toMatchObject({
      status: 409,
      body: { code: 'decision_conflict', approvalId, winner: { decision: 'denied', by: 'alice' } },
    });
    expect(h.executed).toEqual([]);
  });

  it('unknown approval 404, approver not allowed 403, invalid edit 422, expired 410', async () => {
    let now = Date.UTC(2026, 0, 1);
    const clock = () => now;
    const h = harness({ approvers: ['alice'], approvalTtlMs: 60_000, clock });
    const { runId, approvalId } = await startPaused(h);
    const decide = async (id: string, body: unknown) =>
      read(await h.app.request(`/runs/${runId}/approvals/${id}`, json(body)));
    expect(await decide('apr_nope', { approved: true, approvedBy: 'alice' })).toMatchObject({
      status: 404,
      body: { code: 'unknown_approval', approvalId: 'apr_nope' },
    });
    expect(await decide(approvalId, { approved: true, approvedBy: 'mallory' })).toMatchObject({
      status: 403,
      body: { code: 'approver_not_allowed' },
    });
    const edit = await decide(approvalId, { approved: true, approvedBy: 'alice', args: { path: '' } });
    expect(edit).toMatchObject({ status: 422, body: { code: 'invalid_edit', issues: [{ path: 'path' }] } });
    now += 60_001;
    expect(await decide(approvalId, { approved: true, approvedBy: 'alice' })).toMatchObject({
      status: 410,
      body: { code: 'approval_expired', approvalId },
    });
    expect(h.executed).toEqual([]);
  });

  it('approves with edited arguments: the tool runs with them', async () => {
    const h = harness();
    const { runId, approvalId } = await startPaused(h);
    const res = await read(
      await h.app.request(
        `/runs/${runId}/approvals/${approvalId}`,
        json({ approved: true, approvedBy: 'alice', args: { path: '/tmp/safer' } }),
      ),
    );
    expect(res.status).toBe(200);
    expect(h.executed).toEqual(['/tmp/safer']);
  });

  it("refuses a client's respondedAt and any unknown key: the server's clock decides expiry", async () => {
    const h = harness();
    const { runId, approvalId } = await startPaused(h);
    const before = await stateOf(h, runId);
    const res = await read(
      await h.app.request(`/runs/${runId}/approvals/${approvalId}`, json({ approved: true, respondedAt: 0 })),
    );
    expect(res).toMatchObject({
      status: 400,
      body: { code: 'invalid_body', issues: [{ message: expect.stringContaining('respondedAt') }] },
    });
    expect(await stateOf(h, runId)).toBe(before);
  });

  it('refuses bodies that are not JSON, not an object, or miss `approved`, always with a problem and never a 500', async () => {
    const h = harness();
    const { runId, approvalId } = await startPaused(h);
    for (const body of ['{', '[]', '"x"', '{"approved":"yes"}', '{}', 'null', '\u00ff']) {
      const res = await h.app.request(`/runs/${runId}/approvals/${approvalId}`, {
        method: 'POST',
        headers: bearer(),
        body,
      });
      expect(res.status, body).toBe(400);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
    }
  });

  it('a decision on a run that no longer waits is a 409', async () => {
    const h = harness();
    const { runId, approvalId } = await startPaused(h);
    await h.app.request(`/runs/${runId}/cancel`, json({ reason: 'changed my mind' }));
    const res = await read(await h.app.request(`/runs/${runId}/approvals/${approvalId}`, json({ approved: true })));
    expect(res.status).toBe(409);
    expect(res.body['code']).toBe('run_not_awaiting_approval');
  });

  it('a decision signature echo is required when the agent signs requests', async () => {
    const h = harness({ decisionSecret: 'decision-secret-0123456789' });
    const { runId, approvalId, signature } = await startPaused(h);
    const missing = await read(await h.app.request(`/runs/${runId}/approvals/${approvalId}`, json({ approved: true })));
    expect(missing).toMatchObject({ status: 400, body: { code: 'invalid_signature' } });
    const ok = await read(
      await h.app.request(`/runs/${runId}/approvals/${approvalId}`, json({ approved: true, signature })),
    );
    expect(ok).toMatchObject({ status: 200, body: { status: 'completed' } });
  });
});

describe('batch decisions', () => {
  it('approveAll decides every pending approval, resumes once, answers per item', async () => {
    const h = harness();
    const start = await read(await h.app.request('/runs', json({ agent: 'files', input: '/a /b /c' })));
    const runId = start.body['run'].runId as string;
    expect(start.body['run'].pendingApprovals).toHaveLength(3);
    const res = await read(
      await h.app.request(`/runs/${runId}/approvals`, json({ approveAll: true, approvedBy: 'alice' })),
    );
    expect(res.status).toBe(200);
    expect(res.body['status']).toBe('completed');
    expect(res.body['results']).toHaveLength(3);
    expect(res.body['results'].every((item: Body) => item['ok'] && !item['duplicate'])).toBe(true);
    expect(h.executed.sort()).toEqual(['/a', '/b', '/c']);
  });

  it('denyAll denies every pending approval with one reason', async () => {
    const h = harness();
    const start = await read(await h.app.request('/runs', json({ agent: 'files', input: '/a /b' })));
    const runId = start.body['run'].runId as string;
    const res = await read(
      await h.app.request(`/runs/${runId}/approvals`, json({ denyAll: true, approvedBy: 'alice', reason: 'freeze' })),
    );
    expect(res.body['status']).toBe('completed');
    expect(res.body['run'].audit.map((entry: Body) => [entry['decision'], entry['reason']])).toEqual([
      ['denied', 'freeze'],
      ['denied', 'freeze'],
    ]);
    expect(h.executed).toEqual([]);
  });

  it('a list of decisions: each applied, failures reported per item, the run resumes once all are in', async () => {
    const h = harness();
    const start = await read(await h.app.request('/runs', json({ agent: 'files', input: '/a /b' })));
    const runId = start.body['run'].runId as string;
    const [a, b] = start.body['run'].pendingApprovals.map((request: Body) => request['approvalId'] as string);
    const partial = await read(
      await h.app.request(
        `/runs/${runId}/approvals`,
        json({
          decisions: [
            { approvalId: a, approved: true },
            { approvalId: 'apr_nope', approved: true },
          ],
        }),
      ),
    );
    expect(partial.status).toBe(200);
    expect(partial.body['status']).toBe('awaitingApproval');
    expect(partial.body['results']).toEqual([
      { approvalId: a, ok: true, duplicate: false },
      {
        approvalId: 'apr_nope',
        ok: false,
        problem: expect.objectContaining({ status: 404, code: 'unknown_approval' }),
      },
    ]);
    const rest = await read(
      await h.app.request(
        `/runs/${runId}/approvals`,
        json({
          decisions: [
            { approvalId: a, approved: true },
            { approvalId: b, approved: false },
          ],
        }),
      ),
    );
    expect(rest.body['status']).toBe('completed');
    expect(rest.body['results']).toEqual([
      { approvalId: a, ok: true, duplicate: true },
      { approvalId: b, ok: true, duplicate: false },
    ]);
    expect(h.executed).toEqual(['/a']);
  });

  it('refuses mixed or empty batches, and approveAll on a run that does not wait', async () => {
    const h = harness();
    const { runId } = await startPaused(h);
    for (const body of [
      { approveAll: true },
      { approveAll: true, denyAll: true, approvedBy: 'a' },
      { decisions: [] },
      { approveAll: false, approvedBy: 'a' },
    ]) {
      expect((await h.app.request(`/runs/${runId}/approvals`, json(body))).status, JSON.stringify(body)).toBe(400);
    }
    await h.app.request(`/runs/${runId}/cancel`, json({}));
    const res = await read(
      await h.app.request(`/runs/${runId}/approvals`, json({ approveAll: true, approvedBy: 'alice' })),
    );
    expect(res).toMatchObject({ status: 409, body: { code: 'run_not_awaiting_approval' } });
  });
});

describe("resumeMode: 'enqueue'", () => {
  it('records the decision, queues the run for a worker and answers 202; the batch queues it once', async () => {
    const h = harness();
    const queued: string[] = [];
    const front = createRuntime({
      agents: [h.runtime.agent('files')],
      store: h.store,
      queue: { enqueue: async (runId) => void queued.push(runId) },
    });
    const app = createApprovalApp(front, { bearerToken: TOKEN, resumeMode: 'enqueue' });
    const { runId, approvalId } = await startPaused(h);
    const res = await read(
      await app.request(`/runs/${runId}/approvals/${approvalId}`, json({ approved: true, approvedBy: 'alice' })),
    );
    expect(res).toMatchObject({ status: 202, body: { status: 'running', accepted: true, runId, duplicate: false } });
    expect(queued).toEqual([runId]);
    expect(h.executed).toEqual([]);
    // A repeat queues the run again: the first delivery's job may never have reached the queue.
    const repeat = await read(await app.request(`/runs/${runId}/approvals/${approvalId}`, json({ approved: true })));
    expect(repeat).toMatchObject({ status: 200, body: { status: 'running', duplicate: true } });
    expect(queued).toEqual([runId, runId]);
    expect((await h.runtime.resume(runId)).status).toBe('completed');
    expect(h.executed).toEqual(['/tmp/x']);

    const batch = await read(await h.app.request('/runs', json({ agent: 'files', input: '/a /b' })));
    const second = batch.body['run'].runId as string;
    const all = await read(
      await app.request(`/runs/${second}/approvals`, json({ approveAll: true, approvedBy: 'alice' })),
    );
    expect(all).toMatchObject({
      status: 202,
      body: { accepted: true, runId: second, results: [{ ok: true }, { ok: true }] },
    });
    expect(queued).toEqual([runId, runId, second]);
  });

  it('starts a run by recording it and queueing it for a worker: 202 before any model call', async () => {
    const h = harness();
    const queued: string[] = [];
    const front = createRuntime({
      agents: [h.runtime.agent('files')],
      store: h.store,
      queue: { enqueue: async (runId) => void queued.push(runId) },
    });
    const app = createApprovalApp(front, { bearerToken: TOKEN, resumeMode: 'enqueue' });
    const res = await read(await app.request('/runs', json({ agent: 'files', input: '/tmp/q', runId: 'queued-run' })));
    expect(res).toMatchObject({ status: 202, body: { status: 'running', accepted: true, runId: 'queued-run' } });
    expect(queued).toEqual(['queued-run']);
    expect(h.modelCalls()).toBe(0);
    expect((await h.runtime.resume('queued-run')).status).toBe('awaitingApproval');
  });

  it('refuses at creation an app whose runtime has no queue, so no decision is recorded and then left unqueued', async () => {
    const h = harness();
    expect(() => createApprovalApp(h.runtime, { bearerToken: TOKEN, resumeMode: 'enqueue' })).toThrow(ConfigError);
    expect(() => createApprovalApp(h.runtime, { bearerToken: TOKEN, resumeMode: 'enqueue' })).toThrow(
      /resumeMode 'enqueue' needs a runtime made with createRuntime\(\{ queue/,
    );
  });
});

describe('listing and cancelling', () => {
  it('GET /approvals pages through pending approvals, filtered by agent', async () => {
    const h = harness();
    for (const path of ['/1', '/2', '/3']) await startPaused(h, path);
    const first = await read(await h.app.request('/approvals?status=pending&limit=2', { headers: bearer() }));
    expect(first.status).toBe(200);
    expect(first.body['items']).toHaveLength(2);
    expect(first.body['items'][0]).toMatchObject({ agentName: 'files', request: { toolName: 'delete_file' } });
    const second = await read(
      await h.app.request(`/approvals?limit=2&cursor=${encodeURIComponent(first.body['cursor'])}`, {
        headers: bearer(),
      }),
    );
    expect(second.body['items']).toHaveLength(1);
    expect(second.body['cursor']).toBeUndefined();
    const other = await read(await h.app.request('/approvals?agent=someone-else', { headers: bearer() }));
    expect(other.body['items']).toEqual([]);
    for (const query of ['limit=0', 'limit=abc', 'limit=501', 'status=done']) {
      const bad = await read(await h.app.request(`/approvals?${query}`, { headers: bearer() }));
      expect(bad, query).toMatchObject({ status: 400, body: { code: 'invalid_query' } });
    }
  });

  it("POST /runs starts a run in a session and GET /approvals?sessionId= lists that session's approvals only", async () => {
    const h = harness();
    const started = await read(
      await h.app.request('/runs', json({ agent: 'files', input: '/a', sessionId: 'chat-7' })),
    );
    expect(started).toMatchObject({ status: 201, body: { run: { sessionId: 'chat-7' } } });
    await startPaused(h, '/b');
    const listed = await read(await h.app.request('/approvals?sessionId=chat-7', { headers: bearer() }));
    expect(listed.body['items']).toEqual([
      expect.objectContaining({ runId: started.body['run'].runId, sessionId: 'chat-7' }),
    ]);
    const refused = await read(
      await h.app.request('/runs', json({ agent: 'files', input: '/c', sessionId: 'chat 7' })),
    );
    expect(refused).toMatchObject({ status: 400, body: { code: 'invalid_body', issues: [{ path: 'sessionId' }] } });
    expect(await read(await h.app.request('/approvals?sessionId=a%2Fb', { headers: bearer() }))).toMatchObject({
      status: 400,
      body: { code: 'invalid_query' },
    });
    const doc = (await (await h.app.request('/openapi.json')).json()) as Body;
    expect(doc['components'].schemas.StartRun.properties).toHaveProperty('sessionId');
    expect(doc['paths']['/approvals'].get.parameters.map((parameter: { name: string }) => parameter.name)).toContain(
      'sessionId',
    );
  });

  it('POST /runs/:runId/cancel cancels a paused run; a finished run is answered as it is', async () => {
    const h = harness();
    const { runId, approvalId } = await startPaused(h);
    const res = await read(await h.app.request(`/runs/${runId}/cancel`, json({ reason: 'not today' })));
    expect(res).toMatchObject({ status: 200, body: { status: 'cancelled', run: { stopReason: 'cancelled' } } });
    const again = await read(await h.app.request(`/runs/${runId}/cancel`, { method: 'POST', headers: bearer() }));
    expect(again).toMatchObject({ status: 200, body: { status: 'cancelled' } });
    expect((await h.app.request(`/runs/${runId}/approvals/${approvalId}`, json({ approved: true }))).status).toBe(409);
  });
});

describe('errors', () => {
  it('a store that cannot be reached is a 503 with Retry-After', async () => {
    const store = createMemoryStore();
    let down = false;
    const flaky: SnapshotStore = {
      ...store,
      load: async (runId) => {
        if (down) throw new StoreUnavailableError('Redis did not answer.');
        return store.load(runId);
      },
    };
    const h = harness({ store: flaky });
    const { runId } = await startPaused(h);
    down = true;
    const res = await h.app.request(`/runs/${runId}`, { headers: bearer() });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('2');
    expect(((await res.json()) as Body)['code']).toBe('store_unavailable');
    expect(h.errors).toEqual([]);
  });

  it('an unexpected error is a 500 `internal` problem without its message or stack, reported to onError', async () => {
    const runtime = createRuntime({ agents: [harness().runtime.agent('files')] });
    const errors: unknown[] = [];
    const broken: Runtime = {
      ...runtime,
      get: async () => Promise.reject(new Error('secret internals at /srv/app.js:12')),
    };
    const app = createApprovalApp(broken, {
      bearerToken: TOKEN,
      onError: (error, context) => errors.push([String(error), context]),
    });
    const res = await app.request('/runs/run_1', { headers: bearer() });
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toMatchObject({ status: 500, code: 'internal' });
    expect(text).not.toContain('secret internals');
    expect(errors).toEqual([
      ['Error: secret internals at /srv/app.js:12', { operation: 'request', method: 'GET', path: '/runs/run_1' }],
    ]);
  });

  it('unknown routes are 404 problems', async () => {
    const h = harness();
    const res = await read(await h.app.request('/nope', { headers: bearer() }));
    expect(res).toMatchObject({ status: 404, type: 'application/problem+json', body: { code: 'not_found' } });
  });
});

describe('GET /openapi.json and /healthz', () => {
  it('serves an OpenAPI 3.1 document of every route, built from the request schemas', async () => {
    const h = harness();
    const res = await h.app.request('/openapi.json');
    expect(res.status).toBe(200);
    const doc = (await res.json()) as Body;
    expect(doc['openapi']).toBe('3.1.0');
    expect(Object.keys(doc['paths']).sort()).toEqual(
      [
        '/agents/{agent}/tools',
        '/approvals',
        '/approvals/{requestId}',
        '/approvals/{requestId}/cancel',
        '/connectors',
        '/rules',
        '/rules/{ruleId}',
        '/events',
        '/grants',
        '/grants/{grantId}',
        '/insights',
        '/sessions/{sessionId}/grants',
        '/healthz',
        '/.well-known/jwks.json',
        '/links/{token}',
        '/openapi.json',
        '/runs',
        '/runs/{runId}',
        '/runs/{runId}/approvals',
        '/runs/{runId}/approvals/{approvalId}',
        '/runs/{runId}/cancel',
      ].sort(),
    );
    const decision = doc['components'].schemas.Decision;
    expect(decision).toMatchObject({ type: 'object', additionalProperties: false, required: ['approved'] });
    expect(Object.keys(decision.properties).sort()).toEqual([
      'answer',
      'approvalId',
      'approved',
      'approvedBy',
      'args',
      'dismissed',
      'grant',
      'reason',
      'runId',
      'scope',
      'signature',
    ]);
    expect(doc['paths']['/runs/{runId}/approvals/{approvalId}'].post.responses).toHaveProperty('409');
    expect(doc).toEqual(JSON.parse(JSON.stringify(openApiDocument())));
    expect(await (await h.app.request('/healthz')).json()).toEqual({ ok: true });
  });
});
