import { describe, expect, it } from 'vitest';
import {
  approveAll,
  clearRunApprovals,
  createMemoryRuleStore,
  presets,
  withApprovalResponse,
  type AgentSnapshot,
  type PolicyRule,
} from 'countersign';
import { agentCalling, newExecutions, recordingTool } from '../support/policy-harness.js';

async function outcomeFor(
  toolName: string,
  rules: PolicyRule[],
  options: { connector?: string; description?: string; args?: unknown } = {},
) {
  const executions = newExecutions();
  const tool = recordingTool(
    toolName,
    {
      needsApproval: false,
      ...(options.connector === undefined ? {} : { connector: options.connector }),
      ...(options.description === undefined ? {} : { description: options.description }),
    },
    executions,
  );
  const agent = agentCalling([[{ name: toolName, args: options.args ?? {} }]], { tools: [tool], policy: { rules } });
  const snap = await agent.execute({ input: 'go' });
  return snap.status === 'awaitingApproval' ? 'ask' : executions.count(toolName) === 1 ? 'allow' : 'deny';
}

describe('globs and connectors', () => {
  it.each([
    ['github.*', 'github.create_issue', 'ask'],
    ['github.*', 'gitlab.create_issue', 'allow'],
    ['*_search', 'web_search', 'ask'],
    ['*_search', 'search_web', 'allow'],
    ['read?', 'reads', 'ask'],
    ['read?', 'read', 'allow'],
    ['send_email', 'send_email', 'ask'],
    ['send_email', 'send_emails', 'allow'],
  ])('tool glob %s on %s: %s', async (glob, toolName, expected) => {
    expect(await outcomeFor(toolName, [{ tool: glob, action: 'ask' }])).toBe(expected);
  });

  it('matches connector globs, and a connector rule never matches a tool without a connector', async () => {
    expect(await outcomeFor('post', [{ connector: 'slack*', action: 'ask' }], { connector: 'slack-prod' })).toBe('ask');
    expect(await outcomeFor('post', [{ connector: 'slack*', action: 'ask' }], { connector: 'teams' })).toBe('allow');
    expect(await outcomeFor('post', [{ connector: '*', action: 'ask' }])).toBe('allow');
  });

  it('runs `when` with the validated arguments and the tool it is about', async () => {
    const seen: unknown[] = [];
    const rule: PolicyRule = {
      tool: 'transfer',
      action: 'ask',
      when: (args: { amount: number }, ctx) => {
        seen.push({ args, tool: ctx.tool.name, runId: typeof ctx.runId });
        return args.amount > 100;
      },
    };
    expect(await outcomeFor('transfer', [rule], { args: { amount: 500 } })).toBe('ask');
    expect(await outcomeFor('transfer', [rule], { args: { amount: 5 } })).toBe('allow');
    expect(seen[0]).toEqual({ args: { amount: 500 }, tool: 'transfer', runId: 'string' });
  });

  it('a glob that would backtrack (*a*a*a*a*a*a*a*b) against a long name that almost matches answers at once, and right', async () => {
    // A backtracking matcher blocks the event loop for minutes on this name; the test's own timeout then fails it.
    const rules: PolicyRule[] = [
      { id: 'deny-b', tool: '*a*a*a*a*a*a*a*b', action: 'deny' },
      { id: 'deny-b-when', tool: '*a*a*a*a*a*a*a*b', action: 'deny', when: () => true },
      { id: 'ask-a', tool: 'a*a', action: 'ask' },
    ];
    expect(await outcomeFor('a'.repeat(72), rules)).toBe('ask');
    expect(await outcomeFor(`${'a'.repeat(71)}b`, rules)).toBe('deny');
  });

  it('finds the right rule among 1,000 compiled ones', async () => {
    const rules: PolicyRule[] = Array.from({ length: 1000 }, (_, index) => ({
      id: `r${index}`,
      tool: index % 2 === 0 ? `tool_${index}` : `prefix_${index}_*`,
      action: 'allow',
    }));
    rules.push({ id: 'deny-777', tool: 'prefix_777_*', action: 'deny' });
    expect(await outcomeFor('tool_998', rules)).toBe('allow');
    expect(await outcomeFor('prefix_501_x', rules)).toBe('allow');
    expect(await outcomeFor('prefix_777_x', rules)).toBe('deny');
  });
});

describe('presets', () => {
  it.each(['read_file', 'list_dirs', 'get_user', 'search_docs'])('readOnlyAutoApprove allows %s', async (name) => {
    const tool = recordingTool(name); // the tool itself says nothing: without the preset it would be asked
    const agent = agentCalling([[{ name, args: {} }]], {
      tools: [tool],
      policy: { rules: presets.readOnlyAutoApprove() },
    });
    const snap = await agent.execute({ input: 'go' });
    expect(snap.status).toBe('completed');
    expect(snap.audit[0]).toMatchObject({ source: 'rule', ruleId: expect.stringMatching(/^preset:read-only/) });
  });

  it('dangerousByName asks by name or by description, even for tools that say they are safe', async () => {
    expect(await outcomeFor('run_shell', presets.dangerousByName())).toBe('ask');
    expect(await outcomeFor('tidy', presets.dangerousByName(), { description: 'Delete old files' })).toBe('ask');
    expect(await outcomeFor('tidy', presets.dangerousByName(), { description: 'Count old files' })).toBe('allow');
  });

  it('presets combine: a dangerous read-named tool is asked about', async () => {
    expect(await outcomeFor('read_and_delete', [...presets.readOnlyAutoApprove(), ...presets.dangerousByName()])).toBe(
      'ask',
    );
  });
});

