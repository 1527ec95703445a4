// The gate before every tool runs, and the decision paths it backs: whatever recorded an approval, a call runs only
// when its signed decision entry proves someone allowed (or a quorum of allowed people) approved it.
import { describe, expect, it } from 'vitest';
import {
  CallNotCoveredError,
  deserialize,
  serialize,
  withApprovalResponse,
  type AgentSnapshot,
  type PolicyRule,
} from 'countersign';
import { agentCalling, newExecutions, recordingTool } from '../support/policy-harness.js';

const decisionSecret = 'test-decision-secret-0123456789';

/** Transfers over 500 need two of ana, bo and cy; smaller ones need one person. */
const bigTransfers: PolicyRule = {
  id: 'big-transfers',
  tool: 'transfer',
  action: 'ask',
  when: (args: { amount: number }) => args.amount > 500,
  approvals: { required: 2, from: ['ana', 'bo', 'cy'] },
};

async function pausedOnTwoTransfers(options: { secret?: boolean } = {}) {
  const executions = newExecutions();
  const agent = agentCalling(
    [
      [
        { name: 'transfer', args: { amount: 10 } },
        { name: 'transfer', args: { amount: 1000 } },
      ],
    ],
    {
      tools: [recordingTool('transfer', { needsApproval: true }, executions)],
      policy: { rules: [bigTransfers] },
      ...(options.secret ? { decisionSecret } : {}),
    },
  );
  const paused = await agent.execute({ input: 'pay', sessionId: 'chat-1' });
  expect(paused.pendingApprovals).toHaveLength(2);
  const small = paused.pendingApprovals.find((request) => request.quorum === undefined)!;
  const big = paused.pendingApprovals.find((request) => request.quorum !== undefined)!;
  return { agent, paused, small, big, executions };
}

/** The snapshot with its JSON edited, as a storage writer could. */
function edited(snapshot: AgentSnapshot, edit: (envelope: any) => void): AgentSnapshot {
  const envelope = JSON.parse(serialize(snapshot));
  edit(envelope);
  return deserialize(JSON.stringify(envelope));
}

describe('a session or agent approval of one call never approves a sibling that needs a quorum', () => {
  for (const [label, response] of [
    ['for this session', { scope: 'session' as const }],
    ['for this session, 1 time', { scope: 'session' as const, grant: { uses: 1 } }],
    ['for the agent, 15 minutes', { scope: 'agent' as const, grant: { ttlMs: 15 * 60_000 } }],
  ] as const) {
    it(`approving the small transfer ${label} leaves the big one pending for its quorum`, async () => {
      for (const secret of [false, true]) {
        const { agent, paused, small, big, executions } = await pausedOnTwoTransfers({ secret });
        const decided = withApprovalResponse(
          paused,
          {
            approvalId: small.approvalId,
            approved: true,
            approvedBy: 'mallory',
            ...(small.signature === undefined ? {} : { signature: small.signature }),
            ...response,
          },
          { agent },
        );
        expect(decided.status).toBe('awaitingApproval');
        expect(decided.pendingApprovals.map((request) => request.approvalId)).toEqual([big.approvalId]);
        expect(decided.audit.filter((entry) => entry.source === 'grant')).toEqual([]);
        expect(executions.count('transfer')).toBe(0);
      }
    });
  }

  it('a denial for the session still denies the quorum sibling (fail closed)', async () => {
    const { agent, paused, small, executions } = await pausedOnTwoTransfers();
    const decided = withApprovalResponse(
      paused,
      { approvalId: small.approvalId, approved: false, approvedBy: 'mallory', scope: 'session' },
      { agent },
    );
    expect(decided.pendingApprovals).toEqual([]);
    const done = await agent.execute(decided);
    expect(done.status).toBe('completed');
    expect(executions.count('transfer')).toBe(0);
  });
});

