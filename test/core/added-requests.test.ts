// withApprovalRequest: a request added to a waiting run from outside the model's turn, signed like any other, run
// once through the same gate when approved, recorded when denied.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ApprovalSignatureError,
  ConfigError,
  RunNotAwaitingApprovalError,
  ToolNotFoundError,
  defineTool,
  deserialize,
  serialize,
  withApprovalRequest,
  withApprovalResponse,
  type AgentSnapshot,
  type QuorumOptions,
} from 'countersign';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';
import { newLedger, parsedResult, pathTool } from '../support/core-harness.js';
import { testAgent, testClock, thrown } from '../support/test-kit.js';

const SECRET = 'a-decision-secret-of-at-least-32-characters!';

/** An agent whose model asks for delete_file once, then answers; with a refund tool nobody called. */
function setup(
  extra: {
    decisionSecret?: string;
    refundApprovers?: readonly string[];
    refundApprovals?: QuorumOptions;
    approvalTtlMs?: number;
  } = {},
) {
  const ledger = newLedger();
  const clock = testClock();
  const model = createScriptedModel([
    toolCallTurn([{ id: 'call_model', name: 'delete_file', args: { path: '/a' } }]),
    textTurn('done'),
  ]);
  const refund = defineTool({
    name: 'refund',
    description: 'Refund an order',
    input: z.object({ orderId: z.string().min(1), amount: z.number().positive() }),
    needsApproval: true,
    approvalPrompt: (input) => `Refund ${input.amount} on order ${input.orderId}?`,
    ...(extra.refundApprovers === undefined ? {} : { approvers: extra.refundApprovers }),
    ...(extra.refundApprovals === undefined ? {} : { approvals: extra.refundApprovals }),
    execute: async (input, ctx) => {
      ledger.executions.push({ toolName: 'refund', input, ctx });
      return { refunded: input.orderId };
    },
  });
  const agent = testAgent({
    model,
    tools: [pathTool('delete_file', ledger), refund],
    clock,
    ...(extra.decisionSecret === undefined ? {} : { decisionSecret: extra.decisionSecret }),
    ...(extra.approvalTtlMs === undefined ? {} : { approvalTtlMs: extra.approvalTtlMs }),
  });
  return { agent, ledger, clock, model };
}

const refundRequest = {
  toolCallId: 'billing_8812',
  toolName: 'refund',
  args: { orderId: '8812', amount: 40 },
  reason: 'Billing flagged a double charge',
};

function approve(snapshot: AgentSnapshot, approvalId: string, agent: ReturnType<typeof setup>['agent']) {
  const request = snapshot.pendingApprovals.find((item) => item.approvalId === approvalId)!;
  return withApprovalResponse(
    snapshot,
    {
      approvalId,
      approved: true,
      approvedBy: 'alice',
      ...(request.signature === undefined ? {} : { signature: request.signature }),
    },
    { agent },
  );
}

