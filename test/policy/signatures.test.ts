import { describe, expect, it } from 'vitest';
import {
  ApprovalSignatureError,
  ApproverNotAllowedError,
  clearRunApprovals,
  deserialize,
  serialize,
  withApprovalResponse,
  type AgentSnapshot,
} from 'countersign';
import { agentCalling, newExecutions, recordingTool } from '../support/policy-harness.js';
import { thrown } from '../support/test-kit.js';

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
    [
      [
        { name: 'transfer', args: { to: 'alice', amount: 10 } },
        { name: 'transfer', args: { to: 'bob', amount: 20 } },
      ],
    ],
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
      next = withApprovalResponse(
        next,
        { approvalId: request.approvalId, approved: true, approvedBy: 'ops', signature: request.signature! },
        { agent },
      );
    }
    const done = await agent.execute(next);
    expect(done.status).toBe('completed');
    expect(executions.count('transfer')).toBe(2);
    expect(done.audit.every((entry) => typeof entry.signature === 'string')).toBe(true);
  });

  it('refuses a response without the signature', async () => {
    const { agent, paused } = await pausedTwoCalls();
    const request = paused.pendingApprovals[0]!;
    expect(() => withApprovalResponse(paused, { approvalId: request.approvalId, approved: true }, { agent })).toThrow(
      ApprovalSignatureError,
    );
  });

  it('refuses an approval forged for another approval id', async () => {
    const { agent, paused, executions } = await pausedTwoCalls();
    const [first, second] = paused.pendingApprovals;
    const attempt = () =>
      withApprovalResponse(
        paused,
        { approvalId: second!.approvalId, approved: true, signature: first!.signature! },
        { agent },
      );
    const error = thrown(attempt);
    expect(error).toBeInstanceOf(ApprovalSignatureError);
    expect((error as ApprovalSignatureError).approvalId).toBe(second!.approvalId);
    expect(executions.count('transfer')).toBe(0);
  });

  it("refuses a decision when a pending call's arguments were changed in the stored snapshot", async () => {
    const { agent, paused, executions } = await pausedTwoCalls();
    const altered = tamper(paused, (envelope) => {
      const assistant = envelope.messages.findLast((message: any) => message.role === 'assistant');
      assistant.toolCalls[0].args.to = 'mallory';
      assistant.toolCalls[0].args.amount = 10_000;
    });
    const request = altered.pendingApprovals[0]!;
    expect(() =>
      withApprovalResponse(
        altered,
        { approvalId: request.approvalId, approved: true, signature: request.signature! },
        { agent },
      ),
    ).toThrow(/no longer matches/);
    expect(executions.count('transfer')).toBe(0);
  });

  it('refuses a request whose digest was rewritten to match altered arguments', async () => {
    const { agent, paused } = await pausedTwoCalls();
    const altered = tamper(paused, (envelope) => {
      const assistant = envelope.messages.findLast((message: any) => message.role === 'assistant');
      assistant.toolCalls[0].args.to = 'mallory';
      envelope.head.json.pendingApprovals[0].argsDigest = 'f'.repeat(64);
    });
    const request = altered.pendingApprovals[0]!;
    expect(() =>
      withApprovalResponse(
        altered,
        { approvalId: request.approvalId, approved: true, signature: request.signature! },
        { agent },
      ),
    ).toThrow(ApprovalSignatureError);
  });

  it('refuses to run an approved call whose arguments were changed after the approval', async () => {
    const { agent, paused, executions } = await pausedTwoCalls();
    let decided = paused;
    for (const request of paused.pendingApprovals) {
      decided = withApprovalResponse(
        decided,
        { approvalId: request.approvalId, approved: true, signature: request.signature! },
        { agent },
      );
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
    const oneDenied = withApprovalResponse(
      paused,
      { approvalId: first!.approvalId, approved: false, signature: first!.signature! },
      { agent },
    );
    const forged = tamper(oneDenied, (envelope) => {
      const record = envelope.head.json.toolCalls[0];
      record.status = 'approved';
      delete record.result;
      envelope.head.json.audit[0].decision = 'approved';
    });
    const decided = withApprovalResponse(
      forged,
      { approvalId: second!.approvalId, approved: true, signature: second!.signature! },
      { agent },
    );
    await expect(agent.execute(decided)).rejects.toThrow(ApprovalSignatureError);
    expect(executions.count('transfer')).toBe(0);
  });
});

