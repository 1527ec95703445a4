import { describe, expect, it } from 'vitest';
import {
  ApprovalExpiredError,
  auditLog,
  deserialize,
  serialize,
  withApprovalResponse,
  type OnExpire,
} from 'countersign';
import { expiryDecisions } from '../../src/policy/expiry.js';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';
import { newLedger, parsedResult, pathTool } from '../support/core-harness.js';
import { testAgent, testClock } from '../support/test-kit.js';

// A start time with a non-zero millisecond part, so a lost millisecond would show.
const START = Date.UTC(2026, 2, 3, 4, 5, 6, 789);

function setup(options: { agentTtl?: number; toolTtl?: number; onExpire?: OnExpire; calls?: string[] } = {}) {
  const ledger = newLedger();
  const clock = testClock(START);
  const calls = options.calls ?? ['slow_tool'];
  const agent = testAgent({
    model: createScriptedModel([
      toolCallTurn(calls.map((name, index) => ({ id: `call_${index}`, name, args: { path: `/${index}` } }))),
      textTurn('done'),
    ]),
    tools: [...new Set(calls)].map((name) =>
      pathTool(
        name,
        ledger,
        name === 'quick_tool' && options.toolTtl !== undefined ? { approvalTtlMs: options.toolTtl } : {},
      ),
    ),
    clock,
    ...(options.agentTtl === undefined ? {} : { approvalTtlMs: options.agentTtl }),
    ...(options.onExpire === undefined ? {} : { onExpire: options.onExpire }),
  });
  return { agent, ledger, clock };
}

describe('approval expiry', () => {
  it('no approvalTtlMs means no expiry', async () => {
    const { agent, clock } = setup();
    const paused = await agent.execute({ input: 'go' });
    expect(paused.pendingApprovals[0]!.expiresAt).toBeUndefined();
    clock.advance(365 * 24 * 3600_000);
    expect(await agent.execute(paused)).toBe(paused);
  });

  it("the agent's approvalTtlMs sets expiresAt to the millisecond; a tool's own approvalTtlMs overrides it", async () => {
    const { agent } = setup({ agentTtl: 60_000, toolTtl: 1_234, calls: ['slow_tool', 'quick_tool'] });
    const paused = await agent.execute({ input: 'go' });
    expect(
      paused.pendingApprovals.map((request) => [
        request.toolName,
        request.requestedAt,
        request.expiresAt,
        request.onExpire,
      ]),
    ).toEqual([
      ['slow_tool', START, START + 60_000, 'deny'],
      ['quick_tool', START, START + 1_234, 'deny'],
    ]);
    // Precision survives the wire.
    expect(deserialize(serialize(paused)).pendingApprovals[1]!.expiresAt).toBe(START + 1_234);
  });

  it("onExpire 'deny' (default): at resume an expired undecided request is denied with reason expired and source expiry", async () => {
    const { agent, clock, ledger } = setup({ agentTtl: 1 });
    const paused = await agent.execute({ input: 'go' });
    const request = paused.pendingApprovals[0]!;
    expect(request.expiresAt).toBe(START + 1);

    // One millisecond before: nothing changes.
    expect(expiryDecisions(paused, START)).toEqual([]);
    expect(await agent.execute(paused)).toBe(paused);

    clock.set(START + 1);
    const done = await agent.execute(paused);
    expect(ledger.count()).toBe(0);
    expect(done.status).toBe('completed');
    expect(auditLog(done)).toEqual([
      {
        approvalId: request.approvalId,
        toolCallId: 'call_0',
        toolName: 'slow_tool',
        decision: 'denied',
        source: 'expiry',
        scope: 'once',
        at: START + 1,
        reason: 'expired',
        argsDigest: request.argsDigest,
      },
    ]);
    const result = parsedResult(done.messages.find((message) => message.role === 'tool')!.content);
    expect(result).toMatchObject({
      status: 'denied',
      reason: 'expired',
      message: expect.stringMatching(/expired.*Do not retry/),
    });
  });

  it('a late human decision on an expired request is refused with ApprovalExpiredError; the input stays as it was', async () => {
    const { agent, clock } = setup({ agentTtl: 500 });
    const paused = await agent.execute({ input: 'go' });
    clock.advance(500);
    const approvalId = paused.pendingApprovals[0]!.approvalId;
    expect(() => withApprovalResponse(paused, { approvalId, approved: true }, { agent })).toThrow(ApprovalExpiredError);
    expect(paused.status).toBe('awaitingApproval');
  });

  it('a late approval after the expiry was applied is still an ApprovalExpiredError, not a conflict; a late denial is a no-op', async () => {
    const { agent, clock } = setup({ agentTtl: 1_000 });
    const paused = await agent.execute({ input: 'go' });
    const approvalId = paused.pendingApprovals[0]!.approvalId;
    clock.advance(5_000);
    const swept = await agent.execute(paused);
    expect(swept.audit.at(-1)).toMatchObject({ approvalId, source: 'expiry' });
    clock.advance(1_000);
    let error: unknown;
    try {
      withApprovalResponse(swept, { approvalId, approved: true, approvedBy: 'alice' }, { agent });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ApprovalExpiredError);
    // expiresAt is when the expiry was applied: the request itself is gone from the finished turn.
    expect(error).toMatchObject({
      code: 'approval_expired',
      approvalId,
      expiresAt: START + 5_000,
      respondedAt: START + 6_000,
    });
    expect(withApprovalResponse(swept, { approvalId, approved: false }, { agent })).toBe(swept);
  });

  it('only the expired requests are denied; the others stay pending and decidable', async () => {
    const { agent, clock, ledger } = setup({ agentTtl: 60_000, toolTtl: 10, calls: ['slow_tool', 'quick_tool'] });
    const paused = await agent.execute({ input: 'go' });
    clock.advance(10);
    const partly = await agent.execute(paused);
    expect(partly.status).toBe('awaitingApproval');
    expect(partly.pendingApprovals.map((request) => request.toolName)).toEqual(['slow_tool']);
    expect(partly.toolCalls.map((record) => record.status)).toEqual(['pending', 'expired']);
    expect(partly.version).toBe(paused.version + 1);

    const done = await agent.execute(
      withApprovalResponse(partly, { approvalId: partly.pendingApprovals[0]!.approvalId, approved: true }, { agent }),
    );
    expect(done.status).toBe('completed');
    expect(ledger.executions.map((item) => item.toolName)).toEqual(['slow_tool']);
  });

  it("onExpire 'keep': an expired request stays pending and a person can still approve it", async () => {
    const { agent, clock, ledger } = setup({ agentTtl: 1_000, onExpire: 'keep' });
    const paused = await agent.execute({ input: 'go' });
    expect(paused.pendingApprovals[0]!.onExpire).toBe('keep');
    clock.advance(10 * 1_000);
    expect(expiryDecisions(paused, clock())).toEqual([]);
    expect(await agent.execute(paused)).toBe(paused);
    const approved = withApprovalResponse(
      paused,
      { approvalId: paused.pendingApprovals[0]!.approvalId, approved: true },
      { agent },
    );
    const done = await agent.execute(approved);
    expect(done.status).toBe('completed');
    expect(ledger.count()).toBe(1);
  });
});
