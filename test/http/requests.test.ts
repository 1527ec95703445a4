// The request API over HTTP, on a real socket: a caller outside the agent loop asks (POST /approvals), waits with a
// long-poll (GET /approvals/:requestId?waitMs=), and gets the decision a person made through the ordinary decision
// route, with the arguments they approved; rules decide at once, keys make one request, a cancel withdraws it.
import { describe, expect, it, vi } from 'vitest';
import { createMemoryStore, REQUEST_AGENT_NAME, type RequestHandle, type Runtime, type WaitOptions } from 'countersign';
import { createApprovalApp } from 'countersign/http';
import { requestStateSchema } from '../../src/http/request-schemas.js';
import { bearer, json, signed, TOKEN } from './harness.js';
import { ask, closeServedAfterEach, countingLoads, send, served, serveApp } from './request-kit.js';
import { sseReader } from './sse-reader.js';

closeServedAfterEach();

const DECISION_SECRET = 'request-policy-secret-0123456789';

describe('POST /approvals and GET /approvals/:requestId', () => {
  it('asks, answers pending with its Location, and a long-poll answers the decision with the edited arguments', async () => {
    const { store, loadsOf } = countingLoads(createMemoryStore());
    const { base } = await served({ store });
    const asked = await ask(base, {
      tool: 'deploy',
      args: { service: 'billing', version: '2.4.1' },
      description: 'Deploy billing 2.4.1 to production',
      reason: 'Release train 48',
      requestedBy: 'ci',
    });
    const id: string = asked.body.id;
    expect(asked.headers.get('location')).toBe(`/approvals/${id}`);
    expect(asked.headers.get('cache-control')).toBe('no-store');
    expect(asked.body).toMatchObject({
      status: 'pending',
      approved: false,
      request: { toolName: 'deploy', args: { service: 'billing', version: '2.4.1' }, reason: 'Release train 48' },
    });
    expect(requestStateSchema.safeParse(asked.body).success).toBe(true);
    const listed = await send(`${base}/approvals`);
    expect(listed.body.items).toEqual([expect.objectContaining({ runId: id, agentName: REQUEST_AGENT_NAME })]);

    const before = loadsOf(id);
    const waiting = send(`${base}/approvals/${id}?waitMs=30000`);
    // The long-poll has read the request (once to find it, once to look): it is waiting now.
    await vi.waitFor(() => expect(loadsOf(id)).toBeGreaterThanOrEqual(before + 2), { timeout: 10_000 });
    const approvalId: string = asked.body.request.approvalId;
    const decided = await send(
      `${base}/runs/${id}/approvals/${approvalId}`,
      json({ approved: true, approvedBy: 'alice', args: { service: 'billing', version: '2.4.2' } }),
    );
    // Recorded and carried on here, to the end: the waiting handle leaves a run its decider carries on alone.
    expect(decided).toMatchObject({ status: 200, body: { duplicate: false, status: 'completed' } });
    const answered = await waiting;
    expect(answered.status).toBe(200);
    expect(answered.body).toMatchObject({
      id,
      status: 'approved',
      approved: true,
      args: { service: 'billing', version: '2.4.2' },
      by: 'alice',
      source: 'human',
      approvalId,
    });
    expect(requestStateSchema.safeParse(answered.body).success).toBe(true);
    expect((await send(`${base}/approvals/${id}`)).body).toEqual(answered.body);
    expect((await send(`${base}/approvals`)).body.items).toEqual([]);
    await vi.waitFor(async () => expect((await send(`${base}/runs/${id}`)).body.status).toBe('completed'), {
      timeout: 10_000,
    });
  });

  it('answers the pending state when the wait runs out', async () => {
    const { base } = await served();
    const { body } = await ask(base, { tool: 'reboot', args: { host: 'db-1' } });
    const started = Date.now();
    const answered = await send(`${base}/approvals/${body.id}?waitMs=300`);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(answered).toMatchObject({
      status: 200,
      body: { id: body.id, status: 'pending', request: { toolName: 'reboot' } },
    });
  });

  it('answers 201 with the decision when a rule of the request policy decides at once', async () => {
    const { base, h } = await served({
      requests: {
        policy: {
          rules: [
            { id: 'reads', tool: 'read_*', action: 'allow' },
            { id: 'drops', tool: 'drop_*', action: 'deny', reason: 'never from a script' },
          ],
        },
      },
    });
    const read = await ask(base, { tool: 'read_logs', args: { since: '1h' } });
    expect(read.body).toMatchObject({
      status: 'approved',
      approved: true,
      source: 'rule',
      ruleId: 'reads',
      args: { since: '1h' },
    });
    const drop = await ask(base, { tool: 'drop_table', args: { table: 'users' } });
    expect(drop.body).toMatchObject({
      status: 'denied',
      approved: false,
      ruleId: 'drops',
      reason: 'never from a script',
    });
    expect((await h.runtime.pending()).items).toEqual([]);
  });

  it('makes one request of one key (body, Idempotency-Key header or webhook-id), and refuses another ask with it (409)', async () => {
    const { base, h } = await served();
    const deploy = { tool: 'deploy', args: { service: 'billing', version: '2.4.1' } };
    const first = await ask(base, { ...deploy, key: 'deploy-48' });
    const again = await ask(base, { ...deploy, args: { version: '2.4.1', service: 'billing' }, key: 'deploy-48' });
    expect(again.body.id).toBe(first.body.id);
    const byHeader = await ask(base, deploy, { 'idempotency-key': 'deploy-48' });
    expect(byHeader.body.id).toBe(first.body.id);
    expect((await h.runtime.pending()).items).toHaveLength(1);

    const other = await send(
      `${base}/approvals`,
      json({ ...deploy, args: { service: 'billing', version: '9' }, key: 'deploy-48' }),
    );
    expect(other).toMatchObject({ status: 409, body: { code: 'run_exists', runId: first.body.id } });
    const both = await send(
      `${base}/approvals`,
      json({ ...deploy, key: 'deploy-49' }, { ...bearer(), 'idempotency-key': 'x' }),
    );
    expect(both).toMatchObject({ status: 400, body: { code: 'invalid_idempotency_key' } });

    const text = JSON.stringify({ tool: 'rotate_keys', args: { env: 'prod' } });
    const delivery = signed(text, { at: Date.now() });
    const signedFirst = await send(`${base}/approvals`, { method: 'POST', headers: delivery, body: text });
    const redelivered = await send(`${base}/approvals`, { method: 'POST', headers: delivery, body: text });
    expect(signedFirst.status).toBe(201);
    expect(redelivered).toMatchObject({ status: 201, body: { id: signedFirst.body.id } });
    expect(redelivered.headers.get('webhook-replayed')).toBe('true');
    expect((await h.runtime.pending()).items).toHaveLength(2);
  });

  it('withdraws a pending request with POST /approvals/:requestId/cancel, waking its long-poll', async () => {
    const { base, h } = await served();
    const { body } = await ask(base, { tool: 'email_all', args: { subject: 'hi' } });
    const waiting = send(`${base}/approvals/${body.id}?waitMs=30000`);
    const cancelled = await send(`${base}/approvals/${body.id}/cancel`, json({ reason: 'the change window closed' }));
    expect(cancelled).toMatchObject({
      status: 200,
      body: { id: body.id, status: 'cancelled', approved: false, reason: 'the change window closed' },
    });
    expect((await waiting).body).toMatchObject({ status: 'cancelled' });
    expect((await h.runtime.pending()).items).toEqual([]);
    const decision = await send(
      `${base}/runs/${body.id}/approvals/${body.request.approvalId}`,
      json({ approved: true, approvedBy: 'alice' }),
    );
    expect(decision).toMatchObject({ status: 409, body: { code: 'run_not_awaiting_approval' } });

    const allowed = await served({ requests: { policy: { default: 'allow' } } });
    const decidedAlready = await ask(allowed.base, { tool: 'ping', args: {} });
    const late = await send(`${allowed.base}/approvals/${decidedAlready.body.id}/cancel`, {
      method: 'POST',
      headers: bearer(),
    });
    expect(late).toMatchObject({ status: 200, body: { status: 'approved', source: 'default' } });
  });

  it("answers the decision with the audit's signature when the request policy has a decisionSecret", async () => {
    const { base } = await served({ requests: { decisionSecret: DECISION_SECRET } });
    const { body } = await ask(base, { tool: 'deploy', args: { service: 'search' } });
    const { approvalId, signature } = body.request;
    expect(signature).toMatch(/^v2\./);
    const unsigned = await send(
      `${base}/runs/${body.id}/approvals/${approvalId}`,
      json({ approved: true, approvedBy: 'bo' }),
    );
    expect(unsigned).toMatchObject({ status: 400, body: { code: 'invalid_signature' } });
    await send(
      `${base}/runs/${body.id}/approvals/${approvalId}`,
      json({ approved: true, approvedBy: 'bo', signature }),
    );
    const state = await send(`${base}/approvals/${body.id}?waitMs=10000`);
    const run = await send(`${base}/runs/${body.id}`);
    expect(state.body).toMatchObject({ status: 'approved', by: 'bo' });
    expect(state.body.signature).toEqual(expect.any(String));
    expect(state.body.signature).toBe(run.body.audit[0].signature);
  });

  it('stops waiting when the client goes away', async () => {
    const { h } = await served();
    const signals: AbortSignal[] = [];
    const settled: string[] = [];
    const watched: Runtime = {
      ...h.runtime,
      approvalRequest: (id: string): RequestHandle => {
        const handle = h.runtime.approvalRequest(id);
        return {
          ...handle,
          wait: ((options: WaitOptions = {}) => {
            if (options.signal) signals.push(options.signal);
            return handle.wait(options).finally(() => settled.push(id));
          }) as RequestHandle['wait'],
        };
      },
    };
    const base = await serveApp(createApprovalApp(watched, { bearerToken: TOKEN }));
    const { body } = await ask(base, { tool: 'reboot', args: { host: 'db-2' } });
    const client = new AbortController();
    const polling = fetch(`${base}/approvals/${body.id}?waitMs=60000`, { headers: bearer(), signal: client.signal });
    await vi.waitFor(() => expect(signals).toHaveLength(1), { timeout: 10_000 });
    expect(signals[0]!.aborted).toBe(false);
    client.abort();
    await expect(polling).rejects.toThrow();
    await vi.waitFor(() => expect(settled).toEqual([body.id]), { timeout: 10_000 });
    expect(signals[0]!.aborted).toBe(true);
  });
});

