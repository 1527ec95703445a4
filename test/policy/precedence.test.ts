import { describe, expect, it } from 'vitest';
import { ConfigError, type PolicyAction, type PolicyRule } from 'countersign';
import { agentCalling, newExecutions, recordingTool } from '../support/policy-harness.js';

type ToolSays = boolean | undefined;

async function decide(rules: PolicyRule[], toolSays: ToolSays, defaultAction?: PolicyAction) {
  const executions = newExecutions();
  const tool = recordingTool('act', toolSays === undefined ? {} : { needsApproval: toolSays }, executions);
  const agent = agentCalling([[{ name: 'act', args: {} }]], {
    tools: [tool],
    policy: { rules, ...(defaultAction === undefined ? {} : { default: defaultAction }) },
  });
  const snap = await agent.execute({ input: 'go' });
  const outcome: PolicyAction =
    snap.status === 'awaitingApproval' ? 'ask' : executions.count('act') === 1 ? 'allow' : 'deny';
  return { snap, outcome, executions };
}

describe('policy precedence', () => {
  const actions: PolicyAction[] = ['allow', 'ask', 'deny'];
  const toolSays: ToolSays[] = [true, false, undefined];

  for (const action of actions) {
    for (const says of toolSays) {
      it(`a matching ${action} rule decides over a tool that says needsApproval=${String(says)}`, async () => {
        const { outcome, snap } = await decide([{ id: 'r1', tool: 'act', action }], says);
        expect(outcome).toBe(action);
        if (action !== 'ask')
          expect(snap.audit[0]).toMatchObject({
            source: 'rule',
            ruleId: 'r1',
            decision: action === 'allow' ? 'approved' : 'denied',
          });
        else expect(snap.pendingApprovals[0]).toMatchObject({ ruleId: 'r1' });
      });
    }
  }

  for (const first of actions) {
    for (const second of actions) {
      const strongest = [first, second].includes('deny') ? 'deny' : [first, second].includes('ask') ? 'ask' : 'allow';
      it(`rules ${first} then ${second}: ${strongest} wins whatever the order`, async () => {
        const { outcome } = await decide(
          [
            { tool: 'act', action: first },
            { tool: '*', action: second },
          ],
          false,
        );
        expect(outcome).toBe(strongest);
      });
    }
  }

  it('with no matching rule the tool decides: false allows, true asks', async () => {
    expect((await decide([{ tool: 'other', action: 'deny' }], false)).outcome).toBe('allow');
    expect((await decide([{ tool: 'other', action: 'allow' }], true)).outcome).toBe('ask');
    expect((await decide([], false)).snap.audit[0]).toMatchObject({ source: 'tool', decision: 'approved' });
  });

  it('when neither a rule nor the tool decides, the default decides, and the default is ask', async () => {
    expect((await decide([], undefined)).outcome).toBe('ask');
    expect((await decide([], undefined, 'allow')).outcome).toBe('allow');
    const denied = await decide([], undefined, 'deny');
    expect(denied.outcome).toBe('deny');
    expect(denied.snap.audit[0]).toMatchObject({ source: 'default', decision: 'denied' });
  });

  it('the policy default does not override a tool that decides for itself', async () => {
    expect((await decide([], true, 'allow')).outcome).toBe('ask');
    expect((await decide([], false, 'deny')).outcome).toBe('allow');
  });

  it('a call denied by a rule never reaches a person: the model reads the rule reason', async () => {
    const { snap, executions } = await decide(
      [{ id: 'no-act', tool: 'act', action: 'deny', reason: 'frozen until Monday' }],
      true,
    );
    expect(snap.status).toBe('completed');
    expect(snap.pendingApprovals).toEqual([]);
    expect(executions.count('act')).toBe(0);
    const result = JSON.parse(snap.messages.find((message) => message.role === 'tool')!.content);
    expect(result).toMatchObject({ status: 'denied', reason: 'frozen until Monday' });
    expect(result.message).toMatch(/Do not retry/);
    expect(snap.audit).toEqual([
      expect.objectContaining({ source: 'rule', ruleId: 'no-act', decision: 'denied', reason: 'frozen until Monday' }),
    ]);
  });

  it('refuses an invalid rule with a ConfigError naming it', () => {
    expect(() =>
      agentCalling([], { tools: [], policy: { rules: [{ id: 'bad', tool: 'x', action: 'maybe' as PolicyAction }] } }),
    ).toThrow(ConfigError);
    expect(() =>
      agentCalling([], { tools: [], policy: { rules: [{ id: 'bad', tool: 'x', action: 'maybe' as PolicyAction }] } }),
    ).toThrow(/Policy rule bad: action/);
  });
});
