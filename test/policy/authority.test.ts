// Who may decide, as one authority: names compared as people are, and votes that count once per person and cannot be
// copied or taken out in storage.
import { describe, expect, it } from 'vitest';
import {
  ApprovalSignatureError,
  ApproverNotAllowedError,
  ConfigError,
  deserialize,
  serialize,
  voteProgress,
  withApprovalResponse,
  type AgentSnapshot,
  type QuorumOptions,
} from 'countersign';
import { agentCalling, newExecutions, recordingTool } from '../support/policy-harness.js';

const decisionSecret = 'test-decision-secret-0123456789';

async function pausedOn(options: {
  approvals?: QuorumOptions;
  approvers?: string[];
  requestedBy?: string;
  secret?: boolean;
}) {
  const executions = newExecutions();
  const tool = recordingTool(
    'transfer',
    {
      needsApproval: true,
      ...(options.approvals ? { approvals: options.approvals } : {}),
      ...(options.approvers ? { approvers: options.approvers } : {}),
    },
    executions,
  );
  const agent = agentCalling([[{ name: 'transfer', args: { amount: 100 } }]], {
    tools: [tool],
    ...(options.secret ? { decisionSecret } : {}),
  });
  const snap = await agent.execute({
    input: 'pay',
    ...(options.requestedBy === undefined ? {} : { requestedBy: options.requestedBy }),
  });
  const request = snap.pendingApprovals[0]!;
  const respond = (current: AgentSnapshot, by: string, approved = true) =>
    withApprovalResponse(
      current,
      {
        approvalId: request.approvalId,
        approved,
        approvedBy: by,
        ...(request.signature === undefined ? {} : { signature: request.signature }),
      },
      { agent },
    );
  return { agent, snap, request, respond, executions };
}

function edited(snapshot: AgentSnapshot, edit: (head: any) => void): AgentSnapshot {
  const envelope = JSON.parse(serialize(snapshot));
  edit(envelope.head.json);
  return deserialize(JSON.stringify(envelope));
}

function thrown(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('names are compared as people are', () => {
  it('counts Ops-Lead, ops-lead and a trailing space as one voter', async () => {
    const { snap, request, respond } = await pausedOn({ approvals: { required: 2 } });
    const once = respond(snap, 'Ops-Lead');
    for (const spelling of ['ops-lead', 'ops-lead ', 'OPS-LEAD', 'ｏｐｓ-ｌｅａｄ']) {
      expect(respond(once, spelling)).toBe(once);
    }
    expect(voteProgress(once, request.approvalId)).toMatchObject({ approvals: 1, remaining: 1 });
  });

  it('refuses the requester voting under another spelling of their own name', async () => {
    const { snap, request, respond } = await pausedOn({ approvals: { required: 2 }, requestedBy: 'Ana' });
    for (const spelling of ['ana', ' ANA', 'Ａｎａ']) {
      const refusal = thrown(() => respond(snap, spelling));
      expect(refusal).toBeInstanceOf(ApproverNotAllowedError);
      expect((refusal as Error).message).toMatch(/asked for this run and may not approve their own request/);
    }
    expect(voteProgress(snap, request.approvalId)).toMatchObject({ approvals: 0 });
  });

  it('admits an approver listed under another case, and says who may still vote in the listed spelling', async () => {
    const { snap, respond, executions, agent } = await pausedOn({ approvers: ['Ops-Lead'] });
    const decided = respond(snap, 'ops-lead');
    expect(decided.audit.at(-1)).toMatchObject({ by: 'ops-lead', approvers: ['Ops-Lead'] });
    await agent.execute(decided);
    expect(executions.count('transfer')).toBe(1);
    const quorum = await pausedOn({ approvals: { required: 2, from: ['Ana', 'Bo', 'Cy'] } });
    const one = quorum.respond(quorum.snap, 'bo');
    expect(voteProgress(one, quorum.request.approvalId)?.mayStillVote).toEqual(['Ana', 'Cy']);
  });

  it('refuses a name with an invisible or control character, naming the character', async () => {
    const { snap, respond } = await pausedOn({ approvals: { required: 2 } });
    for (const [name, code] of [
      ['ops\u200b-lead', '200B'],
      ['ops-lead\u202e', '202E'],
      ['ops\n-lead', '000A'],
      ['\u3164', '3164'],
    ] as const) {
      const refusal = thrown(() => respond(snap, name));
      expect(refusal).toBeInstanceOf(ConfigError);
      expect((refusal as Error).message).toMatch(new RegExp(`approvedBy.*U\\+${code}`));
    }
  });
});

describe('votes count once per person and are signed as a chain', () => {
  it('with a decisionSecret, a vote copied in storage is refused, so 2 people never make a quorum of 3', async () => {
    const { snap, respond, executions } = await pausedOn({ approvals: { required: 3 }, secret: true });
    const one = respond(snap, 'ana');
    const copied = edited(one, (head) => head.pendingApprovals[0].votes.push({ ...head.pendingApprovals[0].votes[0] }));
    expect(copied.pendingApprovals[0]!.votes).toHaveLength(2);
    const refusal = thrown(() => respond(copied, 'bo'));
    expect(refusal).toBeInstanceOf(ApprovalSignatureError);
    expect((refusal as Error).message).toMatch(
      /vote recorded for ana does not match its signature or its place among the votes \(vote 2\)/,
    );
    expect(executions.count('transfer')).toBe(0);
  });

  it('without a secret a duplicated vote still counts once', async () => {
    const { snap, request, respond } = await pausedOn({ approvals: { required: 3 } });
    const one = respond(snap, 'ana');
    const copied = edited(one, (head) =>
      head.pendingApprovals[0].votes.push({ ...head.pendingApprovals[0].votes[0], by: 'ANA' }),
    );
    const two = respond(copied, 'bo');
    expect(two.status).toBe('awaitingApproval');
    expect(voteProgress(two, request.approvalId)).toMatchObject({ approvals: 2, remaining: 1 });
  });

  it('with a decisionSecret, a vote taken out of the middle or moved is noticed', async () => {
    const { snap, respond } = await pausedOn({ approvals: { required: 3 }, secret: true });
    const two = respond(respond(snap, 'ana'), 'bo');
    const removed = edited(two, (head) => head.pendingApprovals[0].votes.shift());
    expect(() => respond(removed, 'cy')).toThrow(
      /vote recorded for bo does not match its signature or its place among the votes \(vote 1\)/,
    );
    const swapped = edited(two, (head) => head.pendingApprovals[0].votes.reverse());
    expect(() => respond(swapped, 'cy')).toThrow(ApprovalSignatureError);
    expect(respond(two, 'cy').status).toBe('running');
  });
});
