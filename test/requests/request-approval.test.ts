// runtime.requestApproval: a caller outside the agent loop asks a person, through the same policy, grants, quorum,
// expiry and audit as an agent's call, and waits for the decision with a handle.
import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  createRuntime,
  REQUEST_AGENT_NAME,
  RunExistsError,
  RunNotFoundError,
  type RequestHandle,
  type RequestOptions,
  type Runtime,
} from 'countersign';
import { countingAgent } from '../support/runtime-harness.js';
import { testClock } from '../support/test-kit.js';

const SECRET = 'requests-secret-0123456789';

function requestsRuntime(requests: RequestOptions = {}, clock = testClock(Date.now())) {
  return { runtime: createRuntime({ requests, clock }), clock };
}

/** The request a handle's request waits on; fails the test when it is not pending. */
async function requestOf(handle: RequestHandle) {
  const state = await handle.status();
  if (state.status !== 'pending' || state.request === undefined)
    throw new Error(`expected pending, got ${state.status}`);
  return state.request;
}

async function onlyPending(runtime: Runtime) {
  const { items } = await runtime.pending();
  expect(items).toHaveLength(1);
  return items[0]!;
}

describe('runtime.requestApproval', () => {
  it('asks a person, lists the request like any other, and hands back the arguments they approved (edited)', async () => {
    const { runtime } = requestsRuntime();
    const handle = await runtime.requestApproval({
      tool: 'deploy',
      args: { service: 'billing', version: '2.4.1' },
      description: 'Deploy billing 2.4.1 to production',
      reason: 'Release train 48',
      requestedBy: 'ci',
    });
    const pending = await onlyPending(runtime);
    expect(pending).toMatchObject({ runId: handle.id, agentName: REQUEST_AGENT_NAME });
    expect(pending.request).toMatchObject({
      toolName: 'deploy',
      args: { service: 'billing', version: '2.4.1' },
      description: 'Deploy billing 2.4.1 to production',
      reason: 'Release train 48',
      oneCallRun: true,
    });
    expect(await handle.status()).toMatchObject({ status: 'pending', request: { toolName: 'deploy' } });

    const waiting = handle.wait();
    await runtime.respond(handle.id, {
      approvalId: pending.request.approvalId,
      approved: true,
      approvedBy: 'alice',
      args: { service: 'billing', version: '2.4.2' },
    });
    const state = await waiting;
    expect(state).toMatchObject({
      status: 'approved',
      approved: true,
      args: { service: 'billing', version: '2.4.2' },
      by: 'alice',
      source: 'human',
      approvalId: pending.request.approvalId,
    });
    expect((await runtime.get(handle.id)).status).toBe('completed');
    expect(await handle.status()).toMatchObject({ status: 'approved', args: { version: '2.4.2' } });
    expect((await runtime.pending()).items).toHaveLength(0);
  });

  it('lets the request policy allow or deny at once, naming the rule', async () => {
    const { runtime } = requestsRuntime({
      policy: {
        rules: [
          { id: 'reads', tool: 'read_*', action: 'allow' },
          { id: 'drops', tool: 'drop_*', action: 'deny', reason: 'never from a script' },
        ],
      },
    });
    const read = await runtime.requestApproval({ tool: 'read_logs', args: { since: '1h' } });
    expect(await read.status()).toMatchObject({
      status: 'approved',
      source: 'rule',
      ruleId: 'reads',
      args: { since: '1h' },
    });
    const drop = await runtime.requestApproval({ tool: 'drop_table', args: { table: 'users' } });
    expect(await drop.wait()).toMatchObject({
      status: 'denied',
      approved: false,
      source: 'rule',
      ruleId: 'drops',
      reason: 'never from a script',
    });
    expect((await runtime.pending()).items).toHaveLength(0);
  });

  it('makes a retried ask with the same key one request, and refuses another ask with that key', async () => {
    const { runtime } = requestsRuntime();
    const ask = { tool: 'refund', args: { order: '8812', amount: 40 }, key: 'refund-8812' };
    const first = await runtime.requestApproval(ask);
    const again = await runtime.requestApproval({ ...ask, args: { amount: 40, order: '8812' } });
    expect(again.id).toBe(first.id);
    expect((await runtime.pending()).items).toHaveLength(1);
    await expect(runtime.requestApproval({ ...ask, args: { order: '8812', amount: 4000 } })).rejects.toBeInstanceOf(
      RunExistsError,
    );
    expect((await runtime.pending()).items).toHaveLength(1);
  });

  it('narrows who decides, how many and how long, and never widens the policy', async () => {
    const { runtime } = requestsRuntime({
      tools: { deploy: { approvers: ['alice', 'bob', 'carol'], approvalTtlMs: 600_000 } },
    });
    const narrowed = await runtime.requestApproval({
      tool: 'deploy',
      args: { service: 'billing' },
      approvers: ['alice', 'bob'],
      approvals: 2,
      expiresInMs: 60_000,
    });
    const request = await requestOf(narrowed);
    expect(request.approvers).toEqual(['alice', 'bob']);
    expect(request.quorum?.required).toBe(2);
    expect(request.expiresAt! - request.requestedAt).toBe(60_000);

    const longer = await runtime.requestApproval({
      tool: 'deploy',
      args: { service: 'search' },
      expiresInMs: 86_400_000,
    });
    const longerRequest = await requestOf(longer);
    expect(longerRequest.expiresAt! - longerRequest.requestedAt).toBe(600_000);

    const outsider = await runtime.requestApproval({
      tool: 'deploy',
      args: { service: 'auth' },
      approvers: ['mallory'],
    });
    expect(await outsider.status()).toMatchObject({
      status: 'denied',
      reason: expect.stringMatching(/mallory.*alice, bob, carol/),
    });
  });

  it('needs every vote of a raised quorum, from the approvers named', async () => {
    const { runtime } = requestsRuntime();
    const handle = await runtime.requestApproval({
      tool: 'wire',
      args: { amount: 90_000 },
      approvals: 2,
      requestedBy: 'dave',
    });
    const { request } = await onlyPending(runtime);
    await expect(
      runtime.respond(handle.id, { approvalId: request.approvalId, approved: true, approvedBy: 'dave' }),
    ).rejects.toThrow(/dave/);
    const first = await runtime.respond(handle.id, {
      approvalId: request.approvalId,
      approved: true,
      approvedBy: 'ana',
    });
    expect(first.vote).toMatchObject({ approvals: 1, remaining: 1 });
    expect(await handle.status()).toMatchObject({ status: 'pending' });
    await runtime.respond(handle.id, { approvalId: request.approvalId, approved: true, approvedBy: 'bo' });
    expect(await handle.status()).toMatchObject({ status: 'approved', args: { amount: 90_000 } });
  });

  it('expires an undecided request, and says so', async () => {
    const { runtime, clock } = requestsRuntime();
    const handle = await runtime.requestApproval({ tool: 'rotate_keys', args: {}, expiresInMs: 5_000 });
    clock.advance(5_001);
    expect(await runtime.sweepExpired()).toMatchObject({ expired: 1 });
    expect(await handle.wait()).toMatchObject({ status: 'expired', approved: false, source: 'expiry' });
  });

  it('tells a dismissal apart from a denial', async () => {
    const { runtime } = requestsRuntime();
    const handle = await runtime.requestApproval({ tool: 'email_all', args: { subject: 'hi' } });
    const { request } = await onlyPending(runtime);
    await runtime.respond(handle.id, {
      approvalId: request.approvalId,
      approved: false,
      dismissed: true,
      approvedBy: 'eve',
    });
    expect(await handle.status()).toMatchObject({ status: 'dismissed', by: 'eve', source: 'dismissed' });
  });

  it('returns the pending state when the wait runs out or is aborted, and cancels on request', async () => {
    const { runtime } = requestsRuntime();
    const handle = await runtime.requestApproval({ tool: 'reboot', args: { host: 'db-1' } });
    expect(await handle.wait({ timeoutMs: 1 })).toMatchObject({ status: 'pending' });
    const controller = new AbortController();
    const aborted = handle.wait({ signal: controller.signal });
    controller.abort();
    expect(await aborted).toMatchObject({ status: 'pending' });

    const waiting = handle.wait();
    expect(await handle.cancel('the change window closed')).toMatchObject({
      status: 'cancelled',
      reason: 'the change window closed',
    });
    expect(await waiting).toMatchObject({ status: 'cancelled' });
    expect((await runtime.pending()).items).toHaveLength(0);
  });

  it('keeps a decided request as decided when it is cancelled afterwards', async () => {
    const { runtime } = requestsRuntime({ policy: { default: 'allow' } });
    const handle = await runtime.requestApproval({ tool: 'ping', args: {} });
    expect(await handle.cancel()).toMatchObject({ status: 'approved', source: 'default' });
  });

  it('lets a session grant cover the next ask of that session only', async () => {
    const { runtime } = requestsRuntime();
    const first = await runtime.requestApproval({
      tool: 'npm_test',
      args: { cwd: '/repo' },
      sessionId: 'cc-session-1',
    });
    const { request } = await onlyPending(runtime);
    await runtime.respond(first.id, {
      approvalId: request.approvalId,
      approved: true,
      approvedBy: 'alice',
      scope: 'session',
    });
    const same = await runtime.requestApproval({ tool: 'npm_test', args: { cwd: '/repo' }, sessionId: 'cc-session-1' });
    expect(await same.status()).toMatchObject({ status: 'approved', source: 'grant', by: 'alice' });
    const other = await runtime.requestApproval({
      tool: 'npm_test',
      args: { cwd: '/repo' },
      sessionId: 'cc-session-2',
    });
    expect(await other.status()).toMatchObject({ status: 'pending' });
  });

  it('signs requests and decisions with the request policy secret, and needs the signature to decide', async () => {
    const { runtime } = requestsRuntime({ decisionSecret: SECRET });
    const handle = await runtime.requestApproval({ tool: 'deploy', args: { service: 'billing' } });
    const { request } = await onlyPending(runtime);
    expect(request.signature).toMatch(/^v2\./);
    await expect(
      runtime.respond(handle.id, { approvalId: request.approvalId, approved: true, approvedBy: 'alice' }),
    ).rejects.toThrow(/signature/);
    await runtime.respond(handle.id, {
      approvalId: request.approvalId,
      approved: true,
      approvedBy: 'alice',
      signature: request.signature!,
    });
    const state = await handle.status();
    expect(state).toMatchObject({ status: 'approved' });
    expect((state as { signature?: string }).signature).toBe((await runtime.get(handle.id)).audit[0]!.signature);
  });

  it('refuses a bad ask before anything is recorded, naming the field', async () => {
    const { runtime } = requestsRuntime();
    await expect(runtime.requestApproval({ tool: 'rm -rf', args: {} })).rejects.toThrow(/tool/);
    await expect(
      runtime.requestApproval({
        tool: 'x',
        args: JSON.parse('{"__proto__":{"admin":true}}') as Record<string, unknown>,
      }),
    ).rejects.toThrow(ConfigError);
    await expect(runtime.requestApproval({ tool: 'x', args: { when: new Date() } })).rejects.toThrow(/plain JSON/);
    await expect(runtime.requestApproval({ tool: 'x', args: {}, expiresInMs: 10 })).rejects.toThrow(/expiresInMs/);
    await expect(runtime.requestApproval({ tool: 'x', args: {}, approvers: [] })).rejects.toThrow(/approvers/);
    await expect(runtime.requestApproval({ tool: 'x', args: {}, surprise: 1 } as never)).rejects.toThrow(/surprise/);
    expect((await runtime.pending()).items).toHaveLength(0);
  });

  it('finds a request by id, and refuses ids of other runs', async () => {
    const { agent } = countingAgent();
    const runtime = createRuntime({ agents: [agent] });
    const handle = await runtime.requestApproval({ tool: 'deploy', args: {} });
    expect(await runtime.approvalRequest(handle.id).status()).toMatchObject({ status: 'pending', id: handle.id });
    await expect(runtime.approvalRequest('req_missing').status()).rejects.toBeInstanceOf(RunNotFoundError);
    const run = await runtime.start(agent.name, { input: 'go' });
    await expect(runtime.approvalRequest(run.runId).status()).rejects.toThrow(/not a request/);
    expect(() => createRuntime({ agents: [countingAgent({ name: REQUEST_AGENT_NAME }).agent] })).toThrow(
      /runtime's own/,
    );
  });
});
