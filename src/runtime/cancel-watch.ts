// A runtime listens for cancels from other processes only while it executes runs: the first execution starts
// listening (and waits until it is, so no cancel committed after the run was loaded goes unheard), the last stops.
import type { CancelNotice, CancelSignal } from '../ports/cancel-signal.js';

/**
 * Runs `body` (an execution) while listening on `cancels`, telling `abort` of each notice, and calling `recheck` when
 * notices may have been missed; without `cancels`, just runs it.
 */
export function cancelWatch(cancels: CancelSignal | undefined, abort: (notice: CancelNotice) => void, recheck: () => void, reportError: (error: unknown) => void) {
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
