// Model-based tests: @xstate/graph builds the state graph of the agent statechart from sample events
// for each state; every simple path of that graph (no vertex twice) is walked, each step replayed
// through the real pure `step` and checked against the invariants a snapshot must keep.
// Each step is also taken by xstate's own `transition` on the same state, and the two must agree:
// `step` runs the machine compiled into a table (src/machine/compile-machine.ts), this proves the
// table is the chart, on every path and for every event a state does not take.
// (@xstate/graph's getSimplePaths lists the same paths but takes minutes here, so the walk is a
// depth-first search over its adjacency map; getShortestPaths checks coverage.)
import { isDeepStrictEqual } from 'node:util';
import { getAdjacencyMap, getShortestPaths } from '@xstate/graph';
import { initialTransition, transition } from 'xstate';
import { describe, expect, it } from 'vitest';
import {
  deserialize,
  serialize,
  StopReason,
  type AgentSnapshot,
  type ApprovalRequest,
  type ChildRun,
  type AuditEntry,
  type MachineState,
  type RunStatus,
} from 'countersign';
import { agentMachine, type AgentEvent, type CallEvaluation, type Decision } from '../../src/machine/agent-machine.js';
import type { RunContext } from '../../src/run/types.js';
import { initialSnapshot, step } from '../../src/machine/step.js';

// One turn keeps the number of simple paths in the thousands (two turns: about 3 x 10^8) and still
// reaches every state and stop reason, max_turns included.
const MAX_TURNS = 1;
const T0 = 1_000;

const initialContext: RunContext = {
  runId: 'run_graph',
  agentName: 'graph',
  messages: [],
  pendingApprovals: [],
  toolCalls: [],
  audit: [],
  runApprovals: [],
  turns: 0,
  maxTurns: MAX_TURNS,
  version: 0,
  createdAt: T0,
  updatedAt: T0,
};

type MachineSnapshotOf = ReturnType<typeof agentMachine.transition>;

function currentCalls(context: RunContext) {
  for (let index = context.messages.length - 1; index >= 0; index--) {
    const message = context.messages[index]!;
    if (message.role === 'assistant') return message.toolCalls ?? [];
  }
  return [];
}

function request(toolCallId: string, toolName: string, approvalId = `apr_${toolCallId}`): ApprovalRequest {
  return {
    approvalId,
    toolCallId,
    toolName,
    args: {},
    argsDigest: 'd',
    description: toolName,
    requestedAt: T0,
    warnings: [],
  };
}

/** A sub-agent's run as a delegate call keeps it: waiting for a person on its one call, or going on after the decision. */
function childRun(parentCall: string, waiting: boolean): ChildRun {
  const inner = request(`inner_${parentCall}`, 'deploy');
  return {
    ...initialContext,
    runId: `child_${parentCall}`,
    agentName: 'sub',
    parentRunId: initialContext.runId,
    parentToolCallId: parentCall,
    state: waiting ? 'awaitingApproval' : 'executingTools',
    status: waiting ? 'awaitingApproval' : 'running',
    pendingApprovals: waiting ? [inner] : [],
  };
}

function audit(
  toolCallId: string,
  toolName: string,
  decision: 'approved' | 'denied',
  extra: Partial<AuditEntry> = {},
): AuditEntry {
  return { toolCallId, toolName, decision, source: 'human', scope: 'once', at: T0, argsDigest: 'd', ...extra };
}

