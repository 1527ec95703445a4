// Which decisions a person may make on a call (`decisions` on a tool and on a policy rule): checked when defined,
// the tool's list tightened by its rule's, carried on the request and bound by its signature, narrowed (never widened)
// by an added request, refused before anything is recorded when a response asks for another kind, and run memory and
// grants cover only a call that offers their scope.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ApprovalSignatureError,
  askHuman,
  ConfigError,
  DecisionNotOfferedError,
  createMemoryRuleStore,
  defineTool,
  deserialize,
  serialize,
  withApprovalRequest,
  withApprovalResponse,
  type AgentSnapshot,
  type ApprovalResponse,
  type DecisionKind,
  type PolicyRule,
  type RuleStore,
} from 'countersign';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';
import { testAgent, thrown } from '../support/test-kit.js';

const SECRET = 'a-decision-secret-of-at-least-32-characters!';
const KINDS: readonly DecisionKind[] = ['approve', 'edit', 'deny', 'run', 'session', 'agent'];

/** An agent whose model asks, turn by turn, for the transfers its user message lists (`[[10], [500, 20]]`). */
function setup(
  options: { decisions?: readonly DecisionKind[]; rules?: readonly PolicyRule[]; ruleStore?: RuleStore } = {},
) {
  const ran: number[] = [];
  const transfer = defineTool({
    name: 'transfer',
    description: 'Move money',
    input: z.object({ amount: z.number() }),
    needsApproval: true,
    ...(options.decisions === undefined ? {} : { decisions: options.decisions }),
    execute: async ({ amount }) => {
      ran.push(amount);
      return { moved: amount };
    },
  });
  const model = createScriptedModel(({ messages }) => {
    const plan = JSON.parse(messages.find((message) => message.role === 'user')!.content) as number[][];
    const amounts = plan[messages.filter((message) => message.role === 'assistant').length];
    return amounts === undefined
      ? textTurn('done')
      : toolCallTurn(amounts.map((amount) => ({ name: 'transfer', args: { amount } })));
  });
  const agent = testAgent({
    model,
    tools: [transfer],
    decisionSecret: SECRET,
    ...(options.rules === undefined ? {} : { policy: { rules: options.rules } }),
    ...(options.ruleStore === undefined ? {} : { ruleStore: options.ruleStore }),
  });
  const start = (plan: number[][], sessionId?: string) =>
    agent.execute({ input: JSON.stringify(plan), ...(sessionId === undefined ? {} : { sessionId }) });
  return { agent, ran, start };
}

/** The response that asks for `kind` on the run's first pending request, echoing its signature. */
function responseFor(snapshot: AgentSnapshot, kind: DecisionKind, index = 0): ApprovalResponse {
  const { approvalId, signature } = snapshot.pendingApprovals[index]!;
  const base = { approvalId, approvedBy: 'alice', signature: signature! };
  switch (kind) {
    case 'approve':
      return { ...base, approved: true };
    case 'edit':
      return { ...base, approved: true, args: { amount: 5 } };
    case 'deny':
      return { ...base, approved: false };
    case 'agent':
      return { ...base, approved: true, scope: 'agent', grant: { ttlMs: 60_000 } };
    default:
      return { ...base, approved: true, scope: kind };
  }
}

/** A rule asking about transfers over 100 that lets a person approve or deny them once, nothing more. */
const BIG_ONCE: PolicyRule = {
  id: 'big-once',
  tool: 'transfer',
  action: 'ask',
  when: (args: { amount: number }) => args.amount > 100,
  decisions: ['approve', 'deny'],
};

