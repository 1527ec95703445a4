import type { StateValueFrom } from 'xstate';
import type { agentMachine } from '../machine/agent-machine.js';
import type { RunContext, RunStatus, StopReason } from './types.js';

/** The statechart's states, as stored in a snapshot: read from the machine, not written out again. */
export type MachineState = StateValueFrom<typeof agentMachine>;

/**
 * An immutable, serializable picture of a run. Every function that "changes"
 * a snapshot returns a new, deeply frozen one.
 */
export interface AgentSnapshot extends RunContext {
  readonly state: MachineState;
  readonly status: RunStatus;
  readonly stopReason?: StopReason;
}
