import { describe, expect, it } from 'vitest';
import {
  type AgentSnapshot,
  ApproverNotAllowedError,
  type ApprovalRequest,
  agentAsTool,
  createAgent,
  defineTool,
  deserialize,
  type RunEvent,
  serialize,
  withApprovalResponse,
} from 'countersign';
import { z } from 'zod';
import { callsThenSays, deployer, deployTool, lead, type RunLog, SECRET } from '../support/nested-agents.js';
import { testClock } from '../support/test-kit.js';

const approve = (request: ApprovalRequest, by = 'ana') => ({
  approvalId: request.approvalId,
  approved: true,
  approvedBy: by,
  signature: request.signature!,
});

describe('a sub-agent whose call needs a person', () => {
  it('pauses the parent, which lists the inner call with its path; approving runs it once and its answer is the delegate result', async () => {
    const log: RunLog = [];
    const events: RunEvent[] = [];
    const child = deployer(log);
    const parent = lead([child], { onEvent: (event) => events.push(event) });

    const paused = await parent.execute({ input: 'ship 1.4' });
    expect(paused.status).toBe('awaitingApproval');
    const delegateCall = paused.toolCalls[0]!;
    expect(paused.pendingApprovals).toEqual([
      expect.objectContaining({
        toolName: 'deploy',
        args: { version: '1.4' },
        description: 'Deploy a version to production',
        path: [{ agentName: 'deployer', toolCallId: delegateCall.toolCallId, toolName: 'deployer' }],
      }),
    ]);
    expect(delegateCall).toMatchObject({ toolName: 'deployer', status: 'pending' });
    expect(delegateCall.approvalId).toBeUndefined();
    expect(events.filter((event) => event.type === 'approval-requested')).toHaveLength(1);
    expect(log).toEqual([]);

    // Stored and read back (another process would), decided there, resumed.
    const stored = deserialize(serialize(paused));
    expect(stored).toEqual(paused);
    const decided = withApprovalResponse(stored, approve(stored.pendingApprovals[0]!), { agent: parent });
    expect(decided.status).toBe('running');
    const done = await parent.execute(decided);

    expect(log).toEqual(['deploy:1.4']);
    expect(done.status).toBe('completed');
    expect(done.output).toBe('deployer: deployed 1.4');
    expect(done.messages.find((message) => message.role === 'tool')?.content).toBe('deployer: deployed 1.4');
    expect(done.subRuns).toHaveLength(1);
    expect(done.subRuns![0]).toMatchObject({ agentName: 'deployer', parentRunId: done.runId, messages: [] });
    const resolved = events.find((event) => event.type === 'approval-resolved' && event.entry.approvalId !== undefined);
    expect(resolved).toMatchObject({
      runId: done.runId,
      agentName: 'deployer',
      entry: { toolName: 'deploy', decision: 'approved', by: 'ana' },
      path: [{ agentName: 'deployer', toolName: 'deployer' }],
    });
    expect(events.find((event) => event.type === 'tool-finished')).toMatchObject({
      runId: done.runId,
      agentName: 'deployer',
      toolName: 'deploy',
      status: 'succeeded',
    });
  });

  it('three levels deep: the innermost call is what the person sees, with the whole chain', async () => {
    const log: RunLog = [];
    const inner = deployer(log);
    const middle = createAgent({
      name: 'coder',
      model: callsThenSays([{ name: 'deployer', args: { task: 'ship it' } }], ([result]) => `coder: ${result}`),
      tools: [agentAsTool(inner)],
    });
    const top = lead([middle]);
    const paused = await top.execute({ input: 'release' });
    const request = paused.pendingApprovals[0]!;
    expect(request.toolName).toBe('deploy');
    expect(request.path?.map((step) => `${step.toolName}→${step.agentName}`)).toEqual([
      'coder→coder',
      'deployer→deployer',
    ]);
    const done = await top.execute(withApprovalResponse(paused, approve(request), { agent: top }));
    expect(log).toEqual(['deploy:1.4']);
    expect(done.output).toBe('coder: deployer: deployed 1.4');
  });

  it('two sub-agents paused at once are answered one at a time; each inner call runs once', async () => {
    const log: RunLog = [];
    const first = deployer(log, { version: '1.4' });
    const second = deployer(log, { name: 'hotfixer', version: '1.3.9' });
    const parent = lead([first, second]);
    const paused = await parent.execute({ input: 'ship both' });
    expect(paused.pendingApprovals.map((request) => request.args)).toEqual([{ version: '1.4' }, { version: '1.3.9' }]);

    const one = withApprovalResponse(paused, approve(paused.pendingApprovals[0]!), { agent: parent });
    expect(one.status).toBe('awaitingApproval');
    expect(one.pendingApprovals.map((request) => request.args)).toEqual([{ version: '1.3.9' }]);
    // Still waiting for the second: nothing runs yet, and executing it changes nothing.
    expect(await parent.execute(one)).toMatchObject({ status: 'awaitingApproval' });
    expect(log).toEqual([]);

    const both = withApprovalResponse(one, approve(one.pendingApprovals[0]!, 'bo'), { agent: parent });
    const done = await parent.execute(both);
    expect(log.sort()).toEqual(['deploy:1.3.9', 'deploy:1.4']);
    expect(done.output).toBe('deployer: deployed 1.4 | deployer: deployed 1.3.9');
  });

  it("a denial reaches the sub-agent's model with the reason, and the parent reads the sub-agent's answer", async () => {
    const log: RunLog = [];
    const child = deployer(log);
    const parent = lead([child]);
    const paused = await parent.execute({ input: 'ship' });
    const request = paused.pendingApprovals[0]!;
    const denied = withApprovalResponse(
      paused,
      { approvalId: request.approvalId, approved: false, reason: 'change freeze', signature: request.signature! },
      { agent: parent },
    );
    const done = await parent.execute(denied);
    expect(log).toEqual([]);
    expect(done.status).toBe('completed');
    expect(done.output).toContain('change freeze');
  });

  it('an identical repeat of a decision returns the run unchanged, during the turn and after the sub-agent ended', async () => {
    const parent = lead([deployer([])]);
    const paused = await parent.execute({ input: 'ship' });
    const response = approve(paused.pendingApprovals[0]!);
    const decided = withApprovalResponse(paused, response, { agent: parent });
    expect(withApprovalResponse(decided, response, { agent: parent })).toBe(decided);
    const done = await parent.execute(decided);
    expect(withApprovalResponse(done, response, { agent: parent })).toBe(done);
    expect(() => withApprovalResponse(done, { ...response, approved: false }, { agent: parent })).toThrow(
      /already approved/,
    );
  });

  it('expiry in the sub-agent: an unanswered inner call expires, the sub-agent reads the denial, the parent goes on', async () => {
    const clock = testClock();
    const log: RunLog = [];
    const child = deployer(log, { approvalTtlMs: 60_000 });
    const parent = lead([child], { clock });
    const paused = await parent.execute({ input: 'ship' });
    expect(paused.pendingApprovals[0]!.expiresAt).toBe(clock() + 60_000);
    clock.advance(60_001);
    const done = await parent.execute(paused);
    expect(log).toEqual([]);
    expect(done.status).toBe('completed');
    expect(done.output).toMatch(/expired/i);
  });
});