describe('withApprovalRequest', () => {
  it('adds a signed request to a waiting run and leaves the input untouched', async () => {
    const { agent } = setup({ decisionSecret: SECRET });
    const paused = await agent.execute({ input: 'go' });
    const next = withApprovalRequest(paused, refundRequest, { agent });
    expect(paused.pendingApprovals).toHaveLength(1);
    expect(next.status).toBe('awaitingApproval');
    expect(next.version).toBe(paused.version + 1);
    expect(Object.isFrozen(next)).toBe(true);
    const added = next.pendingApprovals[1]!;
    expect(added).toMatchObject({
      toolCallId: 'billing_8812',
      toolName: 'refund',
      description: 'Refund 40 on order 8812?',
      reason: 'Billing flagged a double charge',
    });
    expect(added.signature).toMatch(/^v2\./);
    expect(added.approvalId).toMatch(/^apr_/);
    // A serialized round trip keeps the added call.
    expect(deserialize(serialize(next))).toEqual(next);
  });

  it('runs an approved added call exactly once through the gate and feeds its result to the model after the turn', async () => {
    const { agent, ledger, model } = setup({ decisionSecret: SECRET });
    const paused = await agent.execute({ input: 'go' });
    const next = withApprovalRequest(paused, { ...refundRequest, approvalId: 'apr_refund' }, { agent });
    const decided = approve(approve(next, paused.pendingApprovals[0]!.approvalId, agent), 'apr_refund', agent);
    const done = await agent.execute(decided);
    expect(done.status).toBe('completed');
    expect(ledger.executions.map((item) => [item.toolName, item.input, item.ctx.toolCallId])).toEqual([
      ['delete_file', { path: '/a' }, 'call_model'],
      ['refund', { orderId: '8812', amount: 40 }, 'billing_8812'],
    ]);
    expect(ledger.executions[1]!.ctx.idempotencyKey).toBe(`${paused.runId}:billing_8812`);
    // The model's message is kept as it was; the added call comes after its results, as a call of its own.
    const tail = done.messages
      .slice(-4)
      .map((message) => [
        message.role,
        message.toolCallId ?? message.toolCalls?.map((call) => call.id).join(',') ?? message.content,
      ]);
    expect(tail).toEqual([
      ['tool', 'call_model'],
      ['assistant', 'billing_8812'],
      ['tool', 'billing_8812'],
      ['assistant', 'done'],
    ]);
    expect(
      done.messages.filter((message) => message.role === 'assistant')[0]!.toolCalls?.map((call) => call.id),
    ).toEqual(['call_model']);
    expect(parsedResult(done.messages.find((message) => message.toolCallId === 'billing_8812')?.content)).toEqual({
      refunded: '8812',
    });
    // The model was called once after the turn, with the added call's result in its request.
    expect(model.calls).toHaveLength(2);
    expect(
      model.calls[1]!.messages.some((message) => message.role === 'tool' && message.toolCallId === 'billing_8812'),
    ).toBe(true);
    // Executing the finished snapshot again runs nothing again.
    await agent.execute(done);
    expect(ledger.count('refund')).toBe(1);
  });

  it('records a denial of an added call and reports it to the model without running it', async () => {
    const { agent, ledger } = setup();
    const paused = await agent.execute({ input: 'go' });
    const next = withApprovalRequest(paused, { ...refundRequest, approvalId: 'apr_refund' }, { agent });
    const denied = withApprovalResponse(
      next,
      { approvalId: 'apr_refund', approved: false, approvedBy: 'alice', reason: 'not this one' },
      { agent },
    );
    const done = await agent.execute(approve(denied, paused.pendingApprovals[0]!.approvalId, agent));
    expect(ledger.count('refund')).toBe(0);
    expect(done.audit.find((entry) => entry.approvalId === 'apr_refund')).toMatchObject({
      decision: 'denied',
      source: 'human',
      by: 'alice',
      toolCallId: 'billing_8812',
    });
    expect(parsedResult(done.messages.find((message) => message.toolCallId === 'billing_8812')?.content)).toMatchObject(
      { status: 'denied', reason: 'not this one' },
    );
  });

  it('works without the agent for a run whose agent has no decisionSecret', async () => {
    const { agent, ledger } = setup();
    const paused = await agent.execute({ input: 'go' });
    const next = withApprovalRequest(paused, {
      ...refundRequest,
      approvalId: 'apr_refund',
      description: 'Refund order 8812',
    });
    expect(next.pendingApprovals[1]).toMatchObject({ description: 'Refund order 8812' });
    expect(next.pendingApprovals[1]!.signature).toBeUndefined();
    const decided = withApprovalResponse(withApprovalResponse(next, { approvalId: 'apr_refund', approved: true }), {
      approvalId: paused.pendingApprovals[0]!.approvalId,
      approved: true,
    });
    await agent.execute(decided);
    expect(ledger.count('refund')).toBe(1);
  });

  it('refuses without the agent a run signed with a decisionSecret, naming the fix', async () => {
    const { agent } = setup({ decisionSecret: SECRET });
    const paused = await agent.execute({ input: 'go' });
    const error = thrown(() => withApprovalRequest(paused, refundRequest));
    expect(error).toBeInstanceOf(ConfigError);
    expect(error).toMatchObject({ code: 'missing_option' });
    expect((error as Error).message).toContain('withApprovalRequest(snapshot, request, { agent })');
  });

  it('refuses an unknown tool, arguments the schema refuses, and duplicate ids', async () => {
    const { agent } = setup();
    const paused = await agent.execute({ input: 'go' });
    expect(
      thrown(() => withApprovalRequest(paused, { ...refundRequest, toolName: 'wire_money' }, { agent })),
    ).toBeInstanceOf(ToolNotFoundError);
    const badArgs = thrown(() =>
      withApprovalRequest(paused, { ...refundRequest, args: { orderId: '8812', amount: -1 } }, { agent }),
    );
    expect(badArgs).toBeInstanceOf(ConfigError);
    expect((badArgs as Error).message).toContain('amount');
    const pendingId = paused.pendingApprovals[0]!.approvalId;
    expect(
      (thrown(() => withApprovalRequest(paused, { ...refundRequest, approvalId: pendingId }, { agent })) as Error)
        .message,
    ).toContain('already exists');
    // A call id the model used: its idempotency key would be that call's.
    expect(
      (thrown(() => withApprovalRequest(paused, { ...refundRequest, toolCallId: 'call_model' }, { agent })) as Error)
        .message,
    ).toContain('tool call call_model already exists');
    const once = withApprovalRequest(paused, { ...refundRequest, approvalId: 'apr_refund' }, { agent });
    expect(
      thrown(() =>
        withApprovalRequest(once, { ...refundRequest, approvalId: 'apr_refund', toolCallId: 'other' }, { agent }),
      ),
    ).toBeInstanceOf(ConfigError);
    expect(
      thrown(() => withApprovalRequest(once, { ...refundRequest, approvalId: 'apr_other' }, { agent })),
    ).toBeInstanceOf(ConfigError);
  });

  it('refuses a finished or cancelled run, and a bad request at the boundary', async () => {
    const { agent } = setup();
    const paused = await agent.execute({ input: 'go' });
    const done = await agent.execute(approve(paused, paused.pendingApprovals[0]!.approvalId, agent));
    expect(done.status).toBe('completed');
    const error = thrown(() => withApprovalRequest(done, refundRequest, { agent }));
    expect(error).toBeInstanceOf(RunNotAwaitingApprovalError);
    expect((error as Error).message).toContain('cannot be added');
    expect(
      (thrown(() => withApprovalRequest(paused, { ...refundRequest, args: 'x' } as never, { agent })) as Error).message,
    ).toContain('args must be an object');
    expect(thrown(() => withApprovalRequest(paused, { ...refundRequest, extra: 1 } as never, { agent }))).toMatchObject(
      { code: 'unknown_option' },
    );
    expect(thrown(() => withApprovalRequest(paused, { ...refundRequest, expiresAt: 1 }, { agent }))).toBeInstanceOf(
      ConfigError,
    );
    expect(
      thrown(() => withApprovalRequest(paused, { ...refundRequest, onExpire: 'keep' } as never, { agent })),
    ).toMatchObject({ code: 'unknown_option' });
  });

  it('expires no later than the tool or agent allows, and sooner when asked', async () => {
    const { agent, clock } = setup({ approvalTtlMs: 60_000 });
    const paused = await agent.execute({ input: 'go' });
    const now = clock();
    expect(withApprovalRequest(paused, refundRequest, { agent }).pendingApprovals[1]).toMatchObject({
      expiresAt: now + 60_000,
      onExpire: 'deny',
    });
    expect(
      withApprovalRequest(paused, { ...refundRequest, expiresAt: now + 1_000 }, { agent }).pendingApprovals[1]!
        .expiresAt,
    ).toBe(now + 1_000);
    expect(
      (thrown(() => withApprovalRequest(paused, { ...refundRequest, expiresAt: now + 120_000 }, { agent })) as Error)
        .message,
    ).toContain('approvalTtlMs');
  });

  it('narrows who may decide within the tool, never widens it', async () => {
    const { agent } = setup({ refundApprovers: ['finance-lead', 'cfo'] });
    const paused = await agent.execute({ input: 'go' });
    expect(withApprovalRequest(paused, refundRequest, { agent }).pendingApprovals[1]!.approvers).toEqual([
      'finance-lead',
      'cfo',
    ]);
    expect(
      withApprovalRequest(paused, { ...refundRequest, approvers: ['cfo'] }, { agent }).pendingApprovals[1]!.approvers,
    ).toEqual(['cfo']);
    expect(
      (thrown(() => withApprovalRequest(paused, { ...refundRequest, approvers: ['mallory'] }, { agent })) as Error)
        .message,
    ).toContain('mallory may not decide refund');
  });
});

