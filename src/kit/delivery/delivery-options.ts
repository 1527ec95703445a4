// The delivery options every notifier that sends over HTTP takes (tries, backoff, timeout, concurrency and the
// injectable fetch, clock, sleep and random of tests), their schema, and the settings they make with defaults.
import { z } from 'zod';
import { functionSchema } from '../../run/function-schema.js';
import type { RetryPolicy } from './retry.js';

/**
 * How a notifier delivers: tries, backoff, timeout, concurrency, and what
 * tests inject. The defaults named here are every channel notifier's; the
 * webhook notifier states its own where they differ.
 *
 * @example
 * const delivery: DeliveryOptions = { maxAttempts: 3, timeoutMs: 5_000, sleep: async () => {} };
 */
export interface DeliveryOptions {
  /** Tries per message, the first included. Default 5. */
  readonly maxAttempts?: number;
  /** Wait before the second try; doubled for each next one, then 50 to 100 % of it is waited (jitter). Default 1,000 ms. */
  readonly backoffMs?: number;
  /** Longest wait between tries, also the cap on a service's `Retry-After`. Default 30,000 ms. */
  readonly maxBackoffMs?: number;
  /** One try is abandoned (and counts as failed) after this long. Default 10,000 ms. */
  readonly timeoutMs?: number;
  /** How many runs' messages are on the wire at once (one waiting between tries holds no slot); one run's always go in order, one at a time. Default 8. */
  readonly concurrency?: number;
  /** Default `globalThis.fetch`. */
  readonly fetch?: typeof fetch;
  /** Epoch milliseconds. Default `Date.now`. */
  readonly clock?: () => number;
  /** Waits between tries; inject one that returns at once in tests. Default `setTimeout`. */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Numbers in [0, 1) for the jitter. Default `Math.random`. */
  readonly random?: () => number;
}

/** For a notifier's `optionsObject({ ...deliveryOptionsShape, ...its own })`. */
export const deliveryOptionsShape = {
  maxAttempts: z.number().int('must be a whole number').min(1).max(100).optional(),
  backoffMs: z.number().int('must be a whole number').min(0).max(86_400_000).optional(),
  maxBackoffMs: z.number().int('must be a whole number').min(0).max(86_400_000).optional(),
  sleep: functionSchema().optional(),
  random: functionSchema().optional(),
  timeoutMs: z.number().int('must be a whole number').min(1).max(600_000).optional(),
  concurrency: z.number().int('must be a whole number').min(1).max(1000).optional(),
  fetch: functionSchema().optional(),
  clock: functionSchema().optional(),
};

/** Checked delivery options with the defaults filled in. */
export interface DeliverySettings {
  readonly retry: RetryPolicy;
  readonly timeoutMs: number;
  readonly concurrency: number;
  readonly fetch: typeof fetch;
  readonly clock: () => number;
}

/** `options` with every default filled in; `defaults` for a notifier whose tries and cap differ from a channel's. */
export function deliverySettings(
  options: DeliveryOptions,
  defaults: { readonly maxAttempts: number; readonly maxBackoffMs: number } = { maxAttempts: 5, maxBackoffMs: 30_000 },
): DeliverySettings {
  return {
    retry: {
      maxAttempts: options.maxAttempts ?? defaults.maxAttempts,
      backoffMs: options.backoffMs ?? 1000,
      maxBackoffMs: options.maxBackoffMs ?? defaults.maxBackoffMs,
      ...(options.sleep === undefined ? {} : { sleep: options.sleep }),
      ...(options.random === undefined ? {} : { random: options.random }),
    },
    timeoutMs: options.timeoutMs ?? 10_000,
    concurrency: options.concurrency ?? 8,
    fetch: options.fetch ?? globalThis.fetch,
    clock: options.clock ?? Date.now,
  };
}