describe('policy inherits downwards and only tightens', () => {
  it("a sub-agent whose own tool needs no approval still asks when the parent's rule asks, of the parent's approvers", async () => {
    const log: RunLog = [];
    const child = createAgent({
      name: 'deployer',
      model: callsThenSays([{ name: 'deploy', args: { version: '2.0' } }]),
      tools: [deployTool(log, { needsApproval: false })],
      policy: { rules: [{ id: 'child-allows', tool: 'deploy', action: 'allow' }] },
    });
    const parent = lead([child], {
      policy: { rules: [{ id: 'deploys-need-sre', tool: 'deploy', action: 'ask', approvers: ['sre-lead'] }] },
    });
    const paused = await parent.execute({ input: 'ship 2.0' });
    const request = paused.pendingApprovals[0]!;
    expect(request).toMatchObject({ toolName: 'deploy', approvers: ['sre-lead'], ruleId: 'lead:deploys-need-sre' });
    // The parent's ask is asked every time: no standing permission of the sub-agent's stands in for it.
    expect(request.decisions).toEqual(['approve', 'edit', 'deny']);
    expect(() => withApprovalResponse(paused, approve(request, 'mallory'), { agent: parent })).toThrow(
      ApproverNotAllowedError,
    );
    expect(log).toEqual([]);
    const done = await parent.execute(withApprovalResponse(paused, approve(request, 'sre-lead'), { agent: parent }));
    expect(log).toEqual(['deploy:2.0']);
    expect(done.status).toBe('completed');
  });

  it("the parent's deny denies the sub-agent's call without asking anyone", async () => {
    const log: RunLog = [];
    const parent = lead([deployer(log)], {
      policy: { rules: [{ id: 'no-deploys', tool: 'deploy', action: 'deny', reason: 'deploys are frozen' }] },
    });
    const done = await parent.execute({ input: 'ship' });
    expect(done.status).toBe('completed');
    expect(done.output).toContain('deploys are frozen');
    expect(log).toEqual([]);
  });

  it('approver lists that share nobody deny the call, saying why', async () => {
    const child = deployer([], {
      policy: { rules: [{ id: 'ops', tool: 'deploy', action: 'ask', approvers: ['ops'] }] },
    });
    const parent = lead([child], {
      policy: { rules: [{ id: 'sre', tool: 'deploy', action: 'ask', approvers: ['sre-lead'] }] },
    });
    const done = await parent.execute({ input: 'ship' });
    expect(done.status).toBe('completed');
    expect(done.output).toContain('nobody may decide it');
  });

  it("a session grant for the parent's own deploy does not cover the sub-agent's deploy; one given on the sub-agent's call covers it under the same chain only", async () => {
    const log: RunLog = [];
    const child = deployer(log);
    const ownDeploy = deployTool(log);
    const parent = createAgent({
      name: 'lead',
      model: callsThenSays([{ name: 'deploy', args: { version: '1.0' } }]),
      tools: [ownDeploy, agentAsTool(child)],
      decisionSecret: SECRET,
    });
    const sessionId = 'session-grants';
    const first = await parent.execute({ input: 'deploy 1.0', sessionId });
    await parent.execute(
      withApprovalResponse(first, { ...approve(first.pendingApprovals[0]!), scope: 'session' }, { agent: parent }),
    );
    expect(log).toEqual(['deploy:1.0']);

    const delegating = createAgent({
      name: 'lead',
      model: callsThenSays([{ name: 'deployer', args: { task: 'ship' } }]),
      tools: [ownDeploy, agentAsTool(child)],
      decisionSecret: SECRET,
      grantStore: parent.settings.grantStore,
    });
    const nested = await delegating.execute({ input: 'delegate a deploy', sessionId });
    expect(nested.status).toBe('awaitingApproval');
    expect(nested.pendingApprovals[0]).toMatchObject({ toolName: 'deploy', path: [{ agentName: 'deployer' }] });

    // Granted for the session on the sub-agent's call: the chain's next run is covered…
    await delegating.execute(
      withApprovalResponse(
        nested,
        { ...approve(nested.pendingApprovals[0]!), scope: 'session' },
        { agent: delegating },
      ),
    );
    const again = await delegating.execute({ input: 'delegate another', sessionId });
    expect(again.status).toBe('completed');
    // …but not the deployer agent's own runs in that session.
    const alone = createAgent({
      name: 'deployer',
      model: callsThenSays([{ name: 'deploy', args: { version: '1.4' } }]),
      tools: [deployTool(log)],
      decisionSecret: SECRET,
      grantStore: parent.settings.grantStore,
    });
    expect((await alone.execute({ input: 'deploy', sessionId })).status).toBe('awaitingApproval');
  });
});