describe('approvers', () => {
  async function paused(config: {
    ruleApprovers?: string[];
    toolApprovers?: string[] | ((by: string | undefined) => boolean);
  }) {
    const tool = recordingTool('deploy', {
      needsApproval: true,
      ...(config.toolApprovers === undefined ? {} : { approvers: config.toolApprovers }),
    });
    const agent = agentCalling([[{ name: 'deploy', args: {} }]], {
      tools: [tool],
      ...(config.ruleApprovers === undefined
        ? {}
        : { policy: { rules: [{ id: 'deploys', tool: 'deploy', action: 'ask', approvers: config.ruleApprovers }] } }),
    });
    return { agent, snap: await agent.execute({ input: 'deploy' }) };
  }

  it("a rule's approvers list decides who may decide", async () => {
    const { agent, snap } = await paused({ ruleApprovers: ['alice', 'carol'] });
    const approvalId = snap.pendingApprovals[0]!.approvalId;
    expect(snap.pendingApprovals[0]!.approvers).toEqual(['alice', 'carol']);
    const byBob = () => withApprovalResponse(snap, { approvalId, approved: true, approvedBy: 'bob' }, { agent });
    const refusal = thrown(byBob);
    expect(refusal).toBeInstanceOf(ApproverNotAllowedError);
    expect(refusal).toMatchObject({ approvalId, approvedBy: 'bob', code: 'approver_not_allowed' });
    expect(() => withApprovalResponse(snap, { approvalId, approved: true }, { agent })).toThrow(/anonymous approver/);
    expect(
      withApprovalResponse(snap, { approvalId, approved: true, approvedBy: 'carol' }, { agent }).audit.at(-1),
    ).toMatchObject({ by: 'carol' });
  });

  it("a tool's approvers (a list or a predicate) decide when no rule does", async () => {
    const { agent: listedAgent, snap: listed } = await paused({ toolApprovers: ['ops'] });
    expect(() =>
      withApprovalResponse(
        listed,
        { approvalId: listed.pendingApprovals[0]!.approvalId, approved: false, approvedBy: 'dev' },
        { agent: listedAgent },
      ),
    ).toThrow(ApproverNotAllowedError);
    const { agent, snap: predicate } = await paused({
      toolApprovers: (by) => by?.endsWith('@ops.example.com') ?? false,
    });
    const approvalId = predicate.pendingApprovals[0]!.approvalId;
    expect(() =>
      withApprovalResponse(predicate, { approvalId, approved: true, approvedBy: 'eve@example.com' }, { agent }),
    ).toThrow(ApproverNotAllowedError);
    expect(
      withApprovalResponse(predicate, { approvalId, approved: true, approvedBy: 'sam@ops.example.com' }, { agent })
        .status,
    ).toBe('running');
  });

  it('without an approvers list anyone may decide', async () => {
    const { agent, snap } = await paused({});
    expect(
      withApprovalResponse(
        snap,
        { approvalId: snap.pendingApprovals[0]!.approvalId, approved: true, approvedBy: 'anyone' },
        { agent },
      ).status,
    ).toBe('running');
  });
});

