// A wait for a run to change: woken by this process's next event of the run, after a time, or when a signal aborts.
import type { RunEvent } from '../run/run-events.js';

/** Resolves on this process's next event of `runId`, after `ms`, or when `signal` aborts. */
export function nextRunEvent(
  runs: { subscribe(listener: (event: RunEvent) => void): () => void },
  runId: string,
  ms: number,
  signal?: AbortSignal,
): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      stop();
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const stop = runs.subscribe((event) => event.runId === runId && done());
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
