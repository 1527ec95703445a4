// `runtime.cancel`: the run cancelled with the ledger's compare-and-set, then told to whatever executes it elsewhere.
import type { Agent } from '../agent/agent-types.js';
import type { AgentSnapshot } from '../run/agent-snapshot.js';
import { cancel as cancelSnapshot } from '../decisions/cancel.js';
import type { Ledger } from './ledger.js';

export interface CancelSettings {
  readonly ledger: Ledger;
  readonly clock: () => number;
  agentNamed(name: string): Agent;
}

export function cancelOperation({ ledger, clock, agentNamed }: CancelSettings) {
  return async function cancel(runId: string, reason = 'cancelled'): Promise<AgentSnapshot> {
    const { next } = await ledger.update(runId, (current) => {
      const cancelled = cancelSnapshot(current, reason, { agent: agentNamed(current.agentName), now: clock() });
      return cancelled === current ? { unchanged: undefined } : { next: cancelled, result: undefined };
    });
    // Told again on a repeat, so a caller whose first notice failed after the commit can simply cancel again.
    if (next.status === 'cancelled')
      await ledger.store.cancels?.publish({ runId, reason: next.error?.message ?? reason });
    return next;
  };
}
