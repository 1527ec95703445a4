import { CountersignError } from '../errors.js';
import { agentMachine, effectNames, type AgentEvent, type EffectName } from './agent-machine.js';
import type { RunContext } from '../run/types.js';
import { compileMachine } from './compile-machine.js';
import { drafting } from '../run/derived-array.js';
import { deepFreeze, freezeAdded } from '../run/freeze.js';
import { StopReason, type RunStatus } from '../run/types.js';
import type { AgentSnapshot, MachineState } from '../run/agent-snapshot.js';

/**
 * The snapshot for a state value and context, deeply frozen. Given the
 * snapshot it follows, only what the step added is visited: the history,
 * audit and records it kept are frozen already.
 */
function toSnapshot(
  state: MachineState,
  context: RunContext,
  version: number,
  previous?: AgentSnapshot,
): AgentSnapshot {
  const stopReason = stopReasonOf(state, context);
  const status = statusOf(state);
  // Object.assign, not a spread followed by new keys: on Node 20 that costs about ten times as much here.
  const snapshot: AgentSnapshot = Object.assign(
    {},
    context,
    stopReason === undefined ? { state, status, version } : { state, status, stopReason, version },
  );
  // A snapshot handed in unfrozen (built by hand, not by a step) shares nothing that can be trusted frozen.
  if (!previous || !Object.isFrozen(previous)) return deepFreeze(snapshot);
  const fields = snapshot as unknown as Record<string, unknown>;
  const before = previous as unknown as Record<string, unknown>;
  for (const key in fields) {
    const value = fields[key];
    if (value !== before[key]) freezeAdded(value);
  }
  return Object.freeze(snapshot);
}

const runStatuses: readonly string[] = [
  'running',
  'awaitingApproval',
  'completed',
  'failed',
  'cancelled',
] satisfies readonly RunStatus[];
const stopReasons: readonly string[] = Object.values(StopReason);

function statusOf(state: MachineState): RunStatus {
  return byState.get(state)!.status;
}

/** A final state's output, else the stop reason its tags name (a state the run waits in), else none. */
function stopReasonOf(state: MachineState, context: RunContext): StopReason | undefined {
  return compiled.isFinal(state) ? (compiled.outputOf(state, context) as StopReason) : byState.get(state)!.stopReason;
}

function contextOf(snapshot: AgentSnapshot): RunContext {
  const { state: _state, status: _status, stopReason: _stopReason, ...context } = snapshot;
  return context;
}

/**
 * The machine compiled into a transition table from its own states, guards
 * and assign actions (see compileMachine): what xstate's pure `transition`
 * computes, without building and resolving an xstate snapshot at each step.
 * test/core/statechart-paths.test.ts walks every path through both.
 */
const compiled = compileMachine<RunContext, AgentEvent>(agentMachine);

/**
 * Each state's run status and (for a state the run waits in) stop reason, read once from the states' tags,
 * and the effect `execute` carries out there, read once from the states' meta.
 */
const byState = new Map(
  compiled.states.map((state) => {
    const tags = compiled.tagsOf(state);
    const status = tags.find((tag) => runStatuses.includes(tag)) as RunStatus | undefined;
    if (status === undefined) throw new Error(`agentMachine: state ${state} has no run status tag`);
    const effect = (compiled.metaOf(state) as { effect?: unknown } | undefined)?.effect;
    if (effect !== undefined && !effectNames.includes(effect as EffectName))
      throw new Error(`agentMachine: state ${state} names the unknown effect ${String(effect)}`);
    return [
      state,
      {
        status,
        stopReason: tags.find((tag) => stopReasons.includes(tag)) as StopReason | undefined,
        effect: effect as EffectName | undefined,
      },
    ] as const;
  }),
);

/** The effect `execute` carries out in a state (its `meta.effect`); undefined where there is none. */
export function effectOf(state: MachineState): EffectName | undefined {
  return byState.get(state)!.effect;
}

/** A new run's snapshot, in `idle`. */
export function initialSnapshot(context: RunContext): AgentSnapshot {
  const start = compiled.initial(context);
  return toSnapshot(start.value as MachineState, start.context, context.version);
}

/**
 * Advances a snapshot by one event through the machine's transitions.
 * Returns a new frozen snapshot with the version raised; the input is untouched.
 */
export function step(snapshot: AgentSnapshot, event: AgentEvent): AgentSnapshot {
  return stepAll(snapshot, [event]);
}

/**
 * Advances a snapshot by several events in turn, as that many `step`s would
 * (the version raised once per event), building and freezing only the last
 * snapshot: the ones in between are never seen, so a turn's records are
 * copied once (derived-array.ts `drafting`).
 */
export function stepAll(snapshot: AgentSnapshot, events: readonly AgentEvent[]): AgentSnapshot {
  return events.length > 1 ? drafting(applyAll, snapshot, events) : applyAll(snapshot, events);
}

function applyAll(snapshot: AgentSnapshot, events: readonly AgentEvent[]): AgentSnapshot {
  let value: string = snapshot.state;
  let context = contextOf(snapshot);
  for (const event of events) {
    // An ended run must stay ended (xstate's pure transition would still take the root's CANCEL or FAIL in a final state).
    if (compiled.isFinal(value)) {
      throw new CountersignError(
        'invalid_transition',
        `Event ${event.type} does not apply: run ${snapshot.runId} has ended (${value}).`,
        { fault: 'library' },
      );
    }
    const next = compiled.transition(value, context, event);
    if (!next) {
      throw new CountersignError(
        'invalid_transition',
        `Event ${event.type} does not apply in state ${value} (run ${snapshot.runId}).`,
        { fault: 'library' },
      );
    }
    ({ value, context } = next);
  }
  return toSnapshot(value as MachineState, context, snapshot.version + events.length, snapshot);
}
