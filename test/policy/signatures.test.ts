import { describe, expect, it } from 'vitest';
import {
  ApprovalSignatureError,
  ApproverNotAllowedError,
  deserialize,
  serialize,
  withApprovalResponse,
  type AgentSnapshot,
} from 'countersign';
import { agentCalling, newExecutions, recordingTool } from '../support/policy-harness.js';

const decisionSecret = 'test-decision-secret-0123456789';

/** Edits a serialized snapshot the way an attacker with access to storage would. */
function tamper(snapshot: AgentSnapshot, edit: (envelope: any) => void): AgentSnapshot {
  const envelope = JSON.parse(serialize(snapshot));
  edit(envelope);
  return deserialize(JSON.stringify(envelope));
}

async function pausedTwoCalls() {
  const executions = newExecutions();
  const tool = recordingTool('transfer', { needsApproval: true }, executions);
  const agent = agentCalling(
    [[{ name: 'transfer', args: { to: 'alice', amount: 10 } }, { name: 'transfer', args: { to: 'bob', amount: 20 } }]],
    { tools: [tool], decisionSecret },
  );
  const paused = await agent.execute({ input: 'pay them' });
  return { agent, paused, executions };
}

describe('signed decisions', () => {
  it('every request carries a signature, and a response that echoes it is accepted', async () => {
    const { agent, paused, executions } = await pausedTwoCalls();
    expect(paused.pendingApprovals.every((request) => typeof request.signature === 'string')).toBe(true);
    let next = paused;
    for (const request of paused.pendingApprovals) {
      next = withApprovalResponse(next, { approvalId: request.approvalId, approved: true, approvedBy: 'ops', signature: request.signature! });
    }
    const done = await agent.execute(next);
    expect(done.status).toBe('completed');
    expect(executions.count('transfer')).toBe(2);
    expect(done.audit.every((entry) => typeof entry.signature === 'string')).toBe(true);
  });

  it('refuses a response without the signature', async () => {
    const { paused } = await pausedTwoCalls();
    const request = paused.pendingApprovals[0]!;
    expect(() => withApprovalResponse(paused, { approvalId: request.approvalId, approved: true })).toThrow(ApprovalSignatureError);
  });

  it('refuses an approval forged for another approval id', async () => {
    const { paused, executions } = await pausedTwoCalls();
    const [first, second] = paused.pendingApprovals;
    const attempt = () => withApprovalResponse(paused, { approvalId: second!.approvalId, approved: true, signature: first!.signature! });
    expect(attempt).toThrow(ApprovalSignatureError);
    try {
      attempt();
    } catch (error) {
      expect((error as ApprovalSignatureError).approvalId).toBe(second!.approvalId);
    }
    expect(executions.count('transfer')).toBe(0);
  });

  it("refuses a decision when a pending call's arguments were changed in the stored snapshot", async () => {
    const { paused, executions } = await pausedTwoCalls();
    const altered = tamper(paused, (envelope) => {
      const assistant = envelope.messages.findLast((message: any) => message.role === 'assistant');
      assistant.toolCalls[0].args.to = 'mallory';
      assistant.toolCalls[0].args.amount = 10_000;
    });
    const request = altered.pendingApprovals[0]!;
    expect(() => withApprovalResponse(altered, { approvalId: request.approvalId, approved: true, signature: request.signature! })).toThrow(
      /no longer matches/,
    );
    expect(executions.count('transfer')).toBe(0);
  });

  it('refuses a request whose digest was rewritten to match altered arguments', async () => {
    const { paused } = await pausedTwoCalls();
    const altered = tamper(paused, (envelope) => {
      const assistant = envelope.messages.findLast((message: any) => message.role === 'assistant');
      assistant.toolCalls[0].args.to = 'mallory';
      envelope.head.json.pendingApprovals[0].argsDigest = 'f'.repeat(64);
    });
    const request = altered.pendingApprovals[0]!;
    expect(() => withApprovalResponse(altered, { approvalId: request.approvalId, approved: true, signature: request.signature! })).toThrow(ApprovalSignatureError);
  });

  it('refuses to run an approved call whose arguments were changed after the approval', async () => {
    const { agent, paused, executions } = await pausedTwoCalls();
    let decided = paused;
    for (const request of paused.pendingApprovals) {
      decided = withApprovalResponse(decided, { approvalId: request.approvalId, approved: true, signature: request.signature! });
    }
    const altered = tamper(decided, (envelope) => {
      const assistant = envelope.messages.findLast((message: any) => message.role === 'assistant');
      assistant.toolCalls[1].args.amount = 20_000;
    });
    await expect(agent.execute(altered)).rejects.toThrow(ApprovalSignatureError);
    expect(executions.count('transfer')).toBe(0);
  });

  it('refuses to run a call marked approved without a signed approval', async () => {
    const { agent, paused, executions } = await pausedTwoCalls();
    const [first, second] = paused.pendingApprovals;
    const oneDenied = withApprovalResponse(paused, { approvalId: first!.approvalId, approved: false, signature: first!.signature! });
    const forged = tamper(oneDenied, (envelope) => {
      const record = envelope.head.json.toolCalls[0];
      record.status = 'approved';
      delete record.result;
      envelope.head.json.audit[0].decision = 'approved';
    });
    const decided = withApprovalResponse(forged, { approvalId: second!.approvalId, approved: true, signature: second!.signature! });
    await expect(agent.execute(decided)).rejects.toThrow(ApprovalSignatureError);
    expect(executions.count('transfer')).toBe(0);
  });
});