/** Sample events for a state: enough variety to reach every transition, few enough to keep paths finite. */
function sampleEvents(snapshot: MachineSnapshotOf): AgentEvent[] {
  const context = snapshot.context;
  const at = context.updatedAt + 1;
  const value = snapshot.value as MachineState;
  const common: AgentEvent[] = [
    { type: 'CANCEL', at, reason: 'stop' },
    { type: 'FAIL', at, error: { code: 'boom', message: 'broke' } },
    // Forgetting is only a different state when there is something to forget; trying it while a run waits is enough.
    ...(context.runApprovals.length > 0 && snapshot.value === 'awaitingApproval'
      ? [{ type: 'FORGET_RUN_APPROVALS' as const, at }]
      : []),
  ];
  switch (value) {
    case 'idle':
      return [{ type: 'START', at, messages: [{ role: 'user', content: 'go' }] }, ...common];
    case 'callingModel': {
      const turn = context.turns;
      return [
        {
          type: 'MODEL_RESPONDED',
          at,
          message: {
            role: 'assistant',
            content: '',
            toolCalls: [
              { id: `t${turn}_gated`, name: 'gated', args: {} },
              { id: `t${turn}_other`, name: 'other', args: {} },
            ],
          },
        },
        { type: 'MODEL_RESPONDED', at, message: { role: 'assistant', content: 'final answer' } },
        ...common,
      ];
    }
    case 'evaluatingTools': {
      const [gated, other] = currentCalls(context);
      const base = (call: { id: string; name: string }) => ({ toolCallId: call.id, toolName: call.name, attempts: 0 });
      const run = (call: { id: string; name: string }): CallEvaluation => ({
        kind: 'run',
        record: { ...base(call), status: 'approved' },
        audit: audit(call.id, call.name, 'approved', { source: 'tool' }),
      });
      const ask = (call: { id: string; name: string }): CallEvaluation => ({
        kind: 'ask',
        record: { ...base(call), status: 'pending', approvalId: `apr_${call.id}` },
        request: request(call.id, call.name),
      });
      const refused = (call: { id: string; name: string }): CallEvaluation => ({
        kind: 'settled',
        record: { ...base(call), status: 'denied', result: '{"status":"denied"}' },
        audit: audit(call.id, call.name, 'denied', { source: 'rule' }),
      });
      const invalid = (call: { id: string; name: string }): CallEvaluation => ({
        kind: 'settled',
        record: { ...base(call), status: 'failed', result: '{"status":"error"}' },
      });
      return [
        { type: 'TOOLS_EVALUATED', at, evaluations: [ask(gated!), run(other!)] },
        { type: 'TOOLS_EVALUATED', at, evaluations: [ask(gated!), ask(other!)] },
        { type: 'TOOLS_EVALUATED', at, evaluations: [run(gated!), run(other!)] },
        { type: 'TOOLS_EVALUATED', at, evaluations: [refused(gated!), invalid(other!)] },
        ...common,
      ];
    }
    case 'executingTools': {
      const record = context.toolCalls.find((item) => item.status === 'approved' || item.status === 'executing');
      if (!record) return common;
      if (record.status === 'approved')
        return [
          { type: 'TOOL_STARTED', at, toolCallId: record.toolCallId, lease: { owner: 'p', until: at + 60_000 } },
          ...common,
        ];
      return [
        { type: 'TOOL_FINISHED', at, toolCallId: record.toolCallId, ok: true, result: '{"ok":true}' },
        { type: 'TOOL_FINISHED', at, toolCallId: record.toolCallId, ok: false, result: '{"status":"error"}' },
        // A call is interrupted (or, as a delegate call, paused by its sub-agent) at most once per path, so the walk stays finite and short.
        // A sub-agent's pause only in the first turn, on its first call: enough to walk the pause and its decision.
        ...(record.attempts === 1 && context.turns === 1 && record === context.toolCalls[0]
          ? [
              {
                type: 'CHILD_UPDATED' as const,
                at,
                toolCallId: record.toolCallId,
                child: childRun(record.toolCallId, true),
                requests: [
                  {
                    ...request(`inner_${record.toolCallId}`, 'deploy'),
                    path: [{ agentName: 'sub', toolCallId: record.toolCallId, toolName: record.toolName }],
                  },
                ],
              },
            ]
          : []),
        ...(record.attempts === 1
          ? [
              {
                type: 'TOOL_INTERRUPTED' as const,
                at,
                toolCallId: record.toolCallId,
                request: {
                  ...request(record.toolCallId, record.toolName, `apr_again_${record.toolCallId}`),
                  outcomeUnknown: true,
                },
              },
            ]
          : []),
        ...common,
      ];
    }
    case 'awaitingApproval': {
      const pending = context.pendingApprovals;
      const decide = (item: ApprovalRequest, approved: boolean, extra: Partial<AuditEntry> = {}): Decision => ({
        approvalId: item.approvalId,
        approved,
        audit: audit(item.toolCallId, item.toolName, approved ? 'approved' : 'denied', {
          approvalId: item.approvalId,
          ...extra,
        }),
        ...(approved ? {} : { denialResult: '{"status":"denied"}' }),
      });
      // A sub-agent's request is decided in the sub-agent's run: its delegate call then goes on.
      const delegated = context.toolCalls.find((record) => record.child !== undefined && record.status === 'pending');
      if (delegated !== undefined)
        return [
          {
            type: 'CHILD_UPDATED',
            at,
            toolCallId: delegated.toolCallId,
            child: childRun(delegated.toolCallId, false),
            requests: [],
          },
          ...common,
        ];
      const approveAll: AgentEvent = { type: 'DECIDED', at, decisions: pending.map((item) => decide(item, true)) };
      const denyAll: AgentEvent = { type: 'DECIDED', at, decisions: pending.map((item) => decide(item, false)) };
      // Once a request was added, deciding them all either way is enough: the other events were walked without it.
      if (context.toolCalls.some((record) => record.added !== undefined)) return [approveAll, denyAll, ...common];
      const events: AgentEvent[] = [
        approveAll,
        denyAll,
        {
          type: 'DECIDED',
          at,
          decisions: pending.map((item) => decide(item, false, { source: 'expiry', reason: 'expired' })),
        },
        { type: 'DECIDED', at, decisions: pending.map((item) => decide(item, true, { scope: 'run' })) },
      ];
      if (pending.length > 1) events.push({ type: 'DECIDED', at, decisions: [decide(pending[0]!, true)] });
      // The sweeper's reminder: the request is replaced by its nudged copy, and the run keeps waiting.
      events.push({
        type: 'NUDGED',
        at,
        requests: [{ ...pending[0]!, history: { reminders: 1, lastRemindedAt: at, escalations: [] } }],
      });
      // A vote that does not settle a quorum request only changes that request's votes.
      if (pending.length > 0)
        events.push({
          type: 'VOTED',
          at,
          approvalId: pending[0]!.approvalId,
          votes: [{ by: 'ana', approved: true, at }],
        });
      // A request added from outside the model's turn (withApprovalRequest): only in the last turn the run may take,
      // beside one waiting call whose sibling ran, so the walk stays short (an added request doubles the paths after it).
      const [waiting, ran] = context.toolCalls;
      const fresh = pending.length === 1 && pending[0]!.history === undefined && pending[0]!.votes === undefined;
      if (
        context.turns === context.maxTurns &&
        fresh &&
        context.toolCalls.length === 2 &&
        waiting!.status === 'pending' &&
        ran!.status === 'succeeded'
      ) {
        const id = `added_${context.turns}`;
        events.push({
          type: 'REQUEST_ADDED',
          at,
          record: {
            toolCallId: id,
            toolName: 'refund',
            status: 'pending',
            approvalId: `apr_${id}`,
            attempts: 0,
            added: { args: { orderId: '1' } },
          },
          request: request(id, 'refund', `apr_${id}`),
        });
      }
      return [...events, ...common];
    }
    default:
      return [];
  }
}

