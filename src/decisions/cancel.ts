import { z } from 'zod';
import { agentOfRun, agentOption } from '../agent/create-agent.js';
import type { Agent } from '../agent/agent-types.js';
import { step } from '../machine/step.js';
import type { AgentSnapshot } from '../run/agent-snapshot.js';
import { optionsObject, parseOptions } from '../options.js';

const finished = new Set(['completed', 'failed', 'cancelled']);

/**
 * Options of `cancel`.
 *
 * @example
 * const options: CancelOptions = { agent, now: Date.now() };
 * const stopped = cancel(paused, 'user closed the chat', options);
 */
export interface CancelOptions {
  /** The agent the run belongs to: if it is executing the run in this process, that execution is aborted. */
  readonly agent: Agent;
  /** When the run was cancelled, in epoch milliseconds. Default `Date.now()`. */
  readonly now?: number;
}

const cancelSchema = optionsObject({ agent: agentOption, now: z.number().finite().optional() });

/**
 * Ends a run with stop reason `cancelled`. If its agent is executing the run
 * in this process right now, its model call and running tool see their
 * `AbortSignal` fire, and that `execute` returns a cancelled snapshot too. A
 * run that has already ended is returned unchanged. `reason` defaults to
 * `'cancelled'`.
 *
 * @example
 * const stopped = cancel(paused, 'user closed the chat', { agent });
 * stopped.stopReason; // 'cancelled'
 */
export function cancel(snapshot: AgentSnapshot, reason: string | undefined, options: CancelOptions): AgentSnapshot {
  const agent = agentOfRun(snapshot, (options as CancelOptions | undefined)?.agent, 'cancel');
  parseOptions(cancelSchema, options, 'cancel');
  agent.settings.inflight.abort(snapshot.runId, reason ?? 'cancelled');
  if (finished.has(snapshot.status)) return snapshot;
  return step(snapshot, { type: 'CANCEL', at: options.now ?? Date.now(), reason: reason ?? 'cancelled' });
}