describe('approvers', () => {
  async function paused(config: { ruleApprovers?: string[]; toolApprovers?: string[] | ((by: string | undefined) => boolean) }) {
    const tool = recordingTool('deploy', { needsApproval: true, ...(config.toolApprovers === undefined ? {} : { approvers: config.toolApprovers }) });
    const agent = agentCalling([[{ name: 'deploy', args: {} }]], {
      tools: [tool],
      ...(config.ruleApprovers === undefined ? {} : { policy: { rules: [{ id: 'deploys', tool: 'deploy', action: 'ask', approvers: config.ruleApprovers }] } }),
    });
    return agent.execute({ input: 'deploy' });
  }

  it("a rule's approvers list decides who may decide", async () => {
    const snap = await paused({ ruleApprovers: ['alice', 'carol'] });
    const approvalId = snap.pendingApprovals[0]!.approvalId;
    expect(snap.pendingApprovals[0]!.approvers).toEqual(['alice', 'carol']);
    const byBob = () => withApprovalResponse(snap, { approvalId, approved: true, approvedBy: 'bob' });
    expect(byBob).toThrow(ApproverNotAllowedError);
    try {
      byBob();
    } catch (error) {
      expect(error).toMatchObject({ approvalId, approvedBy: 'bob', code: 'approver_not_allowed' });
    }
    expect(() => withApprovalResponse(snap, { approvalId, approved: true })).toThrow(/anonymous approver/);
    expect(withApprovalResponse(snap, { approvalId, approved: true, approvedBy: 'carol' }).audit.at(-1)).toMatchObject({ by: 'carol' });
  });

  it("a tool's approvers (a list or a predicate) decide when no rule does", async () => {
    const listed = await paused({ toolApprovers: ['ops'] });
    expect(() => withApprovalResponse(listed, { approvalId: listed.pendingApprovals[0]!.approvalId, approved: false, approvedBy: 'dev' })).toThrow(ApproverNotAllowedError);
    const predicate = await paused({ toolApprovers: (by) => by?.endsWith('@ops.example.com') ?? false });
    const approvalId = predicate.pendingApprovals[0]!.approvalId;
    expect(() => withApprovalResponse(predicate, { approvalId, approved: true, approvedBy: 'eve@example.com' })).toThrow(ApproverNotAllowedError);
    expect(withApprovalResponse(predicate, { approvalId, approved: true, approvedBy: 'sam@ops.example.com' }).status).toBe('running');
  });

  it('without an approvers list anyone may decide', async () => {
    const snap = await paused({});
    expect(withApprovalResponse(snap, { approvalId: snap.pendingApprovals[0]!.approvalId, approved: true, approvedBy: 'anyone' }).status).toBe('running');
  });
});
