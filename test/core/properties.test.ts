import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  approveAll,
  cancel,
  denyAll,
  deserialize,
  serialize,
  withApprovalResponse,
  type AgentSnapshot,
  type Message,
} from 'countersign';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';
import { newLedger, pathTool, type Ledger } from '../support/core-harness.js';
import { testAgent, testClock } from '../support/test-kit.js';

const RUNS = 150;

type ToolName = 'gated_a' | 'gated_b' | 'free';
type Verdict = 'approve' | 'deny' | 'approve-run' | 'edit';

interface Scenario {
  /** Model turns; each is the list of tools it calls. */
  readonly turns: readonly (readonly ToolName[])[];
  /** The verdict for the n-th approval request, in the order requests appear. */
  readonly verdicts: readonly Verdict[];
  /** Whether the snapshot goes through serialize/deserialize before each decision. */
  readonly overTheWire: readonly boolean[];
}

const scenario: fc.Arbitrary<Scenario> = fc.record({
  turns: fc.array(fc.array(fc.constantFrom<ToolName>('gated_a', 'gated_b', 'free'), { minLength: 1, maxLength: 3 }), {
    minLength: 0,
    maxLength: 4,
  }),
  verdicts: fc.array(fc.constantFrom<Verdict>('approve', 'deny', 'approve-run', 'edit'), {
    minLength: 12,
    maxLength: 12,
  }),
  overTheWire: fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }),
});

/** An agent whose model plays `turns` by position in the conversation, so a resumed run continues the same script. */
function scenarioAgent(turns: Scenario['turns'], ledger: Ledger) {
  const model = createScriptedModel((request) => {
    const index = request.messages.filter((message) => message.role === 'assistant').length;
    const turn = turns[index];
    if (!turn) return textTurn('done');
    return toolCallTurn(
      turn.map((name, position) => ({ id: `t${index}_c${position}`, name, args: { path: `/${index}/${position}` } })),
    );
  });
  return testAgent({
    model,
    tools: [
      pathTool('gated_a', ledger, { needsApproval: true }),
      pathTool('gated_b', ledger),
      pathTool('free', ledger, { needsApproval: false }),
    ],
    clock: testClock(),
    maxTurns: 10,
  });
}

interface Played {
  readonly final: AgentSnapshot;
  /** Every snapshot the run passed through, in order. */
  readonly snapshots: AgentSnapshot[];
  /** The verdict given for each asked call, by toolCallId. */
  readonly asked: Map<string, Verdict>;
  /** For each call id, the tools approved for the run when the call was evaluated. */
  readonly runApprovedAtEvaluation: Map<string, readonly string[]>;
}

async function play(s: Scenario, ledger: Ledger): Promise<Played> {
  const agent = scenarioAgent(s.turns, ledger);
  const snapshots: AgentSnapshot[] = [];
  const runApprovedAtEvaluation = new Map<string, readonly string[]>();
  const checkpoint = async (snap: AgentSnapshot) => {
    snapshots.push(snap);
    if (snap.state === 'executingTools' || snap.state === 'awaitingApproval') {
      for (const record of snap.toolCalls)
        if (!runApprovedAtEvaluation.has(record.toolCallId))
          runApprovedAtEvaluation.set(record.toolCallId, snapshots.at(-2)?.runApprovals ?? []);
    }
  };
  const asked = new Map<string, Verdict>();
  let snap = await agent.execute({ input: 'go' }, { checkpoint });
  let decisions = 0;
  while (snap.status === 'awaitingApproval') {
    for (const request of snap.pendingApprovals) {
      if (!snap.pendingApprovals.some((item) => item.approvalId === request.approvalId)) continue;
      const index = decisions++ % s.verdicts.length;
      const verdict = s.verdicts[index]!;
      if (s.overTheWire[index]) snap = deserialize(serialize(snap));
      asked.set(request.toolCallId, verdict);
      snap = withApprovalResponse(
        snap,
        {
          approvalId: request.approvalId,
          approved: verdict !== 'deny',
          ...(verdict === 'approve-run' ? { scope: 'run' as const } : {}),
          ...(verdict === 'edit' ? { args: { path: `/edited/${request.toolCallId}` } } : {}),
        },
        { agent },
      );
      snapshots.push(snap);
    }
    snap = await agent.execute(snap, { checkpoint });
  }
  return { final: snap, snapshots, asked, runApprovedAtEvaluation };
}

function allCalls(s: Scenario) {
  return s.turns.flatMap((turn, index) => turn.map((name, position) => ({ id: `t${index}_c${position}`, name })));
}

function expectDeepFrozen(value: unknown, path = 'snapshot'): void {
  if (typeof value !== 'object' || value === null) return;
  if (!Object.isFrozen(value)) throw new Error(`${path} is not frozen`);
  for (const [key, item] of Object.entries(value)) expectDeepFrozen(item, `${path}.${key}`);
}

