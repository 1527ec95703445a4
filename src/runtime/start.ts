// `runtime.start`: a new run recorded before anything runs, idempotent by its run id (given, or derived from an
// idempotency key), then carried on as the mode says.
import { ConfigError, RunExistsError, VersionConflictError } from '../errors.js';
import type { Agent } from '../agent/agent-types.js';
import type { AgentSnapshot } from '../run/agent-snapshot.js';
import { startedRun } from '../loop/new-run.js';
import type { ExecuteInput } from '../loop/execute-input.js';
import type { Carrier } from './carry-on.js';
import { idempotencyKeySchema, runIdForKey, sameStart } from './idempotent-start.js';
import type { Ledger } from './ledger.js';
import { parseArgument } from './parse-argument.js';
import type { StartOptions } from './runtime.js';

/** The start's input with the run id its idempotency key stands for. */
function keyed(input: ExecuteInput, key: string | undefined): ExecuteInput {
  if (key === undefined) return input;
  parseArgument(idempotencyKeySchema, key, 'start: idempotencyKey');
  if (input.runId !== undefined) {
    throw new ConfigError(
      'start: pass a runId or an idempotencyKey, not both; the run id is what makes a start idempotent, and a key stands for one when you have none.',
    );
  }
  return { ...input, runId: runIdForKey(key) };
}

export interface StartSettings {
  readonly ledger: Ledger;
  readonly carrier: Carrier;
  agentNamed(name: string): Agent;
}

export function startOperation({ ledger, carrier, agentNamed }: StartSettings) {
  return async function start(
    agentName: string,
    input: ExecuteInput,
    startOptions: StartOptions = {},
  ): Promise<AgentSnapshot> {
    const mode = carrier.modeOf(startOptions.mode, 'start');
    const agent = agentNamed(agentName);
    carrier.queueFor(mode, 'start');
    const named = keyed(input, startOptions.idempotencyKey);
    // Recorded before anything runs, so a caller told "started" can count on the run existing.
    const created = startedRun(agent, named);
    try {
      await ledger.commit(created, undefined);
    } catch (error) {
      if (!(error instanceof VersionConflictError) || named.runId === undefined) throw error;
      // The run id is taken: by an earlier attempt of this very start (its answer failed or was lost), or by another.
      const existing = await ledger.store.load(created.runId);
      if (existing === undefined) throw error;
      if (!sameStart(existing, created)) throw new RunExistsError(created.runId);
      return carrier.carryOnRepeat(existing, mode);
    }
    return carrier.carryOn(created, mode);
  };
}