/** What makes two states the same vertex of the graph: everything but clocks and versions. */
function vertexKey(snapshot: MachineSnapshotOf): string {
  const context = snapshot.context;
  return JSON.stringify({
    value: snapshot.value,
    turns: context.turns,
    messages: context.messages.length,
    pending: context.pendingApprovals.map((item) => item.approvalId),
    calls: context.toolCalls.map((record) => [record.toolCallId, record.status, record.attempts]),
    runApprovals: context.runApprovals,
    error: context.error?.code,
  });
}

const traversal = {
  input: initialContext,
  events: (snapshot: MachineSnapshotOf) => sampleEvents(snapshot),
  serializeState: (snapshot: MachineSnapshotOf) => vertexKey(snapshot),
};
const adjacency = getAdjacencyMap(agentMachine, traversal as never) as unknown as Record<
  string,
  { state: MachineSnapshotOf; transitions: Record<string, { event: AgentEvent; state: MachineSnapshotOf }> }
>;
const shortestPaths = getShortestPaths(agentMachine, traversal as never);

const statusOf: Record<MachineState, RunStatus> = {
  idle: 'running',
  callingModel: 'running',
  evaluatingTools: 'running',
  executingTools: 'running',
  awaitingApproval: 'awaitingApproval',
  completed: 'completed',
  failed: 'failed',
  cancelled: 'cancelled',
};
const terminal = new Set<MachineState>(['completed', 'failed', 'cancelled']);

function expectDeepFrozen(value: unknown, path = 'snapshot'): void {
  if (typeof value !== 'object' || value === null) return;
  if (!Object.isFrozen(value)) throw new Error(`${path} is not frozen`);
  for (const [key, item] of Object.entries(value)) expectDeepFrozen(item, `${path}.${key}`);
}

