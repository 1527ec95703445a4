import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  ApprovalSignatureError,
  ApproverNotAllowedError,
  ConfigError,
  DecisionConflictError,
  DuplicateVoteError,
  approveAll,
  defineTool,
  deserialize,
  serialize,
  voteProgress,
  withApprovalResponse,
  type AgentSnapshot,
  type PolicyRule,
  type QuorumOptions,
} from 'countersign';
import { z } from 'zod';
import { agentCalling, newExecutions, recordingTool } from '../support/policy-harness.js';

const decisionSecret = 'test-decision-secret-0123456789';

async function pausedOn(
  approvals: QuorumOptions,
  options: { requestedBy?: string; secret?: boolean; rules?: PolicyRule[]; calls?: number } = {},
) {
  const executions = newExecutions();
  const tool = recordingTool('transfer', { needsApproval: true, approvals }, executions);
  const calls = Array.from({ length: options.calls ?? 1 }, (_, index) => ({
    name: 'transfer',
    args: { amount: 100 + index },
  }));
  const agent = agentCalling([calls], {
    tools: [tool],
    ...(options.secret ? { decisionSecret } : {}),
    ...(options.rules ? { policy: { rules: options.rules } } : {}),
  });
  const snap = await agent.execute({
    input: 'pay',
    ...(options.requestedBy === undefined ? {} : { requestedBy: options.requestedBy }),
  });
  expect(snap.status).toBe('awaitingApproval');
  const request = snap.pendingApprovals[0]!;
  const vote = (current: AgentSnapshot, by: string | undefined, approved = true, extra: Record<string, unknown> = {}) =>
    withApprovalResponse(
      current,
      {
        approvalId: request.approvalId,
        approved,
        ...(by === undefined ? {} : { approvedBy: by }),
        ...(request.signature === undefined ? {} : { signature: request.signature }),
        ...extra,
      },
      { agent },
    );
  return { agent, snap, request, vote, executions };
}