describe('run memory and approvers', () => {
  const small = { to: 'acme', amount: 50 };
  const big = { to: 'mallory', amount: 1_000_000 };

  /** transfer_funds asks everyone; a rule reserves transfers over 1,000 for the CFO (a list, or a predicate). */
  function payments(turns: { name: string; args: unknown }[][], cfo: 'list' | 'predicate', secret?: string) {
    const executions = newExecutions();
    const tool = recordingTool('transfer_funds', { needsApproval: true }, executions);
    const agent = agentCalling(turns, {
      tools: [tool],
      ...(secret === undefined ? {} : { decisionSecret: secret }),
      policy: {
        rules: [
          {
            id: 'big-transfers',
            tool: 'transfer_funds',
            action: 'ask',
            when: (args: { amount: number }) => args.amount > 1_000,
            approvers: cfo === 'list' ? ['cfo'] : (by: string | undefined) => by === 'cfo',
          },
        ],
      },
    });
    return { agent, executions };
  }

  const echo = (request: { signature?: string }) =>
    request.signature === undefined ? {} : { signature: request.signature };

  for (const cfo of ['list', 'predicate'] as const) {
    it(`scope 'run' from a non-approver leaves a sibling reserved for the CFO (${cfo}) pending`, async () => {
      const { agent, executions } = payments(
        [
          [
            { name: 'transfer_funds', args: small },
            { name: 'transfer_funds', args: big },
          ],
        ],
        cfo,
        decisionSecret,
      );
      const paused = await agent.execute({ input: 'pay' });
      const [first, second] = paused.pendingApprovals;
      const remembered = withApprovalResponse(
        paused,
        { approvalId: first!.approvalId, approved: true, approvedBy: 'alice', scope: 'run', ...echo(first!) },
        { agent },
      );
      expect(remembered.status).toBe('awaitingApproval');
      expect(remembered.pendingApprovals.map((request) => request.approvalId)).toEqual([second!.approvalId]);
      expect(() =>
        withApprovalResponse(
          remembered,
          { approvalId: second!.approvalId, approved: true, approvedBy: 'alice', ...echo(second!) },
          { agent },
        ),
      ).toThrow(ApproverNotAllowedError);
      const done = await agent.execute(
        withApprovalResponse(
          remembered,
          { approvalId: second!.approvalId, approved: true, approvedBy: 'cfo', ...echo(second!) },
          { agent },
        ),
      );
      expect(executions.byTool.get('transfer_funds')).toEqual([small, big]);
      expect(done.audit.map((entry) => [entry.source, entry.by])).toEqual([
        ['human', 'alice'],
        ['human', 'cfo'],
      ]);
    });

    it(`scope 'run' from a non-approver does not let a later call reserved for the CFO (${cfo}) run unasked`, async () => {
      const { agent, executions } = payments(
        [
          [{ name: 'transfer_funds', args: small }],
          [
            { name: 'transfer_funds', args: small },
            { name: 'transfer_funds', args: big },
          ],
        ],
        cfo,
      );
      const paused = await agent.execute({ input: 'pay' });
      const next = await agent.execute(
        withApprovalResponse(
          paused,
          { approvalId: paused.pendingApprovals[0]!.approvalId, approved: true, approvedBy: 'alice', scope: 'run' },
          { agent },
        ),
      );
      expect(next.status).toBe('awaitingApproval');
      expect(next.pendingApprovals).toEqual([expect.objectContaining({ args: big, ruleId: 'big-transfers' })]);
      expect(executions.byTool.get('transfer_funds')).toEqual([small, small]);
      expect(next.audit.at(-1)).toMatchObject({ source: 'memory', by: 'alice', argsDigest: expect.any(String) });
    });
  }

  it('a call put to a person again after its process died keeps the approvers its rule names', async () => {
    const { agent, executions } = payments([[{ name: 'transfer_funds', args: big }]], 'list');
    const paused = await agent.execute({ input: 'pay' });
    const approved = withApprovalResponse(
      paused,
      { approvalId: paused.pendingApprovals[0]!.approvalId, approved: true, approvedBy: 'cfo' },
      { agent },
    );
    let started: AgentSnapshot | undefined;
    const dies = async (snap: AgentSnapshot) => {
      if (snap.toolCalls[0]?.status !== 'executing') return;
      started = snap;
      throw new Error('process died');
    };
    await expect(agent.execute(approved, { checkpoint: dies })).rejects.toThrow('process died');
    const asked = await agent.execute(started!);
    const request = asked.pendingApprovals[0]!;
    expect(request).toMatchObject({ outcomeUnknown: true, approvers: ['cfo'], ruleId: 'big-transfers' });
    expect(() =>
      withApprovalResponse(asked, { approvalId: request.approvalId, approved: true, approvedBy: 'alice' }, { agent }),
    ).toThrow(ApproverNotAllowedError);
    expect(executions.count('transfer_funds')).toBe(0);
  });

  it('memory granted by someone who satisfies the approvers covers later calls they reserve', async () => {
    const { agent, executions } = payments(
      [[{ name: 'transfer_funds', args: big }], [{ name: 'transfer_funds', args: big }]],
      'list',
    );
    const paused = await agent.execute({ input: 'pay' });
    const done = await agent.execute(
      withApprovalResponse(
        paused,
        { approvalId: paused.pendingApprovals[0]!.approvalId, approved: true, approvedBy: 'cfo', scope: 'run' },
        { agent },
      ),
    );
    expect(done.status).toBe('completed');
    expect(executions.byTool.get('transfer_funds')).toEqual([big, big]);
    expect(done.audit.at(-1)).toMatchObject({ source: 'memory', by: 'cfo' });
  });

  it("a rule that asks without naming approvers keeps the tool's own approvers, for people and for memory", async () => {
    const executions = newExecutions();
    const tool = recordingTool('deploy', { needsApproval: true, approvers: ['ops'] }, executions);
    const agent = agentCalling([[{ name: 'deploy', args: {} }]], {
      tools: [tool],
      policy: { rules: [{ tool: 'deploy', action: 'ask', reason: 'deploys ask' }] },
    });
    const paused = await agent.execute({ input: 'go' });
    expect(paused.pendingApprovals[0]!.approvers).toEqual(['ops']);
    expect(() =>
      withApprovalResponse(
        paused,
        { approvalId: paused.pendingApprovals[0]!.approvalId, approved: true, approvedBy: 'dev' },
        { agent },
      ),
    ).toThrow(ApproverNotAllowedError);
    expect(executions.count('deploy')).toBe(0);
  });
});