/** Invariants every snapshot keeps on its own. */
function checkSnapshot(snap: AgentSnapshot): void {
  expectDeepFrozen(snap);
  expect(snap.status).toBe(statusOf[snap.state]);
  const expectedStop =
    snap.state === 'completed'
      ? StopReason.Completed
      : snap.state === 'awaitingApproval'
        ? StopReason.AwaitingApproval
        : snap.state === 'cancelled'
          ? StopReason.Cancelled
          : snap.state === 'failed'
            ? snap.error?.code === 'max_turns'
              ? StopReason.MaxTurns
              : StopReason.Error
            : undefined;
  expect(snap.stopReason).toBe(expectedStop);
  if (snap.state === 'awaitingApproval') expect(snap.pendingApprovals.length).toBeGreaterThan(0);
  if (['callingModel', 'evaluatingTools', 'completed', 'idle'].includes(snap.state))
    expect(snap.pendingApprovals).toEqual([]);
  if (snap.state === 'callingModel' || snap.state === 'evaluatingTools')
    expect(snap.toolCalls.every((record) => record.status !== 'pending')).toBe(true);
  if (snap.state === 'callingModel') expect(snap.toolCalls).toEqual([]);
  if (snap.state === 'completed') expect(snap.output).toBe(snap.messages.at(-1)!.content);
  if (snap.state === 'failed' || snap.state === 'cancelled') expect(snap.error).toBeDefined();
  expect(snap.turns).toBeLessThanOrEqual(snap.maxTurns);
  // Every pending request belongs to a record of the turn that waits for it: its own call's, or (a sub-agent's,
  // listed with its path) the delegate call's, whose sub-agent run holds it.
  for (const item of snap.pendingApprovals) {
    const record = snap.toolCalls.find((call) =>
      item.path === undefined ? call.approvalId === item.approvalId : call.toolCallId === item.path[0]!.toolCallId,
    );
    expect(record?.status).toBe('pending');
    if (item.path !== undefined)
      expect(record!.child!.pendingApprovals.map((inner) => inner.approvalId)).toContain(item.approvalId);
  }
  // Tool results answer the calls of the assistant turn before them, in order.
  snap.messages.forEach((message, index) => {
    if (message.role !== 'assistant' || !message.toolCalls?.length) return;
    const results = snap.messages.slice(index + 1, index + 1 + message.toolCalls.length);
    if (results.length === 0 || results[0]!.role !== 'tool') return;
    expect(results.map((result) => result.toolCallId)).toEqual(message.toolCalls.map((call) => call.id));
  });
  // isDeepStrictEqual first: expect's deep equality is too slow for ten thousand paths; it only runs to explain a failure.
  const back = deserialize(serialize(snap));
  if (!isDeepStrictEqual(back, snap)) expect(back).toStrictEqual(snap);
}

function contextOf(snapshot: AgentSnapshot): RunContext {
  const { state: _state, status: _status, stopReason: _stopReason, ...context } = snapshot;
  return context;
}

/** What xstate's own pure transition makes of the same state and event: the reference `step` must match. */
function reference(snap: AgentSnapshot, event: AgentEvent): MachineSnapshotOf {
  const [next] = transition(
    agentMachine,
    agentMachine.resolveState({ value: snap.state, context: contextOf(snap) }),
    event,
  );
  return next;
}

/** `step` agrees with xstate: the same state value and the same context (the version aside, which `step` raises). */
function expectSameAsXstate(next: AgentSnapshot, expected: MachineSnapshotOf): void {
  expect(next.state).toBe(expected.value);
  const actual = { ...contextOf(next), version: expected.context.version };
  if (!isDeepStrictEqual(actual, expected.context)) expect(actual).toStrictEqual(expected.context);
}

/** Invariants between a snapshot and the next. */
function checkStep(before: AgentSnapshot, after: AgentSnapshot): void {
  expect(after.version).toBe(before.version + 1);
  expect(after.runId).toBe(before.runId);
  expect(after.createdAt).toBe(before.createdAt);
  expect(after.updatedAt).toBeGreaterThanOrEqual(before.updatedAt);
  // History and audit are append-only: the earlier entries are the very same objects.
  expect(before.messages.every((message, index) => after.messages[index] === message)).toBe(true);
  expect(before.audit.every((entry, index) => after.audit[index] === entry)).toBe(true);
  expect(after.turns - before.turns).toBeGreaterThanOrEqual(0);
  expect(after.turns - before.turns).toBeLessThanOrEqual(1);
  expect(terminal.has(before.state)).toBe(false);
}

