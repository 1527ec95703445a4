// A runtime listens for cancels from other processes only while it executes runs: the first execution starts
// listening (and waits until it is, so no cancel committed after the run was loaded goes unheard), the last stops.
import type { Agent } from '../agent/agent-types.js';
import type { SnapshotStore } from '../ports/snapshot-store.js';

/**
 * Runs `body` (an execution) while listening on the store's `cancels`: a notice fires the signals of that run where it
 * executes here, and after notices may have been missed (a reconnect) each run executing here is read again and
 * aborted if the store has it cancelled. Without `cancels`, just runs `body`.
 */
export function cancelWatch(
  store: SnapshotStore,
  agents: ReadonlyMap<string, Agent>,
  report: (error: unknown, operation: string, runId?: string) => void,
) {
  const cancels = store.cancels;
  const reportError = (error: unknown) => report(error, 'cancel');
  const abort = ({ runId, reason }: { readonly runId: string; readonly reason: string }) => {
    for (const agent of agents.values()) agent.settings.inflight.abort(runId, reason);
  };
  const recheck = () => {
    const runIds = new Set([...agents.values()].flatMap((agent) => [...agent.settings.inflight.runIds()]));
    for (const runId of runIds) {
      store.load(runId).then(
        (stored) => {
          if (stored?.status === 'cancelled') abort({ runId, reason: stored.error?.message ?? 'cancelled' });
        },
        (error: unknown) => report(error, 'cancel', runId),
      );
    }
  };
  let executing = 0;
  let listening: Promise<() => void> | undefined;
  return async function whileListening<T>(body: () => Promise<T>): Promise<T> {
    if (cancels === undefined) return body();
    executing++;
    try {
      listening ??= cancels.listen(abort, recheck);
      try {
        await listening;
      } catch (error) {
        // Not listening only means a cancel from elsewhere is not heard early: the run goes on, and its commits still
        // refuse to land over a cancelled run.
        listening = undefined;
        reportError(error);
      }
      return await body();
    } finally {
      if (--executing === 0 && listening !== undefined) {
        const stop = listening;
        listening = undefined;
        stop.then((unlisten) => unlisten(), reportError);
      }
    }
  };
}