describe('with a decisionSecret, nothing in storage widens what runs', () => {
  /** Pauses on `notify` after `deploy` was approved once and ran; the next turn calls deploy, delete_file and notify. */
  async function pausedAfterOnceApproval() {
    const executions = newExecutions();
    const tools = ['deploy', 'notify', 'delete_file'].map((name) =>
      recordingTool(name, { needsApproval: true }, executions),
    );
    const agent = agentCalling(
      [
        [{ name: 'deploy', args: { env: 'staging' } }],
        [{ name: 'notify', args: {} }],
        [
          { name: 'deploy', args: { env: 'prod' } },
          { name: 'delete_file', args: { path: '/etc' } },
          { name: 'notify', args: {} },
        ],
      ],
      { tools, decisionSecret },
    );
    const first = await agent.execute({ input: 'go' });
    const deploy = first.pendingApprovals[0]!;
    const paused = await agent.execute(
      withApprovalResponse(
        first,
        { approvalId: deploy.approvalId, approved: true, approvedBy: 'alice', signature: deploy.signature! },
        { agent },
      ),
    );
    expect(paused.pendingApprovals.map((request) => request.toolName)).toEqual(['notify']);
    return { agent, paused, executions };
  }

  it('forged run memory (runApprovals, a once approval turned run-wide) lets nothing run unasked, and nothing unasked is signed', async () => {
    const { agent, paused, executions } = await pausedAfterOnceApproval();
    const forged = tamper(paused, (envelope) => {
      envelope.head.json.runApprovals = ['deploy', 'delete_file'];
      envelope.head.json.audit[0].scope = 'run';
    });
    const notify = forged.pendingApprovals[0]!;
    const next = await agent.execute(
      withApprovalResponse(
        forged,
        { approvalId: notify.approvalId, approved: true, approvedBy: 'alice', signature: notify.signature! },
        { agent },
      ),
    );
    expect(next.status).toBe('awaitingApproval');
    expect(next.pendingApprovals.map((request) => request.toolName)).toEqual(['deploy', 'delete_file', 'notify']);
    expect(executions.count('deploy')).toBe(1);
    expect(executions.count('delete_file')).toBe(0);
    expect(next.audit.filter((entry) => entry.source === 'memory')).toEqual([]);
  });

  it('clearRunApprovals forgets signed memory, and putting the tool name back in storage does not bring it back', async () => {
    const { agent, paused, executions } = await pausedAfterOnceApproval();
    const notify = paused.pendingApprovals[0]!;
    const remembered = withApprovalResponse(
      paused,
      {
        approvalId: notify.approvalId,
        approved: true,
        approvedBy: 'alice',
        scope: 'run',
        signature: notify.signature!,
      },
      { agent },
    );
    const cleared = deserialize(serialize(clearRunApprovals(remembered)));
    expect(cleared.runApprovals).toEqual([]);
    const restored = tamper(cleared, (envelope) => (envelope.head.json.runApprovals = ['notify']));
    expect((await agent.execute(restored)).pendingApprovals.map((request) => request.toolName)).toEqual([
      'deploy',
      'delete_file',
      'notify',
    ]);
    expect(executions.count('notify')).toBe(1);
  });

  async function pausedOnGuardedTransfer() {
    const executions = newExecutions();
    const tool = recordingTool(
      'transfer',
      { needsApproval: true, approvalPrompt: (input) => `Pay ${String(input['amount'])} to ${String(input['to'])}?` },
      executions,
    );
    let now = Date.UTC(2026, 0, 1);
    const agent = agentCalling([[{ name: 'transfer', args: { to: 'mallory', amount: 1_000_000 } }]], {
      tools: [tool],
      decisionSecret,
      approvalTtlMs: 60_000,
      clock: () => now,
      policy: {
        rules: [
          { id: 'cfo-only', tool: 'transfer', action: 'ask', approvers: ['cfo'], reason: 'large payment' },
          { id: 'other', tool: 'other', action: 'ask' },
        ],
      },
    });
    const paused = await agent.execute({ input: 'pay' });
    return { agent, paused, executions, later: () => (now += 120_000) };
  }

  const alterations: [string, (request: any) => void, string][] = [
    ['approvers were stripped', (request) => delete request.approvers, 'mallory'],
    ['ruleId was pointed at another rule', (request) => (request.ruleId = 'other'), 'cfo'],
    ['displayed arguments were spoofed', (request) => (request.args = { to: 'alice', amount: 10 }), 'cfo'],
    ['description was spoofed', (request) => (request.description = 'Pay 10 to alice?'), 'cfo'],
    ['reason was spoofed', (request) => (request.reason = 'routine'), 'cfo'],
    [
      'warnings were changed',
      (request) => (request.warnings = [{ code: 'truncated', path: 'x', message: 'x' }]),
      'cfo',
    ],
    ['onExpire was turned to keep', (request) => (request.onExpire = 'keep'), 'cfo'],
  ];
  for (const [what, alter, by] of alterations) {
    it(`refuses a decision on a request whose ${what} in storage, and runs nothing`, async () => {
      const { agent, paused, executions } = await pausedOnGuardedTransfer();
      const altered = tamper(paused, (envelope) => alter(envelope.head.json.pendingApprovals[0]));
      const request = altered.pendingApprovals[0]!;
      expect(() =>
        withApprovalResponse(
          altered,
          { approvalId: request.approvalId, approved: true, approvedBy: by, signature: request.signature! },
          { agent },
        ),
      ).toThrow(ApprovalSignatureError);
      expect(executions.count('transfer')).toBe(0);
    });
  }

  it('refuses an approval after the real expiry when expiresAt was pushed back in storage', async () => {
    const { agent, paused, executions, later } = await pausedOnGuardedTransfer();
    const altered = tamper(paused, (envelope) => (envelope.head.json.pendingApprovals[0].expiresAt += 86_400_000));
    later();
    const request = altered.pendingApprovals[0]!;
    expect(() =>
      withApprovalResponse(
        altered,
        { approvalId: request.approvalId, approved: true, approvedBy: 'cfo', signature: request.signature! },
        { agent },
      ),
    ).toThrow(ApprovalSignatureError);
    expect(executions.count('transfer')).toBe(0);
  });

  it('runs a call only on its own approval, not on an earlier approval of a call with the same id and arguments', async () => {
    const executions = newExecutions();
    const tool = recordingTool('deploy', { needsApproval: true }, executions);
    const call = { id: 'call_same', name: 'deploy', args: { env: 'prod' } };
    const agent = agentCalling([[call], [call]], { tools: [tool], decisionSecret });
    const first = await agent.execute({ input: 'go' });
    const request = first.pendingApprovals[0]!;
    const again = await agent.execute(
      withApprovalResponse(
        first,
        { approvalId: request.approvalId, approved: true, signature: request.signature! },
        { agent },
      ),
    );
    expect(again.pendingApprovals).toHaveLength(1);
    const forged = tamper(again, (envelope) => {
      Object.assign(envelope.head.json, { state: 'executingTools', status: 'running', pendingApprovals: [] });
      delete envelope.head.json.stopReason;
      envelope.head.json.toolCalls[0].status = 'approved';
    });
    await expect(agent.execute(forged)).rejects.toThrow(ApprovalSignatureError);
    expect(executions.count('deploy')).toBe(1);
  });
});
