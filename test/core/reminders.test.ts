// Reminders and escalation: the plan a request gets (tool, rule, agent), the sweeper making each nudge once by the
// runtime's clock, escalations widening who may decide (never narrowing "anyone"), and the history signed so a
// forged escalation in storage is refused.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ApprovalSignatureError,
  ApproverNotAllowedError,
  ConfigError,
  createMemoryStore,
  createRuntime,
  defineTool,
  withApprovalResponse,
  type AgentSnapshot,
  type EscalationStep,
  type PolicyRule,
  type RequestHistory,
  type RunEvent,
} from 'countersign';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';
import { testAgent, testClock, thrown, type TestClock } from '../support/test-kit.js';

const MINUTE = 60_000;
const SECRET = 'reminder-secret-0123456789abcdef';

interface Setup {
  readonly remindAfterMs?: number;
  readonly escalate?: readonly EscalationStep[];
  readonly approvers?: readonly string[];
  readonly rules?: readonly PolicyRule[];
  readonly agentRemindAfterMs?: number;
  readonly approvalTtlMs?: number;
  readonly decisionSecret?: string;
}

function setup(options: Setup = {}) {
  const clock: TestClock = testClock();
  const ran: string[] = [];
  const tool = defineTool({
    name: 'refund',
    description: 'Refund a customer',
    input: z.object({ cents: z.number().int() }),
    execute: async ({ cents }) => {
      ran.push(String(cents));
      return 'refunded';
    },
    ...(options.remindAfterMs === undefined ? {} : { remindAfterMs: options.remindAfterMs }),
    ...(options.escalate === undefined ? {} : { escalate: options.escalate }),
    ...(options.approvers === undefined ? {} : { approvers: options.approvers }),
  });
  const model = createScriptedModel(({ messages }) =>
    messages.at(-1)?.role === 'tool' ? textTurn('done') : toolCallTurn([{ name: 'refund', args: { cents: 500 } }]),
  );
  const agent = testAgent({
    model,
    tools: [tool],
    clock,
    ...(options.rules === undefined ? {} : { policy: { rules: options.rules } }),
    ...(options.agentRemindAfterMs === undefined ? {} : { remindAfterMs: options.agentRemindAfterMs }),
    ...(options.approvalTtlMs === undefined ? {} : { approvalTtlMs: options.approvalTtlMs }),
    ...(options.decisionSecret === undefined ? {} : { decisionSecret: options.decisionSecret }),
  });
  const store = createMemoryStore({ clock });
  const runtime = createRuntime({ agents: [agent], store, clock });
  const events: RunEvent[] = [];
  store.subscribe((event) => events.push(event));
  return { agent, runtime, store, clock, ran, events };
}

const nudges = (events: readonly RunEvent[]) =>
  events.filter((event) => event.type === 'approval-reminder' || event.type === 'approval-escalated');