describe('votes on a sub-agent call', () => {
  it('a quorum the sub-agent names is met on the parent, one vote at a time; the call runs once', async () => {
    const log: RunLog = [];
    const child = createAgent({
      name: 'deployer',
      model: callsThenSays([{ name: 'deploy', args: { version: '3.0' } }]),
      tools: [deployTool(log)],
      policy: { rules: [{ id: 'two-people', tool: 'deploy', action: 'ask', approvals: { required: 2 } }] },
    });
    const parent = lead([child]);
    const paused = await parent.execute({ input: 'ship 3.0' });
    const request = paused.pendingApprovals[0]!;
    expect(request.quorum?.required).toBe(2);
    const once = withApprovalResponse(paused, approve(request, 'ana'), { agent: parent });
    expect(once.status).toBe('awaitingApproval');
    expect(once.pendingApprovals[0]!.votes).toMatchObject([{ by: 'ana', approved: true }]);
    // The same person again counts once.
    expect(withApprovalResponse(once, approve(request, 'ana'), { agent: parent })).toBe(once);
    const twice = withApprovalResponse(once, approve(request, 'bo'), { agent: parent });
    expect(twice.status).toBe('running');
    await parent.execute(twice);
    expect(log).toEqual(['deploy:3.0']);
  });
});

