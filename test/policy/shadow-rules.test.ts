// Stored rules in shadow mode: they never decide; a call one would have allowed is asked as before, and its request
// says so (shadowRuleId); once the rule is let act, the next such call runs without asking.
import { describe, expect, it, vi } from 'vitest';
import { createMemoryRuleStore, createRuntime, type RuleStore, type StoredRule } from 'countersign';
import { decisionSecret, grantAgent } from '../support/grant-harness.js';
import { agentCalling, recordingTool } from '../support/policy-harness.js';

const deploy = (env: string) => [{ name: 'deploy', args: { env } }];

describe('shadow rules', () => {
  it('never decide, annotate the request they would have allowed, and act once let act', async () => {
    const rules = createMemoryRuleStore();
    const { run, executions } = grantAgent({ ruleStore: rules });
    const rule = await rules.add({ tool: 'deploy', action: 'allow', shadow: true, argsMatch: { env: 'staging-*' } });
    const covered = await run(deploy('staging-1'));
    expect(covered.status).toBe('awaitingApproval');
    expect(covered.pendingApprovals[0]).toMatchObject({ shadowRuleId: rule.id });
    const outside = await run(deploy('prod'));
    expect(outside.pendingApprovals[0]).not.toHaveProperty('shadowRuleId');
    expect(executions.count('deploy')).toBe(0);

    expect(await rules.setShadow(rule.id, false)).not.toHaveProperty('shadow');
    const acting = await run(deploy('staging-2'));
    expect(acting.status).toBe('completed');
    expect(acting.audit[0]).toMatchObject({ source: 'rule', ruleId: rule.id, decision: 'approved' });
    expect((await run(deploy('prod'))).status).toBe('awaitingApproval');
    expect(await rules.setShadow(rule.id, true)).toMatchObject({ shadow: true });
    expect((await run(deploy('staging-3'))).status).toBe('awaitingApproval');
  });

  it('never covers a call that needs a quorum, names approvers, is not grantable, or that a rule asks about', async () => {
    const rules = createMemoryRuleStore();
    await rules.add({ tool: '*', action: 'allow', shadow: true });
    const shadowOf = async (tool: Parameters<typeof recordingTool>[1], extra: object = {}) => {
      const agent = agentCalling([[{ name: 't', args: {} }]], {
        tools: [recordingTool('t', { needsApproval: true, ...tool })],
        ruleStore: rules,
        ...extra,
      });
      return (await agent.execute({ input: 'go' })).pendingApprovals[0]?.shadowRuleId;
    };
    expect(await shadowOf({})).toMatch(/^rule_/);
    expect(await shadowOf({ approvals: { required: 2 } })).toBeUndefined();
    expect(await shadowOf({ approvers: ['alice'] })).toBeUndefined();
    expect(await shadowOf({ grantable: false })).toBeUndefined();
    expect(await shadowOf({}, { policy: { rules: [{ tool: 't', action: 'ask' }] } })).toBeUndefined();
  });

  it("never covers a request whose caller's ask names approvers (runtime.requestApproval)", async () => {
    const rules = createMemoryRuleStore();
    const rule = await rules.add({ tool: 'deploy', action: 'allow', shadow: true });
    const runtime = createRuntime({ requests: { ruleStore: rules } });
    const shadowOf = async (approvers?: string[]) => {
      const handle = await runtime.requestApproval({ tool: 'deploy', args: {}, ...(approvers ? { approvers } : {}) });
      const state = await handle.status();
      return state.status === 'pending' ? state.request?.shadowRuleId : 'not pending';
    };
    expect(await shadowOf()).toBe(rule.id);
    expect(await shadowOf(['alice'])).toBeUndefined();
  });

  it('a shadow flag removed in storage is refused with the decisionSecret: the rule neither acts nor annotates', async () => {
    const signed = createMemoryRuleStore({ decisionSecret });
    const rule = await signed.add({ tool: 'deploy', action: 'allow', shadow: true });
    const { shadow: _dropped, ...widened } = rule;
    const tampered: RuleStore = { ...signed, list: async () => [widened as StoredRule] };
    const warnings = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      const { run } = grantAgent({ decisionSecret, ruleStore: tampered });
      const paused = await run(deploy('prod'));
      expect(paused.status).toBe('awaitingApproval');
      expect(paused.pendingApprovals[0]).not.toHaveProperty('shadowRuleId');
      expect(warnings).toHaveBeenCalledWith(expect.stringContaining(rule.id));
      await expect(
        createMemoryRuleStore({ decisionSecret }).add({ action: 'allow', shadow: false as unknown as true }),
      ).rejects.toThrow(/shadow/);
    } finally {
      warnings.mockRestore();
    }
  });
});
