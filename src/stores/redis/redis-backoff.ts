import { retryDelay, type RetryPolicy } from '../../kit/index.js';

/** How a reader waits while Redis fails: 100 ms, doubling up to 5 s, jittered so instances do not retry in step; it never gives up. */
const REDIS_BACKOFF: RetryPolicy = { maxAttempts: Number.POSITIVE_INFINITY, backoffMs: 100, maxBackoffMs: 5_000 };

/** The wait after `failures` failures in a row (0 for the first), until `signal` aborts. */
export function backOff(failures: number, signal: AbortSignal): Promise<void> {
  return abortable(retryDelay(failures + 2, REDIS_BACKOFF), signal);
}

function abortable(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