describe('reminders and escalation: configuration', () => {
  it('refuses escalation steps out of order, a too short remindAfterMs and an empty target, naming the option', () => {
    const base = { name: 't', description: 'd', input: z.object({}), execute: () => 'ok' };
    const unordered = thrown(() =>
      defineTool({
        ...base,
        escalate: [
          { afterMs: 2 * MINUTE, to: ['a'] },
          { afterMs: MINUTE, to: ['b'] },
        ],
      }),
    );
    expect(unordered).toBeInstanceOf(ConfigError);
    expect((unordered as Error).message).toMatch(/escalate\.1\.afterMs must be later than step 0's afterMs \(120000\)/);
    expect((thrown(() => defineTool({ ...base, remindAfterMs: 10 })) as Error).message).toMatch(
      /remindAfterMs must be at least 1000 ms/,
    );
    expect((thrown(() => defineTool({ ...base, escalate: [{ afterMs: MINUTE, to: [] }] })) as Error).message).toMatch(
      /escalate\.0\.to/,
    );
    expect(
      thrown(() =>
        setup({
          rules: [
            {
              tool: 'refund',
              action: 'ask',
              escalate: [
                { afterMs: MINUTE, to: ['a'] },
                { afterMs: MINUTE, to: ['b'] },
              ],
            },
          ],
        }),
      ),
    ).toBeInstanceOf(ConfigError);
    expect(thrown(() => setup({ agentRemindAfterMs: 0 }))).toBeInstanceOf(ConfigError);
  });

  it("a request carries its plan: the rule's settings win over the tool's, and the agent's remindAfterMs fills in", async () => {
    const toolPlan = { remindAfterMs: 10 * MINUTE, escalate: [{ afterMs: 30 * MINUTE, to: ['carol'] }] };
    const fromTool = setup(toolPlan);
    expect((await fromTool.runtime.start(fromTool.agent.name, { input: 'go' })).pendingApprovals[0]).toMatchObject(
      toolPlan,
    );

    const rule: PolicyRule = { tool: 'refund', action: 'ask', remindAfterMs: 5 * MINUTE };
    const fromRule = setup({ ...toolPlan, rules: [rule] });
    // The rule sets only remindAfterMs: the tool's escalation plan still applies.
    expect((await fromRule.runtime.start(fromRule.agent.name, { input: 'go' })).pendingApprovals[0]).toMatchObject({
      remindAfterMs: 5 * MINUTE,
      escalate: toolPlan.escalate,
    });

    const fromAgent = setup({ agentRemindAfterMs: 2 * MINUTE });
    const request = (await fromAgent.runtime.start(fromAgent.agent.name, { input: 'go' })).pendingApprovals[0]!;
    expect(request.remindAfterMs).toBe(2 * MINUTE);
    expect(request.escalate).toBeUndefined();
  });
});

describe('reminders', () => {
  it('wait forever, but remind: no expiry, one reminder per interval while nobody decides, then the decision ends them', async () => {
    const { agent, runtime, clock, events, ran } = setup({ agentRemindAfterMs: MINUTE });
    const run = await runtime.start(agent.name, { input: 'go' });
    expect(run.pendingApprovals[0]!.expiresAt).toBeUndefined();

    clock.advance(MINUTE - 1);
    expect(await runtime.sweepExpired()).toEqual({ runs: 0, expired: 0, reminded: 0, escalated: 0, failed: 0 });
    clock.advance(1);
    expect(await runtime.sweepExpired()).toMatchObject({ reminded: 1, escalated: 0 });
    // The same moment again: already sent.
    expect(await runtime.sweepExpired()).toMatchObject({ reminded: 0 });
    // Ten days with the sweeper down: one reminder, not fourteen thousand.
    clock.advance(10 * 24 * 60 * MINUTE);
    expect(await runtime.sweepExpired()).toMatchObject({ reminded: 1 });

    const waiting = await runtime.get(run.runId);
    expect(waiting.status).toBe('awaitingApproval');
    expect(waiting.pendingApprovals[0]!.history).toEqual({ reminders: 2, lastRemindedAt: clock(), escalations: [] });
    expect(
      nudges(events).map((event) => event.type === 'approval-reminder' && [event.reminder, event.request.approvalId]),
    ).toEqual([
      [1, run.pendingApprovals[0]!.approvalId],
      [2, run.pendingApprovals[0]!.approvalId],
    ]);

    const done = await runtime.respond(run.runId, {
      approvalId: run.pendingApprovals[0]!.approvalId,
      approved: true,
      approvedBy: 'alice',
    });
    expect(done.status).toBe('completed');
    expect(ran).toEqual(['500']);
    // The audit shows the chain: the decision's entry keeps the reminders.
    expect(done.snapshot.audit.at(-1)).toMatchObject({ by: 'alice', history: { reminders: 2, escalations: [] } });
    clock.advance(MINUTE);
    expect(await runtime.sweepExpired()).toMatchObject({ reminded: 0 });
  });

  it('an expired request is denied by the same pass, never reminded of', async () => {
    const { agent, runtime, clock, events } = setup({ remindAfterMs: MINUTE, approvalTtlMs: MINUTE });
    const run = await runtime.start(agent.name, { input: 'go' });
    clock.advance(MINUTE);
    expect(await runtime.sweepExpired()).toMatchObject({ expired: 1, reminded: 0 });
    expect((await runtime.get(run.runId)).status).toBe('completed');
    expect(nudges(events)).toEqual([]);
  });

  it('three sweepers at once send each reminder exactly once', async () => {
    const { agent, store, clock, events } = setup({
      remindAfterMs: MINUTE,
      escalate: [{ afterMs: MINUTE, to: ['carol'] }],
    });
    const sweepers = [0, 1, 2].map(() => createRuntime({ agents: [agent], store, clock }));
    const runs = await Promise.all(Array.from({ length: 5 }, () => sweepers[0]!.start(agent.name, { input: 'go' })));
    clock.advance(MINUTE);
    const results = await Promise.all(sweepers.map((sweeper) => sweeper.sweepExpired()));
    expect(results.reduce((sum, result) => sum + result.reminded, 0)).toBe(5);
    expect(results.reduce((sum, result) => sum + result.escalated, 0)).toBe(5);
    const published = nudges(events);
    expect(published).toHaveLength(10);
    for (const run of runs) {
      expect(published.filter((event) => event.runId === run.runId).map((event) => event.type)).toEqual([
        'approval-reminder',
        'approval-escalated',
      ]);
      expect((await store.load(run.runId))!.pendingApprovals[0]!.history).toMatchObject({
        reminders: 1,
        escalations: [{ to: ['carol'] }],
      });
    }
  });
});

describe('escalation', () => {
  it('widens who may decide to the ids a due step names, says who was added, and the audit keeps the chain', async () => {
    const { agent, runtime, clock, events } = setup({
      approvers: ['alice'],
      escalate: [
        { afterMs: 30 * MINUTE, to: ['carol'] },
        { afterMs: 60 * MINUTE, to: ['dave'] },
      ],
    });
    const run = await runtime.start(agent.name, { input: 'go' });
    const { approvalId } = run.pendingApprovals[0]!;
    await expect(
      runtime.respond(run.runId, { approvalId, approved: true, approvedBy: 'carol' }),
    ).rejects.toBeInstanceOf(ApproverNotAllowedError);

    clock.advance(30 * MINUTE);
    expect(await runtime.sweepExpired()).toMatchObject({ escalated: 1, reminded: 0 });
    const escalated = nudges(events);
    expect(escalated).toMatchObject([{ type: 'approval-escalated', step: 0, to: ['carol'] }]);
    // The request's own approver list is what was asked; the escalation widens it.
    expect((await runtime.get(run.runId)).pendingApprovals[0]).toMatchObject({
      approvers: ['alice'],
      history: { escalations: [{ at: clock(), to: ['carol'] }] },
    });
    await expect(runtime.respond(run.runId, { approvalId, approved: true, approvedBy: 'dave' })).rejects.toBeInstanceOf(
      ApproverNotAllowedError,
    );

    const done = await runtime.respond(run.runId, { approvalId, approved: true, approvedBy: 'carol' });
    expect(done.status).toBe('completed');
    expect(done.snapshot.audit.at(-1)).toMatchObject({
      decision: 'approved',
      by: 'carol',
      history: { reminders: 0, escalations: [{ at: clock(), to: ['carol'] }] },
    });
  });

  it('several steps due at once are all made, in order; a request anyone may decide stays open to anyone', async () => {
    const { agent, runtime, clock, events } = setup({
      escalate: [
        { afterMs: MINUTE, to: ['carol'] },
        { afterMs: 2 * MINUTE, to: { channel: 'slack' } },
      ],
    });
    const run = await runtime.start(agent.name, { input: 'go' });
    clock.advance(5 * MINUTE);
    expect(await runtime.sweepExpired()).toMatchObject({ escalated: 2 });
    expect(nudges(events)).toMatchObject([
      { type: 'approval-escalated', step: 0, to: ['carol'] },
      { type: 'approval-escalated', step: 1, to: { channel: 'slack' } },
    ]);
    const waiting = await runtime.get(run.runId);
    expect(waiting.pendingApprovals[0]!.approvers).toBeUndefined();
    const done = await runtime.respond(run.runId, {
      approvalId: waiting.pendingApprovals[0]!.approvalId,
      approved: true,
      approvedBy: 'erin',
    });
    expect(done.status).toBe('completed');
  });

  it('with a decisionSecret: the request signature a response echoes is unchanged, the sweeper signs the history, and a forged escalation is refused', async () => {
    const { agent, runtime, store, clock } = setup({
      approvers: ['alice'],
      remindAfterMs: MINUTE,
      escalate: [{ afterMs: MINUTE, to: ['carol'] }],
      decisionSecret: SECRET,
    });
    const run = await runtime.start(agent.name, { input: 'go' });
    const asked = run.pendingApprovals[0]!;
    clock.advance(MINUTE);
    await runtime.sweepExpired();
    const nudged = await runtime.get(run.runId);
    const request = nudged.pendingApprovals[0]!;
    expect(request.signature).toBe(asked.signature);
    expect(request.history?.signature).toMatch(/^v2\./);

    // Forged in storage: mallory added to the escalations (the history's signature copied from the real one).
    const forged = forge(nudged, (history) => ({
      ...history,
      escalations: [...history.escalations, { at: clock(), to: ['mallory'] }],
    }));
    expect(forged.pendingApprovals[0]!.history!.signature).toBe(request.history!.signature);
    for (const approvedBy of ['mallory', 'alice']) {
      expect(
        thrown(() =>
          withApprovalResponse(
            forged,
            { approvalId: asked.approvalId, approved: true, approvedBy, signature: asked.signature! },
            { agent },
          ),
        ),
      ).toBeInstanceOf(ApprovalSignatureError);
    }
    // Nor does the sweeper extend a forged history and sign it as its own.
    await store.commit({ ...forged, version: nudged.version + 1 }, nudged.version);
    clock.advance(MINUTE);
    expect(await runtime.sweepExpired()).toMatchObject({ reminded: 0, escalated: 0 });

    // The real history verifies: carol, brought in by the sweeper, decides with the signature first sent out.
    await store.commit({ ...nudged, version: nudged.version + 2 }, nudged.version + 1);
    const done = withApprovalResponse(
      await runtime.get(run.runId),
      { approvalId: asked.approvalId, approved: true, approvedBy: 'carol', signature: asked.signature! },
      { agent },
    );
    expect(done.status).toBe('running');
  });
});

/** `snapshot` with its first request's history changed, as a writer to the store could (a plain copy: nothing the library made). */
function forge(snapshot: AgentSnapshot, change: (history: RequestHistory) => RequestHistory): AgentSnapshot {
  const copy = structuredClone(snapshot) as { -readonly [K in keyof AgentSnapshot]: AgentSnapshot[K] };
  const [first, ...rest] = copy.pendingApprovals;
  copy.pendingApprovals = [{ ...first!, history: change(first!.history!) }, ...rest];
  copy.version = snapshot.version + 1;
  return copy;
}