describe('quorum: several approvers', () => {
  it('records votes until the quorum is met, then the call runs once with every voter in the audit', async () => {
    const { agent, snap, request, vote, executions } = await pausedOn({ required: 2 }, { secret: true });
    expect(request.quorum).toEqual({ required: 2, distinctPeople: true, excludeRequester: true, anyDenyDenies: true });
    const one = vote(snap, 'ana');
    expect(one.status).toBe('awaitingApproval');
    expect(one.pendingApprovals[0]!.votes).toMatchObject([{ by: 'ana', approved: true }]);
    expect(voteProgress(one, request.approvalId)).toMatchObject({ approvals: 1, required: 2, remaining: 1 });
    const two = vote(one, 'bo');
    expect(two.status).toBe('running');
    const entry = two.audit.at(-1)!;
    expect(entry).toMatchObject({ decision: 'approved', source: 'human', by: 'bo', scope: 'once' });
    expect(entry.votes!.map((item) => item.by)).toEqual(['ana', 'bo']);
    const done = await agent.execute(two);
    expect(done.status).toBe('completed');
    expect(executions.count('transfer')).toBe(1);
  });

  it('counts each person once: a repeat of their own vote changes nothing, a changed vote is a conflict naming them', async () => {
    const { snap, vote } = await pausedOn({ required: 2 });
    const one = vote(snap, 'ana');
    expect(vote(one, 'ana')).toBe(one);
    expect(() => vote(one, 'ana', false)).toThrow(DuplicateVoteError);
    expect(() => vote(one, 'ana', false)).toThrow(/ana already voted to approve/);
  });

  it('with distinctPeople: false one person may count twice (a two-step confirm)', async () => {
    const { snap, vote } = await pausedOn({ required: 2, distinctPeople: false });
    expect(vote(vote(snap, 'ana'), 'ana').status).toBe('running');
  });

  it("refuses the run's requester, unless excludeRequester is false", async () => {
    const strict = await pausedOn({ required: 2 }, { requestedBy: 'ana', secret: true });
    expect(() => strict.vote(strict.snap, 'ana')).toThrow(ApproverNotAllowedError);
    expect(() => strict.vote(strict.snap, 'ana')).toThrow(/asked for this run/);
    const lax = await pausedOn({ required: 2, excludeRequester: false }, { requestedBy: 'ana' });
    expect(lax.vote(lax.snap, 'ana').pendingApprovals[0]!.votes).toHaveLength(1);
  });

  it('takes votes only from the from list (or predicate), and refuses anonymous votes', async () => {
    const listed = await pausedOn({ required: 2, from: ['ana', 'bo', 'cy'] });
    expect(() => listed.vote(listed.snap, 'mallory')).toThrow(/only ana, bo, cy may vote/);
    expect(() => listed.vote(listed.snap, undefined)).toThrow(ApproverNotAllowedError);
    const predicate = await pausedOn({ required: 2, from: (by) => by?.endsWith('@ops') === true });
    expect(predicate.request.quorum!.from).toBeUndefined();
    expect(() => predicate.vote(predicate.snap, 'eve@dev')).toThrow(ApproverNotAllowedError);
    expect(predicate.vote(predicate.snap, 'ana@ops').pendingApprovals[0]!.votes).toHaveLength(1);
  });

  it("a rule's approvals win over the tool's", async () => {
    const { request } = await pausedOn(
      { required: 2 },
      { rules: [{ tool: 'transfer', action: 'ask', approvals: { required: 3, anyDenyDenies: false } }] },
    );
    expect(request.quorum).toMatchObject({ required: 3, anyDenyDenies: false });
  });

  it('anyDenyDenies (default): one deny denies at once, with the votes recorded', async () => {
    const { agent, snap, vote, executions } = await pausedOn({ required: 2 });
    const denied = vote(vote(snap, 'ana'), 'bo', false, { reason: 'wrong account' });
    expect(denied.audit.at(-1)).toMatchObject({ decision: 'denied', by: 'bo', reason: 'wrong account' });
    expect(denied.audit.at(-1)!.votes).toHaveLength(2);
    await agent.execute(denied);
    expect(executions.count('transfer')).toBe(0);
  });

  it('anyDenyDenies: false: a deny is a vote, and the request is denied once the listed voters left cannot reach the quorum', async () => {
    const { snap, vote } = await pausedOn({ required: 2, from: ['ana', 'bo', 'cy'], anyDenyDenies: false });
    const oneNo = vote(snap, 'ana', false);
    expect(oneNo.status).toBe('awaitingApproval');
    expect(voteProgress(oneNo, oneNo.pendingApprovals[0]!.approvalId)).toMatchObject({
      approvals: 0,
      denials: 1,
      remaining: 2,
      mayStillVote: ['bo', 'cy'],
    });
    const twoNo = vote(oneNo, 'bo', false);
    expect(twoNo.audit.at(-1)).toMatchObject({
      decision: 'denied',
      reason: 'too few approvers left to reach 2 approvals',
    });
  });

  it('a vote after the outcome is a conflict that names it; the last voter repeating their vote is not', async () => {
    const { snap, vote } = await pausedOn({ required: 2 });
    const decided = vote(vote(snap, 'ana'), 'bo');
    expect(vote(decided, 'bo')).toBe(decided);
    expect(() => vote(decided, 'cy')).toThrow(DecisionConflictError);
    expect(() => vote(decided, 'cy')).toThrow(/already approved .*\(approved by ana, bo\); a vote after the outcome/);
  });

  it('refuses edits, run-wide scope and dismissals on a quorum request, saying why', async () => {
    const { snap, vote } = await pausedOn({ required: 2 });
    expect(() => vote(snap, 'ana', true, { args: { amount: 1 } })).toThrow(ConfigError);
    expect(() => vote(snap, 'ana', true, { args: { amount: 1 } })).toThrow(/cannot be edited/);
    expect(() => vote(snap, 'ana', true, { scope: 'run' })).toThrow(
      /scope 'run': one voter's word must not stand in for a quorum/,
    );
    expect(() => vote(snap, 'ana', true, { scope: 'agent', grant: { ttlMs: 60_000 } })).toThrow(
      /scope 'agent': one voter's word must not stand in for a quorum/,
    );
    expect(() => vote(snap, 'ana', false, { dismissed: true })).toThrow(/closing the dialog is not a vote/);
  });

  it("one person's run memory never covers a sibling call that needs a quorum; approveAll casts one vote on each", async () => {
    const { agent, snap } = await pausedOn({ required: 2 }, { calls: 2 });
    const first = snap.pendingApprovals[0]!;
    expect(() =>
      withApprovalResponse(
        snap,
        { approvalId: first.approvalId, approved: true, approvedBy: 'ana', scope: 'run' },
        { agent },
      ),
    ).toThrow(ConfigError);
    const all = approveAll(snap, 'ana', { agent });
    expect(all.pendingApprovals.map((request) => request.votes!.length)).toEqual([1, 1]);
    expect(approveAll(all, 'bo', { agent }).status).toBe('running');
  });

  it('with a decisionSecret a vote forged in storage is refused: the quorum is not reached', async () => {
    const { snap, vote, request } = await pausedOn({ required: 2 }, { secret: true });
    const stored = JSON.parse(serialize(snap));
    stored.head.json.pendingApprovals[0].votes = [{ by: 'mallory', approved: true, at: 1 }];
    const forged = deserialize(JSON.stringify(stored));
    expect(forged.pendingApprovals[0]!.votes).toHaveLength(1);
    expect(() => vote(forged, 'bo')).toThrow(ApprovalSignatureError);
    // A genuine vote changed in storage (turned into someone else's) is refused too.
    const one = JSON.parse(serialize(vote(snap, 'ana')));
    one.head.json.pendingApprovals[0].votes[0].by = 'cy';
    expect(() => vote(deserialize(JSON.stringify(one)), 'bo')).toThrow(
      /vote recorded for cy does not match its signature/,
    );
    expect(request.signature).toBeDefined();
  });

  it('validates approvals with clear errors', () => {
    const make = (approvals: unknown) => () =>
      defineTool({
        name: 't',
        description: 'd',
        input: z.object({}),
        execute: () => 1,
        approvals: approvals as QuorumOptions,
      });
    expect(make({ required: 0 })).toThrow(/approvals.required must be at least 1/);
    expect(make({ required: 21 })).toThrow(/at most 20/);
    expect(make({ required: 1.5 })).toThrow(/whole number/);
    expect(make({ required: 3, from: ['a', 'b'] })).toThrow(/fewer voters in from than required/);
    expect(make({ required: 2, quorum: 1 })).toThrow(ConfigError);
    expect(make({ required: 2, from: ['a', 'b'] })).not.toThrow();
  });

  it('property: the quorum is reached exactly when `required` distinct eligible people approved, whatever the order', async () => {
    const people = ['ana', 'bo', 'cy', 'di', 'ed'];
    const { snap, vote, request } = await pausedOn({ required: 3, from: people });
    await fc.assert(
      fc.property(fc.array(fc.constantFrom(...people), { minLength: 1, maxLength: 12 }), (order) => {
        let current = snap;
        const seen = new Set<string>();
        for (const by of order) {
          if (current.status !== 'awaitingApproval') {
            if (!seen.has(by)) expect(() => vote(current, by)).toThrow(DecisionConflictError);
            continue;
          }
          current = vote(current, by);
          seen.add(by);
          const decided = current.audit.some((entry) => entry.approvalId === request.approvalId);
          expect(decided).toBe(seen.size >= 3);
        }
      }),
    );
  });
});
