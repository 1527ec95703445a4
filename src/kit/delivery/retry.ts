import { DeliveryError } from '../../errors.js';
import type { LaneSlot } from './delivery-queue.js';

/**
 * How a delivery is retried: tries, exponential backoff with jitter, and the
 * cap on waiting (also on a service's own `Retry-After`).
 *
 * @example
 * const policy: RetryPolicy = { maxAttempts: 5, backoffMs: 500, maxBackoffMs: 30_000 };
 */
export interface RetryPolicy {
  /** Tries, the first included. */
  readonly maxAttempts: number;
  /** Wait before the second try; doubled for each next one, then 50 to 100 % of it is waited (jitter). */
  readonly backoffMs: number;
  /** Longest wait between tries, also the cap on a service's `Retry-After`. */
  readonly maxBackoffMs: number;
  /** Waits between tries. Default `setTimeout`. */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Numbers in [0, 1) for the jitter. Default `Math.random`. */
  readonly random?: () => number;
}

/** Resolves after `ms`; rejects with `signal.reason` as soon as `signal` aborts. */
export function wait(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const aborted = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', aborted);
      resolve();
    }, ms);
    signal?.addEventListener('abort', aborted, { once: true });
  });
}

/** The wait before try `next` (2 for the second try): a service's own ask, else jittered exponential backoff; capped. */
export function retryDelay(next: number, policy: RetryPolicy, asked?: number): number {
  if (asked !== undefined) return Math.min(asked, policy.maxBackoffMs);
  const full = Math.min(policy.backoffMs * 2 ** (next - 2), policy.maxBackoffMs);
  return Math.round(full * (0.5 + 0.5 * (policy.random ?? Math.random)()));
}

/**
 * Runs `attempt` until it resolves, a failure is not a retryable
 * `DeliveryError`, or `maxAttempts` tries were made; throws the last error.
 * `attempt` is told which try it is (1 for the first).
 *
 * @example
 * const answer = await withRetries((tryNumber) => sendJson(fetch, url, { body }), { maxAttempts: 3, backoffMs: 1000, maxBackoffMs: 30_000 });
 */
export async function withRetries<T>(attempt: (tryNumber: number) => Promise<T>, policy: RetryPolicy): Promise<T> {
  const sleep = policy.sleep ?? wait;
  for (let tries = 1; ; tries++) {
    try {
      return await attempt(tries);
    } catch (error) {
      if (!(error instanceof DeliveryError) || !error.retryable || tries >= policy.maxAttempts) throw error;
      await sleep(retryDelay(tries + 1, policy, error.retryAfterMs));
    }
  }
}

/** `policy` for work in a queue lane: waiting between tries frees the lane's concurrency slot. */
export function freeingSlot(policy: RetryPolicy, slot: LaneSlot): RetryPolicy {
  const sleep = policy.sleep ?? wait;
  return { ...policy, sleep: (ms) => slot.idle(() => sleep(ms)) };
}