describe('the gate before a tool runs', () => {
  /**
   * The big transfer marked approved by an entry that claims `source`, by mallory, with no votes: what a decision
   * step that wrongly believed one person covers it would record (the request's rule and quorum kept, as every path
   * records them). Without a secret nothing checks signatures, so this stands for a wrong decision step.
   */
  function forgedApproval(
    paused: AgentSnapshot,
    bigApprovalId: string,
    source: string,
    extra: Record<string, unknown> = {},
  ): AgentSnapshot {
    return edited(paused, (envelope) => {
      const head = envelope.head.json;
      const request = head.pendingApprovals.find((item: any) => item.approvalId === bigApprovalId);
      head.pendingApprovals = head.pendingApprovals.filter((item: any) => item.approvalId !== bigApprovalId);
      const record = head.toolCalls.find((item: any) => item.approvalId === bigApprovalId);
      record.status = 'approved';
      head.audit.push({
        approvalId: bigApprovalId,
        toolCallId: request.toolCallId,
        toolName: 'transfer',
        decision: 'approved',
        source,
        scope: 'once',
        at: 1,
        argsDigest: request.argsDigest,
        by: 'mallory',
        ruleId: request.ruleId,
        quorum: request.quorum,
        ...extra,
      });
    });
  }

  for (const source of ['grant', 'memory', 'human']) {
    it(`refuses a quorum call recorded as approved by one person through ${source}, even with no decision secret`, async () => {
      const { agent, paused, small, big, executions } = await pausedOnTwoTransfers();
      const forged = forgedApproval(
        paused,
        big.approvalId,
        source,
        source === 'grant' ? { grantId: 'grt_forged' } : {},
      );
      const decided = withApprovalResponse(
        forged,
        { approvalId: small.approvalId, approved: true, approvedBy: 'ana' },
        { agent },
      );
      const refused = await agent.execute(decided).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(CallNotCoveredError);
      expect((refused as Error).message).toMatch(/needs 2 approvals/);
      expect(executions.count('transfer')).toBe(0);
    });
  }

  it('refuses a quorum decision whose votes are one person under two spellings', async () => {
    const { agent, paused, small, big, executions } = await pausedOnTwoTransfers();
    const votes = [
      { by: 'ana', approved: true, at: 1 },
      { by: 'ANA ', approved: true, at: 2 },
    ];
    const forged = forgedApproval(paused, big.approvalId, 'human', { by: 'ANA ', votes, quorum: big.quorum });
    const decided = withApprovalResponse(
      forged,
      { approvalId: small.approvalId, approved: true, approvedBy: 'ana' },
      { agent },
    );
    await expect(agent.execute(decided)).rejects.toThrow(/from distinct allowed voters and its votes hold 1/);
    expect(executions.count('transfer')).toBe(0);
  });

  it('refuses a decision by someone the call does not admit, recorded without the request being asked', async () => {
    const executions = newExecutions();
    const agent = agentCalling([[{ name: 'deploy', args: {} }]], {
      tools: [recordingTool('deploy', { needsApproval: true, approvers: ['alice'] }, executions)],
    });
    const paused = await agent.execute({ input: 'deploy' });
    const request = paused.pendingApprovals[0]!;
    const forged = edited(paused, (envelope) => {
      const head = envelope.head.json;
      head.pendingApprovals = [];
      head.toolCalls[0].status = 'approved';
      head.state = 'executingTools';
      head.status = 'running';
      delete head.stopReason;
      head.audit.push({
        approvalId: request.approvalId,
        toolCallId: request.toolCallId,
        toolName: 'deploy',
        decision: 'approved',
        source: 'human',
        scope: 'once',
        at: 1,
        argsDigest: request.argsDigest,
        by: 'mallory',
        approvers: ['alice'],
      });
    });
    await expect(agent.execute(forged)).rejects.toThrow(/mallory may not decide it/);
    expect(executions.count('deploy')).toBe(0);
  });

  it('runs what a quorum of distinct allowed people approved, and a person-approved small transfer', async () => {
    const { agent, paused, small, big, executions } = await pausedOnTwoTransfers({ secret: true });
    const respond = (snap: AgentSnapshot, approvalId: string, signature: string, by: string) =>
      withApprovalResponse(snap, { approvalId, approved: true, approvedBy: by, signature }, { agent });
    let next = respond(paused, small.approvalId, small.signature!, 'mallory');
    next = respond(next, big.approvalId, big.signature!, 'ana');
    next = respond(next, big.approvalId, big.signature!, 'Bo');
    const done = await agent.execute(next);
    expect(done.status).toBe('completed');
    expect(executions.count('transfer')).toBe(2);
    expect(done.audit.find((entry) => entry.approvalId === big.approvalId)).toMatchObject({
      quorum: big.quorum,
      ruleId: 'big-transfers',
    });
  });
});
