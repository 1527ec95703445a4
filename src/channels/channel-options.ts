// The options every channel notifier takes, read in one place: a runtime with links, how long buttons work,
// where failures go, and the delivery kit's options (tries, backoff, concurrency, timeout, injectables).
import { z } from 'zod';
import type { LinkedRuntime } from '../index.js';
import {
  deliveryOptionsShape,
  deliverySettings,
  type DeliveryOptions,
  type DeliverySettings,
  functionSchema,
} from '../kit/index.js';
import type { ChannelErrorContext, ChannelNotifierSettings } from './channel-notifier.js';

/**
 * The options every channel notifier shares: its own, and how it delivers
 * (`maxAttempts`, `backoffMs`, `maxBackoffMs`, `timeoutMs`, `concurrency`,
 * `fetch`, `clock`, `sleep`, `random`).
 *
 * @example
 * const common: ChannelOptions = { runtime, linkTtlMs: 3_600_000, maxAttempts: 5, onError: (error, context) => log.warn({ err: error, ...context }) };
 */
export interface ChannelOptions extends DeliveryOptions {
  /** Mints the buttons' tokens: a runtime made with `createRuntime({ links: { secret } })`. */
  readonly runtime: LinkedRuntime;
  /** How long the buttons work (never past the approval's own expiry). Default 24 h. */
  readonly linkTtlMs?: number;
  /** Failures, which never reach the run; their messages hold no secret and no URL (only its host). */
  readonly onError?: (error: unknown, context: ChannelErrorContext) => void;
}

/** @internal the check of `runtime` in a channel's options, shared by the channels' option parsers. */
export const linkedRuntimeSchema = z.custom<LinkedRuntime>(
  (value) => typeof (value as LinkedRuntime | undefined)?.linkTokens === 'function',
  'must be a runtime made with createRuntime({ agents, links })',
);

/**
 * For a channel's `optionsObject({ ...channelOptionsShape, ...its own })`.
 * @internal the zod shape behind `ChannelOptions`, shared by our channels' option parsers.
 */
export const channelOptionsShape = {
  runtime: linkedRuntimeSchema,
  linkTtlMs: z.number().int().positive().optional(),
  onError: functionSchema().optional(),
  ...deliveryOptionsShape,
};

/** The notifier settings and transport of checked channel options, defaults filled in. */
export function channelSettings(options: ChannelOptions): ChannelNotifierSettings & DeliverySettings {
  return {
    ...deliverySettings(options),
    runtime: options.runtime,
    linkTtlMs: options.linkTtlMs ?? 86_400_000,
    ...(options.onError === undefined ? {} : { onError: options.onError }),
  };
}