describe('withApprovalRequest and grants', () => {
  it("a session denial of the model's call is granted on resume though the added call's message now ends the history", async () => {
    const { agent, clock } = setup();
    const paused = await agent.execute({ input: 'go', sessionId: 'sess-1' });
    const next = withApprovalRequest(paused, { ...refundRequest, approvalId: 'apr_refund' }, { agent });
    const modelsCall = paused.pendingApprovals[0]!.approvalId;
    const denied = withApprovalResponse(
      withApprovalResponse(
        next,
        { approvalId: modelsCall, approved: false, approvedBy: 'alice', scope: 'session' },
        { agent },
      ),
      { approvalId: 'apr_refund', approved: false, approvedBy: 'alice' },
      { agent },
    );
    // Nothing to run: the results are written at once, the added call's message after the model's.
    expect(denied.state).toBe('callingModel');
    expect(denied.messages.at(-2)?.toolCalls?.map((call) => call.id)).toEqual(['billing_8812']);
    await agent.execute(denied);
    const grants = await agent.settings.grantStore.list({ sessionId: 'sess-1', now: clock() });
    expect(grants.map((state) => [state.toolName, state.decision])).toEqual([['delete_file', 'denied']]);
  });
});

describe('withApprovalRequest with a quorum', () => {
  it("takes the tool's quorum, refuses a lower one, and runs the call only once the quorum approved", async () => {
    const { agent, ledger } = setup({ refundApprovals: { required: 2 } });
    const paused = await agent.execute({ input: 'go' });
    expect(
      (thrown(() => withApprovalRequest(paused, { ...refundRequest, quorum: { required: 1 } }, { agent })) as Error)
        .message,
    ).toContain('needs 2 approvals');
    const next = withApprovalRequest(paused, { ...refundRequest, approvalId: 'apr_refund' }, { agent });
    expect(next.pendingApprovals[1]!.quorum).toMatchObject({ required: 2 });
    const oneVote = withApprovalResponse(
      approve(next, paused.pendingApprovals[0]!.approvalId, agent),
      { approvalId: 'apr_refund', approved: true, approvedBy: 'ana' },
      { agent },
    );
    expect(oneVote.status).toBe('awaitingApproval');
    const twoVotes = withApprovalResponse(
      oneVote,
      { approvalId: 'apr_refund', approved: true, approvedBy: 'bo' },
      { agent },
    );
    await agent.execute(twoVotes);
    expect(ledger.count('refund')).toBe(1);
  });
});

