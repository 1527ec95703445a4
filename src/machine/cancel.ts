import { inflightRuns } from './inflight.js';
import { step } from './step.js';
import type { AgentSnapshot } from './types.js';

const finished = new Set(['completed', 'failed', 'cancelled']);

/**
 * Ends a run with stop reason `cancelled`. If this process is executing the
 * run right now, its model call and running tool see their `AbortSignal`
 * fire, and that `execute` returns a cancelled snapshot too. A run that has
 * already ended is returned unchanged.
 *
 * @example
 * const stopped = cancel(paused, 'user closed the chat');
 * stopped.stopReason; // 'cancelled'
 */
export function cancel(snapshot: AgentSnapshot, reason = 'cancelled', options: { now?: number } = {}): AgentSnapshot {
  inflightRuns.abort(snapshot.runId, reason);
  if (finished.has(snapshot.status)) return snapshot;
  return step(snapshot, { type: 'CANCEL', at: options.now ?? Date.now(), reason });
}