describe('properties', () => {
  it('a gated tool executes if and only if it was approved, and at most once; free tools run exactly once', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const ledger = newLedger();
        const { final, asked, runApprovedAtEvaluation } = await play(s, ledger);
        expect(final.status).toBe('completed');
        const executed = (id: string) => ledger.executions.filter((item) => item.ctx.toolCallId === id);
        for (const call of allCalls(s)) {
          const runs = executed(call.id);
          expect(runs.length).toBeLessThanOrEqual(1);
          if (call.name === 'free') {
            expect(runs).toHaveLength(1);
            continue;
          }
          const verdict = asked.get(call.id);
          if (verdict === undefined) {
            // Never asked: only because a person approved this tool for the run, earlier or in the same turn.
            const remembered = runApprovedAtEvaluation.get(call.id)?.includes(call.name) ?? false;
            const sibling = final.audit.some((entry) => entry.toolCallId === call.id && entry.source === 'memory');
            expect(remembered || sibling).toBe(true);
            expect(runs).toHaveLength(1);
          } else {
            expect(runs).toHaveLength(verdict === 'deny' ? 0 : 1);
            if (verdict === 'edit') expect(runs[0]!.input).toEqual({ path: `/edited/${call.id}` });
          }
          const approved = final.audit.some((entry) => entry.toolCallId === call.id && entry.decision === 'approved');
          expect(runs.length === 1).toBe(approved);
        }
        expect(ledger.count()).toBe(new Set(ledger.executions.map((item) => item.ctx.toolCallId)).size);
      }),
      { numRuns: RUNS },
    );
  });

  it('deserialize(serialize(s)) deep-equals s for every snapshot a run passes through', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const { snapshots } = await play(s, newLedger());
        for (const snap of snapshots) expect(deserialize(serialize(snap))).toStrictEqual(snap);
      }),
      { numRuns: RUNS },
    );
  });

  // Plain objects, as JSON.parse and users make them (fast-check's records have a null prototype by default).
  const plain = { noNullPrototype: true } as const;
  const jsonArgs = fc.jsonValue().map((value) => JSON.parse(JSON.stringify(value)) as unknown);
  const message: fc.Arbitrary<Message> = fc.oneof(
    fc.record(
      { role: fc.constantFrom('system' as const, 'user' as const), content: fc.string({ unit: 'grapheme' }) },
      plain,
    ),
    fc.record(
      {
        role: fc.constant('assistant' as const),
        content: fc.string(),
        toolCalls: fc.array(
          fc.record({ id: fc.string({ minLength: 1 }), name: fc.string({ minLength: 1 }), args: jsonArgs }, plain),
          { maxLength: 3 },
        ),
      },
      plain,
    ),
    fc.record(
      { role: fc.constant('tool' as const), content: fc.string({ unit: 'binary' }), toolCallId: fc.string() },
      plain,
    ),
  );

  it('deserialize(serialize(s)) deep-equals s for any JSON history', async () => {
    const base = await testAgent({ model: createScriptedModel([textTurn('ok')]), tools: [] }).execute({ input: 'hi' });
    fc.assert(
      fc.property(fc.array(message, { maxLength: 20 }), (messages) => {
        const snap = deserialize(serialize({ ...base, messages }));
        expect(snap).toStrictEqual({ ...base, messages });
        expect(deserialize(serialize(snap))).toStrictEqual(snap);
      }),
      { numRuns: RUNS },
    );
  });

  it('no function mutates its input snapshot; every snapshot is deeply frozen', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, fc.nat(), async (s, pick) => {
        const ledger = newLedger();
        const { snapshots } = await play(s, ledger);
        const agent = scenarioAgent(s.turns, newLedger());
        for (const snap of snapshots) expectDeepFrozen(snap);
        const snap = snapshots[pick % snapshots.length]!;
        const before = structuredClone(snap);
        const attempts: (() => unknown)[] = [
          () => serialize(snap),
          () => approveAll(snap, 'p', { agent }),
          () => denyAll(snap, 'p', 'no', { agent }),
          () => cancel(snap, 'stop', { agent, now: 1 }),
          ...snap.pendingApprovals.map(
            (request) => () =>
              withApprovalResponse(
                snap,
                { approvalId: request.approvalId, approved: true, args: { path: '/e' } },
                { agent },
              ),
          ),
        ];
        for (const attempt of attempts) {
          try {
            const result = attempt();
            if (typeof result === 'object' && result !== null) expectDeepFrozen(result);
          } catch {
            // Refusals are fine here; only the input matters.
          }
        }
        if (snap.state !== 'idle') await agent.execute(snap).catch(() => undefined);
        expect(snap).toStrictEqual(before);
      }),
      { numRuns: RUNS },
    );
  });
});