describe('every path of the statechart', () => {
  it('the graph reaches every state, every event type and every stop reason', () => {
    const states = new Set(shortestPaths.map((path) => path.state.value as string));
    expect([...states].sort()).toEqual([
      'awaitingApproval',
      'callingModel',
      'cancelled',
      'completed',
      'evaluatingTools',
      'executingTools',
      'failed',
      'idle',
    ]);
    const events = new Set(
      Object.values(adjacency).flatMap((vertex) => Object.values(vertex.transitions).map((edge) => edge.event.type)),
    );
    expect([...events].sort()).toEqual(
      [
        'CANCEL',
        'CHILD_UPDATED',
        'DECIDED',
        'FAIL',
        'FORGET_RUN_APPROVALS',
        'MODEL_RESPONDED',
        'NUDGED',
        'REQUEST_ADDED',
        'START',
        'TOOLS_EVALUATED',
        'TOOL_FINISHED',
        'TOOL_INTERRUPTED',
        'TOOL_STARTED',
        'VOTED',
      ].sort(),
    );
    const ends = new Set(
      shortestPaths.map((path) => (path.state.value === 'failed' ? path.state.context.error?.code : path.state.value)),
    );
    for (const end of ['completed', 'awaitingApproval', 'cancelled', 'max_turns', 'boom']) expect(ends).toContain(end);
  });

  it('every simple path, replayed through step, keeps the snapshot invariants', () => {
    const start = initialSnapshot(initialContext);
    checkSnapshot(start);
    expectSameAsXstate(start, initialTransition(agentMachine, initialContext)[0]);
    const startKey = vertexKey(agentMachine.resolveState({ value: 'idle', context: initialContext }));
    expect(adjacency[startKey]).toBeDefined();
    const onPath = new Set<string>([startKey]);
    let paths = 0;
    let longest = 0;
    const walk = (key: string, snap: AgentSnapshot, depth: number) => {
      for (const edge of Object.values(adjacency[key]!.transitions)) {
        const nextKey = vertexKey(edge.state);
        if (onPath.has(nextKey)) continue;
        const frozenCopy = structuredClone(snap);
        // The sample event was made at the vertex's first visit; on this path time goes on from here.
        const at = snap.updatedAt + 1;
        const next = step(snap, { ...edge.event, at });
        expectSameAsXstate(next, reference(snap, { ...edge.event, at }));
        expect(next.updatedAt).toBe(at);
        if (!isDeepStrictEqual(snap, frozenCopy)) expect(snap).toStrictEqual(frozenCopy);
        expect(next.state).toBe(edge.state.value);
        checkStep(snap, next);
        checkSnapshot(next);
        paths++;
        longest = Math.max(longest, depth + 1);
        if (terminal.has(next.state)) {
          // An ended run takes no further event, not even CANCEL or FAIL.
          expect(() => step(next, { type: 'CANCEL', at: next.updatedAt + 1, reason: 'late' })).toThrow(
            /does not apply/,
          );
          expect(() =>
            step(next, { type: 'FAIL', at: next.updatedAt + 1, error: { code: 'x', message: 'late' } }),
          ).toThrow(/does not apply/);
        }
        onPath.add(nextKey);
        walk(nextKey, next, depth + 1);
        onPath.delete(nextKey);
      }
    };
    walk(startKey, start, 0);
    expect(paths).toBeGreaterThan(2_000);
    expect(longest).toBeGreaterThanOrEqual(10);
  });

  it('an event a state does not take is refused by step exactly where xstate leaves the state unchanged', () => {
    const pool = new Map<string, AgentEvent>();
    for (const vertex of Object.values(adjacency)) {
      for (const edge of Object.values(vertex.transitions))
        if (!pool.has(edge.event.type)) pool.set(edge.event.type, edge.event);
    }
    let refused = 0;
    for (const vertex of Object.values(adjacency)) {
      if (terminal.has(vertex.state.value as MachineState)) continue;
      const snap = initialSnapshot(vertex.state.context);
      const at = snap.updatedAt + 1;
      const placed = {
        ...snap,
        state: vertex.state.value as MachineState,
        status: statusOf[vertex.state.value as MachineState],
      };
      for (const sample of pool.values()) {
        const event = { ...sample, at } as AgentEvent;
        const [expected] = transition(agentMachine, vertex.state, event);
        if (
          expected === vertex.state ||
          (expected.value === vertex.state.value && expected.context === vertex.state.context)
        ) {
          expect(() => step(placed, event)).toThrow(/does not apply/);
          refused++;
        } else {
          expectSameAsXstate(step(placed, event), expected);
        }
      }
    }
    expect(refused).toBeGreaterThan(0);
  });

  it('a turn whose calls all need a person waits; answering some keeps it waiting', () => {
    const vertices = Object.values(adjacency).map((vertex) => vertex.state);
    expect(
      vertices.some((state) => state.value === 'awaitingApproval' && state.context.pendingApprovals.length === 2),
    ).toBe(true);
    expect(
      vertices.some(
        (state) =>
          state.value === 'awaitingApproval' &&
          state.context.pendingApprovals.length === 1 &&
          state.context.toolCalls.filter((record) => record.status === 'approved').length === 1,
      ),
    ).toBe(true);
  });
});