describe('limits', () => {
  it('a chain deeper than maxDepth fails the delegate call with a result the model reads', async () => {
    const inner = deployer([]);
    const middle = createAgent({
      name: 'coder',
      model: callsThenSays([{ name: 'deployer', args: { task: 'ship' } }]),
      tools: [agentAsTool(inner, { maxDepth: 1 })],
    });
    const done = await lead([middle]).execute({ input: 'go' });
    expect(done.status).toBe('completed');
    expect(done.output).toMatch(/deeper than its maxDepth of 1/);
  });

  it('an agent that delegates to itself (through a tool source) is refused with a result, not a loop', async () => {
    let selfTool: ReturnType<typeof agentAsTool> | undefined;
    const self = createAgent({
      name: 'looper',
      model: callsThenSays([{ name: 'looper', args: { task: 'again' } }]),
      // A source hands out a new array when its tools change.
      tools: [
        {
          get tools() {
            return selfTool === undefined ? [] : [selfTool];
          },
        },
      ],
    });
    selfTool = agentAsTool(self);
    const done = await self.execute({ input: 'go' });
    expect(done.output).toMatch(/already running above this call/);
  });

  it('agentAsTool refuses what is not an agent, and its tool refuses to run outside a loop', async () => {
    expect(() => agentAsTool({} as never)).toThrow(/agent made with createAgent/);
    const tool = agentAsTool(deployer([]));
    await expect(async () => tool.execute({ task: 'x' }, {} as never)).rejects.toThrow(/runs inside an agent's loop/);
  });
});

describe('attacks on a nested pause', () => {
  async function pausedRun(log: RunLog) {
    const parent = lead([deployer(log)]);
    return { parent, paused: await parent.execute({ input: 'ship' }) };
  }

  /** The snapshot with `change` applied to its JSON form, read back as storage would give it. */
  function altered(snapshot: AgentSnapshot, change: (json: any) => void): AgentSnapshot {
    const json = JSON.parse(serialize(snapshot));
    change(json);
    return deserialize(JSON.stringify(json));
  }

  it('a decision naming the delegate call instead of the inner request is refused; nothing runs', async () => {
    const log: RunLog = [];
    const { parent, paused } = await pausedRun(log);
    const delegateCall = paused.toolCalls[0]!.toolCallId;
    expect(() => withApprovalResponse(paused, { approvalId: delegateCall, approved: true }, { agent: parent })).toThrow(
      /has no approval/,
    );
    expect(log).toEqual([]);
  });

  it('a forged path (naming another delegate call) is refused', async () => {
    const { parent, paused } = await pausedRun([]);
    const forged = altered(paused, (json) => {
      json.head.json.pendingApprovals[0].path[0].toolCallId = 'call_elsewhere';
    });
    expect(() => withApprovalResponse(forged, approve(forged.pendingApprovals[0]!), { agent: parent })).toThrow(
      /its path names delegate call call_elsewhere/,
    );
  });

  it("an edit of the parent's copy of the request (what surfaces show) is refused: what a person read must be what runs", async () => {
    const log: RunLog = [];
    const { parent, paused } = await pausedRun(log);
    const shown = altered(paused, (json) => {
      json.head.json.pendingApprovals[0].args = { version: '1.0-safe' };
    });
    expect(() => withApprovalResponse(shown, approve(shown.pendingApprovals[0]!), { agent: parent })).toThrow(
      /what a person was shown is not what would run/,
    );
    const renamed = altered(paused, (json) => {
      json.head.json.pendingApprovals[0].path[0].agentName = 'intern';
    });
    expect(() => withApprovalResponse(renamed, approve(renamed.pendingApprovals[0]!), { agent: parent })).toThrow(
      /what a person was shown is not what would run/,
    );
    expect(log).toEqual([]);
  });

  it('a sub-agent run moved under another delegate call is refused', async () => {
    const { parent, paused } = await pausedRun([]);
    const moved = altered(paused, (json) => {
      const record = json.head.json.toolCalls[0];
      record.toolCallId = 'call_moved';
      json.head.json.pendingApprovals[0].path[0].toolCallId = 'call_moved';
    });
    expect(() => withApprovalResponse(moved, approve(moved.pendingApprovals[0]!), { agent: parent })).toThrow(
      /belongs to another place in the chain/,
    );
  });

  it("an edit of the kept sub-agent run (its call marked approved with no decision) is caught by the sub-agent's gate: nothing runs", async () => {
    const log: RunLog = [];
    const { parent, paused } = await pausedRun(log);
    const forged = altered(paused, (json) => {
      const head = json.head.json;
      const child = head.toolCalls[0].child;
      child.state = 'executingTools';
      child.status = 'running';
      delete child.stopReason;
      child.pendingApprovals = [];
      child.toolCalls[0].status = 'approved';
      head.pendingApprovals = [];
      head.state = 'executingTools';
      head.status = 'running';
      delete head.stopReason;
      head.toolCalls[0].status = 'approved';
    });
    await expect(parent.execute(forged)).rejects.toThrow(/no validly signed approval/);
    expect(log).toEqual([]);
  });

  it("a response that does not echo the inner request's signature is refused", async () => {
    const { parent, paused } = await pausedRun([]);
    const request = paused.pendingApprovals[0]!;
    expect(() =>
      withApprovalResponse(paused, { ...approve(request), signature: 'v2.forged' }, { agent: parent }),
    ).toThrow(/must echo the signature/);
  });
});

describe('the delegate tool', () => {
  it('takes its own input schema and prompt, and can start the sub-agent from the conversation', async () => {
    const seen: string[] = [];
    const child = createAgent({
      name: 'echo',
      model: callsThenSays([], () => 'unused'),
      tools: [],
    });
    const listening = createAgent({
      name: 'echo',
      model: {
        async generate({ messages }) {
          seen.push(messages.map((message) => `${message.role}:${message.content}`).join('\n'));
          return { message: { role: 'assistant', content: 'heard' } };
        },
      },
      tools: [],
    });
    void child;
    const parent = createAgent({
      name: 'lead',
      model: callsThenSays([{ name: 'ask_echo', args: { words: ['a', 'b'] } }]),
      tools: [
        agentAsTool(listening, {
          name: 'ask_echo',
          input: z.object({ words: z.array(z.string()) }),
          prompt: ({ words }) => `say ${words.join(' ')}`,
          inherit: 'conversation',
        }),
        defineTool({ name: 'noop', description: 'nothing', input: z.object({}), execute: () => 'ok' }),
      ],
    });
    const done = await parent.execute({ input: 'hello there' });
    expect(done.output).toBe('heard');
    expect(seen).toEqual(['user:hello there\nuser:say a b']);
  });
});
