// The options every channel notifier takes, read in one place: a runtime with links, how long buttons work,
// delivery (tries, backoff, concurrency, timeout) and the injectable clock, fetch, sleep and random of tests.
import { z } from 'zod';
import { retryOptionsShape } from '../delivery/retry.js';
import { functionSchema } from '../machine/function-schema.js';
import type { LinkedRuntime } from '../runtime/runtime.js';
import type { ChannelErrorContext, ChannelNotifierSettings } from './channel-notifier.js';

/**
 * The options every channel notifier shares.
 *
 * @example
 * const common: ChannelOptions = { runtime, linkTtlMs: 3_600_000, maxAttempts: 5, onError: (error, context) => log.warn({ err: error, ...context }) };
 */
export interface ChannelOptions {
  /** Mints the buttons' tokens: a runtime made with `createRuntime({ links: { secret } })`. */
  readonly runtime: LinkedRuntime;
  /** How long the buttons work (never past the approval's own expiry). Default 24 h. */
  readonly linkTtlMs?: number;
  /** Tries per message, the first included. Default 5. */
  readonly maxAttempts?: number;
  /** Wait before the second try, doubled for each next one, with jitter. Default 1,000 ms. */
  readonly backoffMs?: number;
  /** Longest wait between tries, also the cap on a service's `Retry-After`. Default 30,000 ms. */
  readonly maxBackoffMs?: number;
  /** One try is abandoned after this long. Default 10,000 ms. */
  readonly timeoutMs?: number;
  /** Runs whose messages are sent at once; one run's messages always go in order. Default 8. */
  readonly concurrency?: number;
  /** Default `globalThis.fetch`. */
  readonly fetch?: typeof fetch;
  /** Epoch milliseconds. Default `Date.now`. */
  readonly clock?: () => number;
  /** Waits between tries; inject one that returns at once in tests. Default `setTimeout`. */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Numbers in [0, 1) for the jitter. Default `Math.random`. */
  readonly random?: () => number;
  /** Failures, which never reach the run; their messages hold no secret and no URL (only its host). */
  readonly onError?: (error: unknown, context: ChannelErrorContext) => void;
}

export const linkedRuntimeSchema = z.custom<LinkedRuntime>(
  (value) => typeof (value as LinkedRuntime | undefined)?.linkTokens === 'function',
  'must be a runtime made with createRuntime({ agents, links })',
);

/** For a channel's `optionsObject({ ...channelOptionsShape, ...its own })`. */
export const channelOptionsShape = {
  runtime: linkedRuntimeSchema,
  linkTtlMs: z.number().int().positive().optional(),
  timeoutMs: z.number().int('must be a whole number').min(1).max(600_000).optional(),
  concurrency: z.number().int('must be a whole number').min(1).max(1000).optional(),
  fetch: functionSchema().optional(),
  clock: functionSchema().optional(),
  onError: functionSchema().optional(),
  ...retryOptionsShape,
};

/** The notifier settings and transport of checked channel options, defaults filled in. */
export function channelSettings(options: ChannelOptions): ChannelNotifierSettings & { readonly fetch: typeof fetch; readonly timeoutMs: number } {
  return {
    runtime: options.runtime,
    linkTtlMs: options.linkTtlMs ?? 86_400_000,
    retry: {
      maxAttempts: options.maxAttempts ?? 5,
      backoffMs: options.backoffMs ?? 1000,
      maxBackoffMs: options.maxBackoffMs ?? 30_000,
      ...(options.sleep === undefined ? {} : { sleep: options.sleep }),
      ...(options.random === undefined ? {} : { random: options.random }),
    },
    concurrency: options.concurrency ?? 8,
    clock: options.clock ?? Date.now,
    fetch: options.fetch ?? globalThis.fetch,
    timeoutMs: options.timeoutMs ?? 10_000,
    ...(options.onError === undefined ? {} : { onError: options.onError }),
  };
}