describe('GET /events for requests', () => {
  it("carries a request's approval-requested and its resolution to a client following the stream", async () => {
    const { base } = await served();
    const stream = await fetch(`${base}/events`, { headers: bearer() });
    expect(stream.status).toBe(200);
    const events = sseReader(stream);
    expect(await events.next()).toBe(': connected');
    const { body } = await ask(base, { tool: 'refund', args: { order: '8812', amount: 40 } });
    expect(await events.event()).toMatchObject({
      type: 'approval-requested',
      data: {
        runId: body.id,
        agentName: REQUEST_AGENT_NAME,
        request: { approvalId: body.request.approvalId, toolName: 'refund' },
      },
    });
    await send(
      `${base}/runs/${body.id}/approvals/${body.request.approvalId}`,
      json({ approved: false, approvedBy: 'ana', reason: 'too much' }),
    );
    expect(await events.event()).toMatchObject({
      type: 'approval-resolved',
      data: {
        runId: body.id,
        agentName: REQUEST_AGENT_NAME,
        entry: { approvalId: body.request.approvalId, decision: 'denied', by: 'ana', reason: 'too much' },
      },
    });
    await events.cancel();
  });
});

describe('the OpenAPI document of the request routes', () => {
  it('describes asking, reading or waiting, and cancelling, with the schemas that check them', async () => {
    const { h } = await served();
    const doc = (await (await h.app.request('/openapi.json')).json()) as Record<string, any>;
    const ask = doc['paths']['/approvals'].post;
    expect(ask).toMatchObject({
      operationId: 'requestApproval',
      security: [{ bearer: [] }, { standardWebhooks: [] }],
      requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/ApprovalAsk' } } } },
      responses: {
        '201': { content: { 'application/json': { schema: { $ref: '#/components/schemas/RequestState' } } } },
      },
    });
    expect(Object.keys(ask.responses)).toEqual(['201', '400', '401', '409', '413', '415', '503']);
    expect(doc['paths']['/approvals'].get.operationId).toBe('listPendingApprovals');
    const wait = doc['paths']['/approvals/{requestId}'].get;
    expect(wait.security).toEqual([{ bearer: [] }]);
    expect(wait.parameters).toContainEqual(
      expect.objectContaining({ name: 'waitMs', in: 'query', schema: expect.objectContaining({ maximum: 60_000 }) }),
    );
    expect(wait.responses).toHaveProperty('404');
    expect(doc['paths']['/approvals/{requestId}/cancel'].post.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/RequestCancel',
    });
    const { ApprovalAsk, RequestState } = doc['components'].schemas;
    expect(ApprovalAsk).toMatchObject({ additionalProperties: false, required: ['tool', 'args'] });
    expect(ApprovalAsk.properties.args.type).toBe('object');
    expect(Object.keys(ApprovalAsk.properties).sort()).toEqual([
      'approvals',
      'approvers',
      'args',
      'description',
      'expiresInMs',
      'key',
      'origin',
      'reason',
      'requestedBy',
      'sessionId',
      'tool',
      'traceparent',
    ]);
    expect(RequestState.required).toEqual(['id', 'status', 'approved']);
    expect(RequestState.properties.status.enum).toContain('approved');
  });
});