describe('decisions on a tool or a rule', () => {
  it('refuses an empty list or an unknown kind when the tool, the rule or the stored rule is made, naming the fix', async () => {
    const tool = (decisions: unknown) => () =>
      defineTool({
        name: 't',
        description: 'd',
        input: z.object({}),
        decisions: decisions as DecisionKind[],
        execute: () => 1,
      });
    expect(tool([])).toThrow(ConfigError);
    expect(tool([])).toThrow(/decisions is empty, so nobody could decide the call; name at least one kind/);
    expect(tool(['approve', 'maybe'])).toThrow(
      /decisions\.1 must be one of 'approve', 'edit', 'deny', 'run', 'session', 'agent'/,
    );
    expect(() => setup({ rules: [{ tool: 'transfer', action: 'ask', decisions: [] }] })).toThrow(
      /Policy rule 0: decisions is empty/,
    );
    await expect(
      createMemoryRuleStore().add({ tool: 'transfer', action: 'ask', decisions: ['later' as DecisionKind] }),
    ).rejects.toThrow(/decisions\.0 must be one of/);
  });

  it('offers every kind when neither says (no list on the request), else the tool list tightened by its rule, never widened', async () => {
    expect((await setup().start([[10]])).pendingApprovals[0]!.decisions).toBeUndefined();
    const onTool = setup({ decisions: ['deny', 'approve', 'run'] });
    expect((await onTool.start([[10]])).pendingApprovals[0]!.decisions).toEqual(['approve', 'deny', 'run']);
    const tightened = setup({
      decisions: ['approve', 'edit', 'deny', 'run'],
      rules: [{ ...BIG_ONCE, decisions: ['approve', 'deny', 'session'] }],
    });
    const paused = await tightened.start([[10, 500]]);
    expect(paused.pendingApprovals.map((request) => request.decisions)).toEqual([
      ['approve', 'edit', 'deny', 'run'],
      ['approve', 'deny'],
    ]);
    const disjoint = setup({ decisions: ['edit'], rules: [{ ...BIG_ONCE, decisions: ['deny'] }] });
    expect((await disjoint.start([[500]])).pendingApprovals[0]!.decisions).toEqual([]);
  });

  it('tightens from a stored rule too, signed with the rest of the rule', async () => {
    const ruleStore = createMemoryRuleStore({ decisionSecret: SECRET });
    const stored = await ruleStore.add({ tool: 'transfer', action: 'ask', decisions: ['deny', 'approve'] });
    expect(stored.decisions).toEqual(['deny', 'approve']);
    const { start } = setup({ decisions: ['approve', 'edit', 'deny'], ruleStore });
    expect((await start([[10]])).pendingApprovals[0]).toMatchObject({
      ruleId: stored.id,
      decisions: ['approve', 'deny'],
    });
  });
});

describe('a response asking for a decision its request does not offer', () => {
  it.each(KINDS)(
    "is refused for '%s' with DecisionNotOfferedError naming what was asked, what is offered and the fix",
    async (kind) => {
      const offered = KINDS.filter((other) => other !== kind);
      const { agent, start } = setup({ decisions: offered });
      const paused = await start([[10]], 'chat-1');
      const error = thrown(() => withApprovalResponse(paused, responseFor(paused, kind), { agent }));
      expect(error).toBeInstanceOf(DecisionNotOfferedError);
      expect(error).toMatchObject({
        code: 'decision_not_offered',
        approvalId: paused.pendingApprovals[0]!.approvalId,
        asked: kind,
        offered,
      });
      expect((error as Error).message).toMatch(
        new RegExp(
          `does not offer '${kind}' .*; it offers '${offered[0]}'.*add '${kind}' to the decisions of its tool`,
        ),
      );
      // What it offers is taken, a dismissal always.
      const other = offered.find((item) => item !== 'edit' && item !== 'agent')!;
      expect(withApprovalResponse(paused, responseFor(paused, other), { agent }).audit).toHaveLength(1);
      const dismissal = { ...responseFor(paused, 'deny'), dismissed: true };
      expect(withApprovalResponse(paused, dismissal, { agent }).audit.at(-1)!.source).toBe('dismissed');
    },
  );

  it("refuses a denial for the session when only 'deny' is offered, and an edit for the run when 'run' is not", async () => {
    const { agent, start } = setup({ decisions: ['approve', 'edit', 'deny'] });
    const paused = await start([[10]], 'chat-1');
    const sessionDenial = { ...responseFor(paused, 'deny'), scope: 'session' as const };
    expect(thrown(() => withApprovalResponse(paused, sessionDenial, { agent }))).toMatchObject({ asked: 'session' });
    const runEdit = { ...responseFor(paused, 'edit'), scope: 'run' as const };
    expect(thrown(() => withApprovalResponse(paused, runEdit, { agent }))).toMatchObject({ asked: 'run' });
  });

  it("is refused by a rule that tightens the tool's list: the rule's call takes only what the rule offers", async () => {
    const { agent, start, ran } = setup({ rules: [BIG_ONCE] });
    const paused = await start([[500]]);
    expect(thrown(() => withApprovalResponse(paused, responseFor(paused, 'run'), { agent }))).toMatchObject({
      asked: 'run',
      offered: ['approve', 'deny'],
    });
    const done = await agent.execute(withApprovalResponse(paused, responseFor(paused, 'approve'), { agent }));
    expect([done.status, ran]).toEqual(['completed', [500]]);
  });

  it("takes the answer to a question as an approval, not an edit: a rule offering 'approve' and 'deny' lets a person answer", async () => {
    const ask = askHuman({ answer: z.object({ region: z.enum(['eu', 'us']) }) });
    const model = createScriptedModel(({ messages }) =>
      messages.at(-1)?.role === 'tool' ? textTurn('done') : toolCallTurn('ask_human', { question: 'Which region?' }),
    );
    const rules: PolicyRule[] = [{ tool: 'ask_human', action: 'ask', decisions: ['approve', 'deny'] }];
    const agent = testAgent({ model, tools: [ask], policy: { rules } });
    const paused = await agent.execute({ input: 'set up a cluster' });
    const { approvalId } = paused.pendingApprovals[0]!;
    const answered = withApprovalResponse(paused, { approvalId, approved: true, answer: { region: 'eu' } }, { agent });
    expect((await agent.execute(answered)).messages.find((message) => message.role === 'tool')!.content).toContain(
      'eu',
    );
  });
});