describe('withApprovalRequest attacks', () => {
  it('refuses on execute an added call forged into the snapshot by hand without the signature', async () => {
    const { agent, ledger } = setup({ decisionSecret: SECRET });
    const paused = await agent.execute({ input: 'go' });
    const genuine = withApprovalRequest(paused, { ...refundRequest, approvalId: 'apr_refund' }, { agent });
    // Storage is edited: the request's signature dropped, so the decision cannot echo one.
    const { signature: _signature, ...unsigned } = genuine.pendingApprovals[1]!;
    const forged = deserialize(
      serialize({ ...genuine, pendingApprovals: [genuine.pendingApprovals[0]!, unsigned] } as AgentSnapshot),
    );
    expect(
      thrown(() =>
        withApprovalResponse(forged, { approvalId: 'apr_refund', approved: true, approvedBy: 'mallory' }, { agent }),
      ),
    ).toBeInstanceOf(ApprovalSignatureError);
    // A record marked approved by hand, with no signed decision behind it: the gate refuses before anything runs.
    const decided = approve(genuine, paused.pendingApprovals[0]!.approvalId, agent);
    const tampered = deserialize(
      serialize({
        ...decided,
        pendingApprovals: [],
        state: 'executingTools',
        status: 'running',
        toolCalls: decided.toolCalls.map((record) =>
          record.toolCallId === 'billing_8812' ? { ...record, status: 'approved' } : record,
        ),
      } as unknown as AgentSnapshot),
    );
    await expect(agent.execute(tampered)).rejects.toBeInstanceOf(ApprovalSignatureError);
    expect(ledger.count('refund')).toBe(0);
  });

  it('refuses on execute an added call whose arguments were changed in storage after it was approved', async () => {
    const { agent, ledger } = setup({ decisionSecret: SECRET });
    const paused = await agent.execute({ input: 'go' });
    const added = withApprovalRequest(paused, { ...refundRequest, approvalId: 'apr_refund' }, { agent });
    const decided = approve(approve(added, 'apr_refund', agent), paused.pendingApprovals[0]!.approvalId, agent);
    const swapped = deserialize(
      serialize({
        ...decided,
        toolCalls: decided.toolCalls.map((record) =>
          record.added === undefined ? record : { ...record, added: { args: { orderId: '8812', amount: 4000 } } },
        ),
      } as AgentSnapshot),
    );
    await expect(agent.execute(swapped)).rejects.toBeInstanceOf(ApprovalSignatureError);
    expect(ledger.count('refund')).toBe(0);
  });

  it('refuses arguments past the depth limit, with a prototype key, or that are not JSON', async () => {
    const { agent } = setup();
    const paused = await agent.execute({ input: 'go' });
    let deep: Record<string, unknown> = { leaf: true };
    for (let level = 0; level < 100; level++) deep = { next: deep };
    expect((thrown(() => withApprovalRequest(paused, { ...refundRequest, args: deep })) as Error).message).toContain(
      'nests deeper than 64 levels',
    );
    const polluted = JSON.parse('{"orderId":"1","amount":1,"__proto__":{"admin":true}}') as Record<string, unknown>;
    expect(
      (thrown(() => withApprovalRequest(paused, { ...refundRequest, args: polluted })) as Error).message,
    ).toContain('__proto__');
    expect(
      (
        thrown(() =>
          withApprovalRequest(paused, { ...refundRequest, args: { orderId: '1', amount: 1, when: new Date() } }),
        ) as Error
      ).message,
    ).toContain('plain JSON');
  });
});