describe('persisted rules', () => {
  it('changes made mid-run apply to the next call: add, disable, remove', async () => {
    const rules = createMemoryRuleStore();
    const executions = newExecutions();
    const tool = recordingTool('search', { needsApproval: true }, executions);
    const call = [{ name: 'search', args: {} }];
    const agent = agentCalling([call, call, call, call], { tools: [tool], ruleStore: rules });

    let snap = await agent.execute({ input: 'go' });
    expect(snap.status).toBe('awaitingApproval');

    const added = await rules.add({ tool: 'search', action: 'allow', reason: 'read-only' });
    expect(added).toMatchObject({ enabled: true, id: expect.any(String), createdAt: expect.any(Number) });
    snap = await agent.execute(approveAll(snap, 'alice', { agent })); // turn 2 runs under the new rule, then turn 3 ...
    expect(snap.audit.filter((entry) => entry.ruleId === added.id)).toHaveLength(3);
    expect(snap.status).toBe('completed');

    await rules.setEnabled(added.id, false);
    const second = await agentCalling([call], { tools: [tool], ruleStore: rules }).execute({ input: 'go' });
    expect(second.status).toBe('awaitingApproval');

    await rules.setEnabled(added.id, true);
    expect((await agentCalling([call], { tools: [tool], ruleStore: rules }).execute({ input: 'go' })).status).toBe(
      'completed',
    );
    expect(await rules.remove(added.id)).toBe(true);
    expect(await rules.remove(added.id)).toBe(false);
    expect(await rules.list()).toEqual([]);
    expect((await agentCalling([call], { tools: [tool], ruleStore: rules }).execute({ input: 'go' })).status).toBe(
      'awaitingApproval',
    );
  });

  it('a stored rule can be limited to one agent, and a stored deny beats a configured allow', async () => {
    const rules = createMemoryRuleStore();
    await rules.add({ tool: 'search', action: 'deny', agent: 'someone-else' });
    const tool = recordingTool('search');
    const allowed = agentCalling([[{ name: 'search', args: {} }]], {
      tools: [tool],
      ruleStore: rules,
      policy: { rules: [{ tool: 'search', action: 'allow' }] },
    });
    expect((await allowed.execute({ input: 'go' })).status).toBe('completed');
    await rules.add({ tool: 'search', action: 'deny', reason: 'stop' });
    const denied = await agentCalling([[{ name: 'search', args: {} }]], {
      tools: [tool],
      ruleStore: rules,
      policy: { rules: [{ tool: 'search', action: 'allow' }] },
    }).execute({
      input: 'go',
    });
    expect(denied.audit[0]).toMatchObject({ decision: 'denied', source: 'rule', reason: 'stop' });
  });

  it('refuses an invalid stored rule with a clear error', async () => {
    const rules = createMemoryRuleStore();
    await expect(rules.add({ tool: 'x', action: 'always' as 'allow' })).rejects.toThrow(/RuleStore.add: action/);
    await expect(rules.setEnabled('nope', true)).rejects.toThrow(/No stored rule nope/);
  });
});

describe('run memory', () => {
  const call = [{ name: 'deploy', args: { env: 'staging' } }];

  async function approvedForRun() {
    const executions = newExecutions();
    const tool = recordingTool('deploy', { needsApproval: true }, executions);
    const agent = agentCalling([call, call, call], { tools: [tool] });
    const paused = await agent.execute({ input: 'go' });
    const request = paused.pendingApprovals[0]!;
    const decided = withApprovalResponse(
      paused,
      { approvalId: request.approvalId, approved: true, approvedBy: 'alice', scope: 'run' },
      { agent },
    );
    return { agent, decided, executions, tool };
  }

  it("scope 'run' approves the tool by name for the rest of the run (source memory)", async () => {
    const { agent, decided, executions } = await approvedForRun();
    const done = await agent.execute(decided);
    expect(done.status).toBe('completed');
    expect(executions.count('deploy')).toBe(3);
    expect(done.audit.map((entry) => entry.source)).toEqual(['human', 'memory', 'memory']);
    expect(done.runApprovals).toEqual(['deploy']);
  });

  it('clearRunApprovals forgets it: the next call is asked again', async () => {
    const { agent, decided } = await approvedForRun();
    const cleared = clearRunApprovals(decided);
    expect(cleared.runApprovals).toEqual([]);
    expect(decided.runApprovals).toEqual(['deploy']);
    const next: AgentSnapshot = await agent.execute(cleared);
    expect(next.status).toBe('awaitingApproval');
    expect(next.audit.map((entry) => entry.source)).toEqual(['human']);
  });

  it('a new run starts with no memory', async () => {
    const { agent, decided, tool } = await approvedForRun();
    await agent.execute(decided);
    const fresh = await agentCalling([call], { tools: [tool] }).execute({ input: 'again' });
    expect(fresh.status).toBe('awaitingApproval');
  });

  it('a deny rule beats run memory', async () => {
    const executions = newExecutions();
    const tool = recordingTool('deploy', { needsApproval: true }, executions);
    const agent = agentCalling([call, [{ name: 'deploy', args: { env: 'prod' } }]], {
      tools: [tool],
      policy: {
        rules: [
          { id: 'no-prod', tool: 'deploy', action: 'deny', when: (args: { env: string }) => args.env === 'prod' },
        ],
      },
    });
    const paused = await agent.execute({ input: 'go' });
    const approved = withApprovalResponse(
      paused,
      { approvalId: paused.pendingApprovals[0]!.approvalId, approved: true, scope: 'run' },
      { agent },
    );
    const done = await agent.execute(approved);
    expect(done.runApprovals).toEqual(['deploy']);
    expect(executions.byTool.get('deploy')).toEqual([{ env: 'staging' }]);
    expect(done.audit.at(-1)).toMatchObject({ decision: 'denied', source: 'rule', ruleId: 'no-prod' });
  });
});
