import { describe, expect, it } from 'vitest';
import {
  ApprovalExpiredError,
  ConfigError,
  DecisionConflictError,
  InvalidEditError,
  RunNotAwaitingApprovalError,
  StopReason,
  UnknownApprovalError,
  approveAll,
  auditLog,
  cancel,
  denyAll,
  isCountersignError,
  withApprovalResponse,
  type AgentSnapshot,
} from 'countersign';
import { createScriptedModel, lastToolResults, textTurn, toolCallTurn } from 'countersign/testing';
import { newLedger, parsedResult, pathTool } from '../support/core-harness.js';
import { testAgent, testClock, thrown } from '../support/test-kit.js';

/** An agent whose model asks for `calls` in one turn and then answers "done". */
function setup(calls: { name: string; path: string; id?: string }[], extra: { approvalTtlMs?: number } = {}) {
  const ledger = newLedger();
  const clock = testClock();
  const names = [...new Set(calls.map((call) => call.name))];
  const agent = testAgent({
    model: createScriptedModel([
      toolCallTurn(
        calls.map((call) => ({ name: call.name, args: { path: call.path }, ...(call.id ? { id: call.id } : {}) })),
      ),
      textTurn('done'),
      textTurn('done again'),
    ]),
    tools: names.map((name) => pathTool(name, ledger)),
    clock,
    ...extra,
  });
  return { agent, ledger, clock };
}

