import { createActor, initialTransition, type AnyActorScope } from 'xstate';
import { CountersignError } from '../errors.js';
import { agentMachine, type AgentEvent, type RunContext } from './agent-machine.js';
import { deepFreeze } from './freeze.js';
import { StopReason, type AgentSnapshot, type MachineState, type RunStatus } from './types.js';

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

function stopReasonOf(state: MachineState, context: RunContext): StopReason | undefined {
  switch (state) {
    case 'completed':
      return StopReason.Completed;
    case 'awaitingApproval':
      return StopReason.AwaitingApproval;
    case 'cancelled':
      return StopReason.Cancelled;
    case 'failed':
      return context.error?.code === 'max_turns' ? StopReason.MaxTurns : StopReason.Error;
    default:
      return undefined;
  }
}

function toSnapshot(state: MachineState, context: RunContext, version: number): AgentSnapshot {
  const stopReason = stopReasonOf(state, context);
  const snapshot: AgentSnapshot = {
    ...context,
    state,
    status: statusOf[state],
    ...(stopReason === undefined ? {} : { stopReason }),
    version,
  };
  return deepFreeze(snapshot);
}

function contextOf(snapshot: AgentSnapshot): RunContext {
  const { state: _state, status: _status, stopReason: _stopReason, ...context } = snapshot;
  return context;
}

/** A new run's snapshot, in `idle`. */
export function initialSnapshot(context: RunContext): AgentSnapshot {
  const [machineSnapshot] = initialTransition(agentMachine, context);
  return toSnapshot(machineSnapshot.value as MachineState, machineSnapshot.context, context.version);
}

/**
 * The actor scope `transition` needs. xstate's `transition()` builds a new
 * actor for it on every call (about a fifth of a step's cost); this machine
 * only assigns context (no spawned children, no emitted or deferred
 * actions), so one inert scope serves every step and the step stays pure:
 * it is exactly what `transition()` does, minus the throwaway actor.
 */
let inertScope: AnyActorScope | undefined;
function scope(): AnyActorScope {
  if (!inertScope) {
    const self = createActor(agentMachine, { input: {} as RunContext });
    inertScope = { self, defer: () => {}, id: '', logger: () => {}, sessionId: '', stopChild: () => {}, system: self.system, emit: () => {}, actionExecutor: () => {} } as AnyActorScope;
  }
  return inertScope;
}

/**
 * Advances a snapshot by one event through xstate's pure transition. Returns
 * a new frozen snapshot with the version raised; the input is untouched.
 */
export function step(snapshot: AgentSnapshot, event: AgentEvent): AgentSnapshot {
  const current = agentMachine.resolveState({ value: snapshot.state, context: contextOf(snapshot) });
  // xstate's pure transition still takes root-level events (CANCEL, FAIL) in a final state; an ended run must stay ended.
  if (current.status === 'done') {
    throw new CountersignError(
      'invalid_transition',
      `Event ${event.type} does not apply: run ${snapshot.runId} has ended (${snapshot.state}).`,
      { fault: 'library' },
    );
  }
  const next = agentMachine.transition(current, event, scope());
  if (next.value === current.value && next.context === current.context) {
    throw new CountersignError(
      'invalid_transition',
      `Event ${event.type} does not apply in state ${snapshot.state} (run ${snapshot.runId}).`,
      { fault: 'library' },
    );
  }
  return toSnapshot(next.value as MachineState, next.context, snapshot.version + 1);
}
