import { describe, expect, it } from 'vitest';
import { ConfigError, hasPendingApprovals, withApprovalResponse, type ToolContext } from 'countersign';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';
import { newLedger, pathTool } from '../support/core-harness.js';
import { testAgent } from '../support/test-kit.js';

type NeedsApproval = Parameters<typeof pathTool>[2] extends infer O
  ? O extends { needsApproval?: infer N }
    ? N
    : never
  : never;

async function run(needsApproval: NeedsApproval | 'leave-out', path = '/a') {
  const ledger = newLedger();
  const tool = pathTool('act', ledger, needsApproval === 'leave-out' ? {} : { needsApproval });
  const agent = testAgent({
    model: createScriptedModel([toolCallTurn([{ id: 'call_1', name: 'act', args: { path } }]), textTurn('done')]),
    tools: [tool],
  });
  const snap = await agent.execute({ input: 'go', runId: 'run_na' });
  return { snap, ledger, asked: snap.status === 'awaitingApproval', ran: ledger.count() === 1 };
}

describe('needsApproval', () => {
  it('true asks; false runs at once and records the tool as the source', async () => {
    const yes = await run(true);
    expect([yes.asked, yes.ran]).toEqual([true, false]);
    const no = await run(false);
    expect([no.asked, no.ran]).toEqual([false, true]);
    expect(no.snap.status).toBe('completed');
    expect(no.snap.audit).toEqual([
      expect.objectContaining({ decision: 'approved', source: 'tool', toolName: 'act', scope: 'once' }),
    ]);
  });

  it('a fixed { required, reason } (seed 000) asks with its reason, or runs at once; hasPendingApprovals says which', async () => {
    const ask = await run({ required: true, reason: 'Adding a domain grants permanent fetch access.' });
    expect([ask.asked, ask.ran]).toEqual([true, false]);
    expect(ask.snap.pendingApprovals[0]).toMatchObject({ reason: 'Adding a domain grants permanent fetch access.' });
    expect(hasPendingApprovals(ask.snap)).toBe(true);
    const go = await run({ required: false });
    expect([go.asked, go.ran]).toEqual([false, true]);
    expect(hasPendingApprovals(go.snap)).toBe(false);
    const decided = withApprovalResponse(ask.snap, {
      approvalId: ask.snap.pendingApprovals[0]!.approvalId,
      approved: true,
    });
    expect([decided.status, hasPendingApprovals(decided)]).toEqual(['running', false]);
    expect(() => pathTool('act', newLedger(), { needsApproval: { required: 'yes' } as never })).toThrow(
      /needsApproval must be true, false, \{ required, reason\? \} or a function/,
    );
    expect(() => pathTool('act', newLedger(), { needsApproval: { required: true, why: 'x' } as never })).toThrow(
      ConfigError,
    );
  });

  it('a tool that leaves needsApproval out needs approval (safe by default)', async () => {
    const { asked, ran, snap } = await run('leave-out');
    expect([asked, ran]).toEqual([true, false]);
    expect(snap.pendingApprovals[0]).toMatchObject({
      toolName: 'act',
      toolCallId: 'call_1',
      args: { path: '/a' },
      description: 'The act tool',
    });
  });

  for (const kind of ['sync', 'async'] as const) {
    const wrap = <T>(value: T) => (kind === 'sync' ? value : Promise.resolve(value));

    it(`a ${kind} function returning a boolean decides per call`, async () => {
      const predicate = (input: { path: string }) => wrap(input.path.startsWith('/etc'));
      expect((await run(predicate, '/etc/passwd')).asked).toBe(true);
      expect((await run(predicate, '/tmp/x')).ran).toBe(true);
    });

    it(`a ${kind} function returning { required, reason } asks with that reason, or lets the call run`, async () => {
      const predicate = (input: { path: string }) =>
        wrap(
          input.path.startsWith('/etc')
            ? { required: true, reason: 'system file' }
            : { required: false, reason: 'scratch space' },
        );
      const asked = await run(predicate, '/etc/hosts');
      expect(asked.asked).toBe(true);
      expect(asked.snap.pendingApprovals[0]!.reason).toBe('system file');
      const ran = await run(predicate, '/tmp/x');
      expect(ran.ran).toBe(true);
      expect(ran.snap.audit[0]).toMatchObject({ decision: 'approved', source: 'tool', reason: 'scratch space' });
    });
  }

  it('the function receives the validated input and a context with run id, call id and the messages so far', async () => {
    const seen: { input: unknown; ctx: ToolContext }[] = [];
    await run((input, ctx) => {
      seen.push({ input, ctx });
      return false;
    });
    expect(seen).toHaveLength(1);
    expect(seen[0]!.input).toEqual({ path: '/a' });
    expect(seen[0]!.ctx).toMatchObject({ runId: 'run_na', toolCallId: 'call_1' });
    expect(seen[0]!.ctx.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
  });

  it('a function that throws asks a person rather than letting the call through', async () => {
    const { asked, ran, snap } = await run(() => {
      throw new Error('policy service down');
    });
    expect([asked, ran]).toEqual([true, false]);
    expect(snap.pendingApprovals[0]!.reason).toBe('needsApproval threw: policy service down');
  });

  it('is not consulted for malformed arguments: the model gets the error first', async () => {
    let calls = 0;
    const ledger = newLedger();
    const tool = pathTool('act', ledger, {
      needsApproval: () => {
        calls++;
        return true;
      },
    });
    const agent = testAgent({
      model: createScriptedModel([toolCallTurn('act', { path: '' }), textTurn('done')]),
      tools: [tool],
    });
    const snap = await agent.execute({ input: 'go' });
    expect(calls).toBe(0);
    expect(snap.status).toBe('completed');
  });

  it('approvalPrompt shapes the description the approver reads; without it the tool description is used', async () => {
    const ledger = newLedger();
    const tool = pathTool('act', ledger, { approvalPrompt: (input) => `Really act on ${input.path}?` });
    const agent = testAgent({
      model: createScriptedModel([toolCallTurn('act', { path: '/srv' }), textTurn('done')]),
      tools: [tool],
    });
    const snap = await agent.execute({ input: 'go' });
    expect(snap.pendingApprovals[0]!.description).toBe('Really act on /srv?');
    expect(snap.pendingApprovals[0]!.argsDigest).toMatch(/^[0-9a-f]{64}$/);
  });
});