describe('withApprovalResponse refusals', () => {
  it('refuses an unknown approval id with UnknownApprovalError naming the run, the id and the pending ids', async () => {
    const { agent } = setup([{ name: 'delete_file', path: '/a' }]);
    const paused = await agent.execute({ input: 'go' });
    const error = thrown(() => withApprovalResponse(paused, { approvalId: 'apr_nope', approved: true }, { agent }));
    expect(error).toBeInstanceOf(UnknownApprovalError);
    expect(error).toMatchObject({
      code: 'unknown_approval',
      approvalId: 'apr_nope',
      runId: paused.runId,
      fault: 'user',
    });
    expect((error as Error).message).toContain(paused.pendingApprovals[0]!.approvalId);
    expect(isCountersignError(error)).toBe(true);
    // Across realms or duplicated installs the prototype differs; name, code and fault still identify it.
    const foreign = Object.assign(new Error('x'), {
      name: 'UnknownApprovalError',
      code: 'unknown_approval',
      fault: 'user',
    });
    expect(isCountersignError(foreign)).toBe(true);
    expect(isCountersignError(new Error('plain'))).toBe(false);
  });

  it('refuses a decision on a run that is no longer awaiting approval with RunNotAwaitingApprovalError', async () => {
    const { agent, ledger } = setup([{ name: 'delete_file', path: '/a' }]);
    const paused = await agent.execute({ input: 'go' });
    const request = paused.pendingApprovals[0]!;
    const cancelled = cancel(paused, 'user left', { agent, now: 1 });
    const error = thrown(() =>
      withApprovalResponse(cancelled, { approvalId: request.approvalId, approved: true }, { agent }),
    );
    expect(error).toBeInstanceOf(RunNotAwaitingApprovalError);
    expect(error).toMatchObject({
      code: 'run_not_awaiting_approval',
      approvalId: request.approvalId,
      runId: paused.runId,
      status: 'cancelled',
    });
    expect(ledger.count()).toBe(0);
  });

  it('refuses a second, conflicting decision with DecisionConflictError carrying the winner', async () => {
    const { agent, clock } = setup([{ name: 'delete_file', path: '/a' }]);
    const paused = await agent.execute({ input: 'go' });
    const request = paused.pendingApprovals[0]!;
    const approved = withApprovalResponse(
      paused,
      { approvalId: request.approvalId, approved: true, approvedBy: 'alice' },
      { agent },
    );
    const error = thrown(() =>
      withApprovalResponse(
        approved,
        { approvalId: request.approvalId, approved: false, approvedBy: 'bob', reason: 'no' },
        { agent },
      ),
    );
    expect(error).toBeInstanceOf(DecisionConflictError);
    expect(error).toMatchObject({
      code: 'decision_conflict',
      approvalId: request.approvalId,
      winner: { decision: 'approved', by: 'alice', at: clock(), scope: 'once' },
    });
    // A different scope or a different edit is a different outcome too.
    expect(() =>
      withApprovalResponse(approved, { approvalId: request.approvalId, approved: true, scope: 'run' }, { agent }),
    ).toThrow(DecisionConflictError);
    expect(() =>
      withApprovalResponse(
        approved,
        { approvalId: request.approvalId, approved: true, args: { path: '/b' } },
        { agent },
      ),
    ).toThrow(DecisionConflictError);
  });

  it('refuses a conflicting decision after the run finished, naming the winning edit', async () => {
    const { agent } = setup([{ name: 'delete_file', path: '/a' }]);
    const paused = await agent.execute({ input: 'go' });
    const request = paused.pendingApprovals[0]!;
    const done = await agent.execute(
      withApprovalResponse(
        paused,
        { approvalId: request.approvalId, approved: true, args: { path: '/edited' } },
        { agent },
      ),
    );
    expect(done.status).toBe('completed');
    const error = thrown(() =>
      withApprovalResponse(done, { approvalId: request.approvalId, approved: false }, { agent }),
    );
    expect(error).toBeInstanceOf(DecisionConflictError);
    expect((error as DecisionConflictError).winner).toMatchObject({
      decision: 'approved',
      editedArgsDigest: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
  });

  it('refuses a decision that arrives after expiresAt with ApprovalExpiredError (onExpire deny)', async () => {
    const { agent, clock } = setup([{ name: 'delete_file', path: '/a' }], { approvalTtlMs: 60_000 });
    const paused = await agent.execute({ input: 'go' });
    const request = paused.pendingApprovals[0]!;
    expect(request.expiresAt).toBe(clock() + 60_000);
    clock.advance(60_000);
    const error = thrown(() =>
      withApprovalResponse(paused, { approvalId: request.approvalId, approved: true }, { agent }),
    );
    expect(error).toBeInstanceOf(ApprovalExpiredError);
    expect(error).toMatchObject({
      code: 'approval_expired',
      approvalId: request.approvalId,
      expiresAt: request.expiresAt,
      respondedAt: request.expiresAt,
    });
  });

  it("decides expiry by the agent's clock: a caller's respondedAt before expiresAt does not approve an expired request", async () => {
    const { agent, clock } = setup([{ name: 'delete_file', path: '/a' }], { approvalTtlMs: 60_000 });
    const paused = await agent.execute({ input: 'go' });
    const request = paused.pendingApprovals[0]!;
    clock.advance(60_000);
    const error = thrown(() =>
      withApprovalResponse(
        paused,
        { approvalId: request.approvalId, approved: true, respondedAt: request.expiresAt! - 1 },
        { agent },
      ),
    );
    expect(error).toBeInstanceOf(ApprovalExpiredError);
    expect(error).toMatchObject({ expiresAt: request.expiresAt, respondedAt: clock() });
  });

  it('refuses edited arguments that fail the tool schema with InvalidEditError listing the issues', async () => {
    const { agent, ledger } = setup([{ name: 'delete_file', path: '/a' }]);
    const paused = await agent.execute({ input: 'go' });
    const request = paused.pendingApprovals[0]!;
    const error = thrown(() =>
      withApprovalResponse(paused, { approvalId: request.approvalId, approved: true, args: { path: 42 } }, { agent }),
    );
    expect(error).toBeInstanceOf(InvalidEditError);
    expect(error).toMatchObject({
      code: 'invalid_edit',
      approvalId: request.approvalId,
      issues: [{ path: 'path', message: expect.any(String) }],
    });
    expect((error as Error).message).toContain('delete_file');
    expect(() =>
      withApprovalResponse(paused, { approvalId: request.approvalId, approved: true, args: {} }, { agent }),
    ).toThrow(InvalidEditError);
    expect(ledger.count()).toBe(0);
  });

  it('refuses edited arguments on a denial and a malformed response with ConfigError', async () => {
    const { agent } = setup([{ name: 'delete_file', path: '/a' }]);
    const paused = await agent.execute({ input: 'go' });
    const approvalId = paused.pendingApprovals[0]!.approvalId;
    expect(() =>
      withApprovalResponse(paused, { approvalId, approved: false, args: { path: '/b' } }, { agent }),
    ).toThrow(ConfigError);
    expect(() =>
      withApprovalResponse(paused, { approvalId, approved: 'yes' as unknown as boolean }, { agent }),
    ).toThrow(/approved must be true or false/);
    expect(() => withApprovalResponse(paused, { approvalId: '', approved: true }, { agent })).toThrow(ConfigError);
  });

  it('leaves the input snapshot untouched on every refusal', async () => {
    const { agent } = setup([{ name: 'delete_file', path: '/a' }]);
    const paused = await agent.execute({ input: 'go' });
    const before = structuredClone(paused);
    thrown(() => withApprovalResponse(paused, { approvalId: 'apr_nope', approved: true }, { agent }));
    thrown(() =>
      withApprovalResponse(
        paused,
        { approvalId: paused.pendingApprovals[0]!.approvalId, approved: true, args: { path: 1 } },
        { agent },
      ),
    );
    expect(paused).toEqual(before);
  });
});

describe('withApprovalResponse outcomes', () => {
  it('returns the very same snapshot for an identical repeat, whoever sends it and whenever', async () => {
    const { agent } = setup([
      { name: 'delete_file', path: '/a' },
      { name: 'delete_file', path: '/b' },
    ]);
    const paused = await agent.execute({ input: 'go' });
    const [first] = paused.pendingApprovals;
    const once = withApprovalResponse(
      paused,
      { approvalId: first!.approvalId, approved: true, approvedBy: 'alice' },
      { agent },
    );
    const again = withApprovalResponse(
      once,
      { approvalId: first!.approvalId, approved: true, approvedBy: 'bob', respondedAt: 5 },
      { agent },
    );
    expect(again).toBe(once);
    expect(again.version).toBe(once.version);
    expect(auditLog(again).filter((entry) => entry.approvalId === first!.approvalId)).toHaveLength(1);
  });

  it('an identical repeat after the run has moved on (a retried webhook) still returns the snapshot unchanged', async () => {
    const { agent } = setup([{ name: 'delete_file', path: '/a' }]);
    const paused = await agent.execute({ input: 'go' });
    const approvalId = paused.pendingApprovals[0]!.approvalId;
    const done = await agent.execute(
      withApprovalResponse(paused, { approvalId, approved: true, approvedBy: 'alice' }, { agent }),
    );
    expect(done.status).toBe('completed');
    expect(withApprovalResponse(done, { approvalId, approved: true, approvedBy: 'alice' }, { agent })).toBe(done);
  });

  it('is pure: returns a new frozen snapshot one version later and leaves the input as it was', async () => {
    const { agent } = setup([{ name: 'delete_file', path: '/a' }]);
    const paused = await agent.execute({ input: 'go' });
    const before = structuredClone(paused);
    const next = withApprovalResponse(
      paused,
      { approvalId: paused.pendingApprovals[0]!.approvalId, approved: true },
      { agent },
    );
    expect(next).not.toBe(paused);
    expect(next.version).toBe(paused.version + 1);
    expect(Object.isFrozen(next)).toBe(true);
    expect(Object.isFrozen(next.audit[0])).toBe(true);
    expect(paused).toEqual(before);
    expect(paused.status).toBe('awaitingApproval');
  });

  it('a partial answer keeps the run awaiting approval with the rest pending; execute does not run anything yet', async () => {
    const { agent, ledger } = setup([
      { name: 'delete_file', path: '/a' },
      { name: 'delete_file', path: '/b' },
      { name: 'delete_file', path: '/c' },
    ]);
    const paused = await agent.execute({ input: 'go' });
    const [a, b, c] = paused.pendingApprovals;
    const partial = withApprovalResponse(paused, { approvalId: b!.approvalId, approved: true }, { agent });
    expect(partial.status).toBe('awaitingApproval');
    expect(partial.stopReason).toBe(StopReason.AwaitingApproval);
    expect(partial.pendingApprovals.map((request) => request.approvalId)).toEqual([a!.approvalId, c!.approvalId]);
    expect(partial.toolCalls.map((record) => record.status)).toEqual(['pending', 'approved', 'pending']);

    const stillPaused = await agent.execute(partial);
    expect(stillPaused).toBe(partial);
    expect(ledger.count()).toBe(0);

    const done = await agent.execute(approveAll(partial, 'alice', { agent }));
    expect(done.status).toBe('completed');
    expect(ledger.executions.map((item) => item.input)).toEqual([{ path: '/a' }, { path: '/b' }, { path: '/c' }]);
  });

  it('approveAll decides every pending request and records who', async () => {
    const { agent, ledger } = setup([
      { name: 'delete_file', path: '/a' },
      { name: 'move_file', path: '/b' },
    ]);
    const paused = await agent.execute({ input: 'go' });
    const all = approveAll(paused, 'alice', { agent });
    expect(all.pendingApprovals).toEqual([]);
    expect(all.status).toBe('running');
    expect(all.state).toBe('executingTools');
    expect(all.audit.map((entry) => [entry.toolName, entry.decision, entry.source, entry.by])).toEqual([
      ['delete_file', 'approved', 'human', 'alice'],
      ['move_file', 'approved', 'human', 'alice'],
    ]);
    const done = await agent.execute(all);
    expect(done.status).toBe('completed');
    expect(ledger.count()).toBe(2);
  });

  it('denyAll denies every pending request with one reason; nothing runs and the model reads each denial', async () => {
    const { agent, ledger } = setup([
      { name: 'delete_file', path: '/a' },
      { name: 'move_file', path: '/b' },
    ]);
    const paused = await agent.execute({ input: 'go' });
    const denied = denyAll(paused, 'alice', 'change freeze', { agent });
    expect(denied.pendingApprovals).toEqual([]);
    // Nothing is left to run, so the denials are already tool results and the model is next.
    expect(denied.state).toBe('callingModel');
    expect(denied.toolCalls).toEqual([]);
    const done = await agent.execute(denied);
    expect(ledger.count()).toBe(0);
    expect(done.status).toBe('completed');
    const results = lastToolResults(done.messages.slice(0, -1));
    expect(results).toEqual([
      expect.objectContaining({ status: 'denied', reason: 'change freeze' }),
      expect.objectContaining({ status: 'denied', reason: 'change freeze' }),
    ]);
    expect((results[0] as { message: string }).message).toMatch(/Do not retry/);
  });

  it('approveAll and denyAll on a snapshot with nothing pending return it unchanged', async () => {
    const { agent } = setup([{ name: 'delete_file', path: '/a' }]);
    const paused = await agent.execute({ input: 'go' });
    const all = approveAll(paused, undefined, { agent });
    expect(approveAll(all, undefined, { agent })).toBe(all);
    expect(denyAll(all, undefined, undefined, { agent })).toBe(all);
  });

  it('mixed answers in one turn: approved calls run, denied ones get { status: denied, reason }, in call order', async () => {
    const { agent, ledger } = setup([
      { name: 'delete_file', path: '/a', id: 'call_a' },
      { name: 'delete_file', path: '/b', id: 'call_b' },
      { name: 'delete_file', path: '/c', id: 'call_c' },
    ]);
    const paused = await agent.execute({ input: 'go' });
    const [a, b, c] = paused.pendingApprovals;
    let next = withApprovalResponse(paused, { approvalId: a!.approvalId, approved: true }, { agent });
    next = withApprovalResponse(
      next,
      { approvalId: b!.approvalId, approved: false, reason: 'not that one' },
      { agent },
    );
    next = withApprovalResponse(next, { approvalId: c!.approvalId, approved: true }, { agent });
    const done = await agent.execute(next);
    expect(ledger.executions.map((item) => item.ctx.toolCallId)).toEqual(['call_a', 'call_c']);
    const toolMessages = done.messages.filter((message) => message.role === 'tool');
    expect(toolMessages.map((message) => message.toolCallId)).toEqual(['call_a', 'call_b', 'call_c']);
    expect(parsedResult(toolMessages[0]!.content)).toEqual({ done: 'delete_file', path: '/a' });
    expect(parsedResult(toolMessages[1]!.content)).toMatchObject({ status: 'denied', reason: 'not that one' });
    expect(parsedResult(toolMessages[2]!.content)).toEqual({ done: 'delete_file', path: '/c' });
    expect(done.output).toBe('done');
  });

  it('a denial without a reason still tells the model it was denied and not to retry', async () => {
    const { agent } = setup([{ name: 'delete_file', path: '/a' }]);
    const paused = await agent.execute({ input: 'go' });
    const done = await agent.execute(
      withApprovalResponse(paused, { approvalId: paused.pendingApprovals[0]!.approvalId, approved: false }, { agent }),
    );
    const result = parsedResult(done.messages.find((message) => message.role === 'tool')!.content);
    expect(result).toMatchObject({
      status: 'denied',
      reason: 'denied',
      message: expect.stringMatching(/denied it.*Do not retry/),
    });
  });

  it('an edit changes the arguments only: same tool, same call id, validated, both digests in the audit', async () => {
    const { agent, ledger } = setup([{ name: 'delete_file', path: '/etc/passwd', id: 'call_x' }]);
    const paused = await agent.execute({ input: 'go' });
    const request = paused.pendingApprovals[0]!;
    const edited = withApprovalResponse(
      paused,
      {
        approvalId: request.approvalId,
        approved: true,
        approvedBy: 'alice',
        args: { path: '/tmp/safe' },
        reason: 'narrowed the path',
      },
      { agent },
    );
    expect(edited.toolCalls[0]).toMatchObject({
      toolCallId: 'call_x',
      toolName: 'delete_file',
      status: 'approved',
      editedArgs: { path: '/tmp/safe' },
    });
    const done = await agent.execute(edited);
    expect(ledger.executions).toHaveLength(1);
    expect(ledger.executions[0]).toMatchObject({
      toolName: 'delete_file',
      input: { path: '/tmp/safe' },
      ctx: { toolCallId: 'call_x' },
    });
    // The model's own message keeps what it asked for; the audit keeps both digests.
    const assistant = done.messages.find((message) => message.role === 'assistant' && message.toolCalls);
    expect(assistant!.toolCalls![0]!.args).toEqual({ path: '/etc/passwd' });
    const entry = auditLog(done).find((item) => item.approvalId === request.approvalId)!;
    expect(entry).toMatchObject({
      argsDigest: request.argsDigest,
      editedArgsDigest: expect.stringMatching(/^[0-9a-f]{64}$/),
      reason: 'narrowed the path',
      by: 'alice',
    });
    expect(entry.editedArgsDigest).not.toBe(entry.argsDigest);
  });

  it("scope 'run' approves the tool by name: its siblings in the turn and later calls with other arguments", async () => {
    const ledger = newLedger();
    const agent = testAgent({
      model: createScriptedModel([
        toolCallTurn([
          { name: 'delete_file', args: { path: '/a' } },
          { name: 'delete_file', args: { path: '/b' } },
          { name: 'move_file', args: { path: '/m' } },
        ]),
        toolCallTurn('delete_file', { path: '/completely/different' }),
        toolCallTurn('move_file', { path: '/n' }),
        textTurn('done'),
      ]),
      tools: [pathTool('delete_file', ledger), pathTool('move_file', ledger)],
      clock: testClock(),
    });
    const paused = await agent.execute({ input: 'go' });
    const [a, , m] = paused.pendingApprovals;
    const remembered = withApprovalResponse(
      paused,
      { approvalId: a!.approvalId, approved: true, scope: 'run', approvedBy: 'alice' },
      { agent },
    );
    expect(remembered.runApprovals).toEqual(['delete_file']);
    expect(remembered.pendingApprovals.map((request) => request.approvalId)).toEqual([m!.approvalId]);
    expect(remembered.audit.map((entry) => [entry.toolName, entry.source, entry.scope])).toEqual([
      ['delete_file', 'human', 'run'],
      ['delete_file', 'memory', 'once'],
    ]);
    const next = withApprovalResponse(remembered, { approvalId: m!.approvalId, approved: true }, { agent });
    // The second delete_file runs without asking; move_file was approved once only, so it asks again.
    const pausedAgain = await agent.execute(next);
    expect(pausedAgain.status).toBe('awaitingApproval');
    expect(pausedAgain.pendingApprovals.map((request) => request.toolName)).toEqual(['move_file']);
    expect(ledger.executions.map((item) => item.input)).toEqual([
      { path: '/a' },
      { path: '/b' },
      { path: '/m' },
      { path: '/completely/different' },
    ]);
    expect(pausedAgain.audit.at(-1)).toMatchObject({ toolName: 'delete_file', source: 'memory', decision: 'approved' });
  });
});

describe('decisions keep their data', () => {
  it("the audit entry names the approval, call, tool, verdict, who, when (the agent's clock; the caller's own time as claimedAt) and source", async () => {
    const { agent, clock } = setup([{ name: 'delete_file', path: '/a', id: 'call_1' }]);
    const paused: AgentSnapshot = await agent.execute({ input: 'go' });
    const request = paused.pendingApprovals[0]!;
    const next = withApprovalResponse(
      paused,
      { approvalId: request.approvalId, approved: true, approvedBy: 'alice', respondedAt: clock() + 7 },
      { agent },
    );
    expect(next.audit).toEqual([
      {
        approvalId: request.approvalId,
        toolCallId: 'call_1',
        toolName: 'delete_file',
        decision: 'approved',
        source: 'human',
        scope: 'once',
        at: clock(),
        by: 'alice',
        argsDigest: request.argsDigest,
        claimedAt: clock() + 7,
      },
    ]);
    expect(next.updatedAt).toBe(clock());
  });
});