describe('the list on a stored request', () => {
  it('is bound by the request signature: widened or removed in storage, the request is refused; kept, it round-trips', async () => {
    const { agent, start } = setup({ decisions: ['approve', 'deny'] });
    const paused = await start([[10]]);
    const text = serialize(paused);
    expect(deserialize(text).pendingApprovals[0]!.decisions).toEqual(['approve', 'deny']);
    for (const widen of [
      (request: Record<string, unknown>) => delete request['decisions'],
      (request: Record<string, unknown>) => (request['decisions'] = ['approve', 'deny', 'run']),
    ]) {
      const envelope = JSON.parse(text);
      widen(envelope.head.json.pendingApprovals[0]);
      const widened = deserialize(JSON.stringify(envelope));
      expect(thrown(() => withApprovalResponse(widened, responseFor(widened, 'run'), { agent }))).toBeInstanceOf(
        ApprovalSignatureError,
      );
      expect(thrown(() => withApprovalResponse(widened, responseFor(widened, 'approve'), { agent }))).toBeInstanceOf(
        ApprovalSignatureError,
      );
    }
    expect(withApprovalResponse(deserialize(text), responseFor(paused, 'approve'), { agent }).audit).toHaveLength(1);
  });
});

describe('run memory and grants', () => {
  it("cover only a call whose decisions offer their scope: a sibling or later call that offers no 'run' is asked", async () => {
    const { agent, start, ran } = setup({ rules: [BIG_ONCE] });
    const paused = await start([
      [10, 500],
      [700, 20],
    ]);
    const forRun = withApprovalResponse(paused, responseFor(paused, 'run'), { agent });
    // The sibling of 500 does not offer 'run': it stays pending for its own decision.
    expect(forRun.pendingApprovals.map((request) => request.decisions)).toEqual([['approve', 'deny']]);
    const next = await agent.execute(withApprovalResponse(forRun, responseFor(forRun, 'approve'), { agent }));
    // The next turn: 20 is covered by the run-wide approval, 700 is asked again.
    expect(next.status).toBe('awaitingApproval');
    expect(ran).toEqual([10, 500, 20]);
    expect(next.audit.at(-1)).toMatchObject({ source: 'memory', decision: 'approved' });
    expect(next.pendingApprovals).toHaveLength(1);
  });

  it("a session grant covers no sibling nor later run's call that offers no 'session'", async () => {
    const { agent, start, ran } = setup({ rules: [BIG_ONCE] });
    const first = await start([[10, 500]], 'chat-7');
    const granted = withApprovalResponse(first, responseFor(first, 'session'), { agent });
    expect(granted.pendingApprovals.map((request) => request.decisions)).toEqual([['approve', 'deny']]);
    await agent.execute(withApprovalResponse(granted, responseFor(granted, 'deny'), { agent }));
    expect((await start([[30]], 'chat-7')).status).toBe('completed');
    const big = await start([[900]], 'chat-7');
    expect(big.status).toBe('awaitingApproval');
    expect(ran).toEqual([10, 30]);
  });
});

describe('an added request (withApprovalRequest)', () => {
  const added = (decisions?: readonly DecisionKind[]) => ({
    toolCallId: 'billing_1',
    toolName: 'transfer',
    args: { amount: 40 },
    ...(decisions === undefined ? {} : { decisions }),
  });

  it("may narrow the tool's decisions, never widen them", async () => {
    const { agent, start } = setup({ decisions: ['approve', 'deny', 'run'] });
    const paused = await start([[10]]);
    const last = (snapshot: AgentSnapshot) => snapshot.pendingApprovals.at(-1)!.decisions;
    expect(last(withApprovalRequest(paused, added(), { agent }))).toEqual(['approve', 'deny', 'run']);
    const narrowed = withApprovalRequest(paused, added(['deny', 'approve']), { agent });
    expect(last(narrowed)).toEqual(['approve', 'deny']);
    expect(thrown(() => withApprovalResponse(narrowed, responseFor(narrowed, 'run', 1), { agent }))).toMatchObject({
      asked: 'run',
    });
    const wider = thrown(() => withApprovalRequest(paused, added(['approve', 'edit']), { agent }));
    expect(wider).toBeInstanceOf(ConfigError);
    expect((wider as Error).message).toMatch(
      /transfer does not offer 'edit' \(its decisions are 'approve', 'deny', 'run'\); name decisions from that list/,
    );
    expect(() => withApprovalRequest(paused, added([]), { agent })).toThrow(/decisions is empty/);
  });
});
