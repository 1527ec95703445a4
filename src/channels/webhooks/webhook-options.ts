// The options of createWebhookNotifier and their schema: where to send, how to sign, which events, and the
// delivery kit's options (tries, backoff, timeout, concurrency) read with the same checks as every channel's.
import type { KeyObject } from 'node:crypto';
import { z } from 'zod';
import {
  deliveryOptionsShape,
  isWebhookSigningKey,
  type DeliveryOptions,
  functionSchema,
  httpUrlSchema,
  optionsObject,
} from '../../kit/index.js';
import type { WebhookDeadLetter } from './dead-letters.js';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from './webhook-events.js';

/**
 * Options of `createWebhookNotifier`; only `url` and `secret` are required.
 * Delivery is a channel's (`DeliveryOptions`) with two defaults of its own:
 * `maxAttempts` 8 and `maxBackoffMs` 300,000 (5 min). `clock` also stamps
 * the `webhook-timestamp` header and the body's `timestamp`.
 *
 * @example
 * const options: WebhookNotifierOptions = { url: 'https://bot.example.com/hooks', secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', maxAttempts: 5 };
 */
export interface WebhookNotifierOptions extends DeliveryOptions {
  /** Where to POST; `http:` or `https:`. */
  readonly url: string;
  /**
   * A Standard Webhooks secret (`whsec_` then 24 to 64 bytes in base64), or
   * several while the receiver rotates keys: each delivery then carries one
   * `v1,` signature per secret.
   */
  readonly secret: string | readonly string[];
  /**
   * An Ed25519 private key (`generateKeyPairSync('ed25519')`): each delivery also carries Standard Webhooks'
   * asymmetric signature (`v1a,`), which a receiver checks with the public key alone (`webhookPublicKey(key)`, a
   * `whpk_` key), so nothing it holds can sign a delivery. The `v1,` signatures of `secret` are sent beside it.
   */
  readonly signingKey?: KeyObject;
  /**
   * Which events to send. Default `['approval.requested', 'approval.reminder', 'approval.escalated', 'approval.voted',
   * 'approval.resolved']` (reminders, escalations and votes happen only where a tool or rule sets `remindAfterMs`,
   * `escalate` or `approvals`); `tool.finished` and the `run.*` events only when listed.
   */
  readonly events?: readonly WebhookEventType[];
  /** How many dead letters `deadLetters()` keeps, the oldest dropped first; `onDeadLetter` sees all of them. Default 1000. */
  readonly deadLetters?: number;
  /** Told of every delivery that failed its last try, e.g. to persist it; may return a promise (`flush()` waits for it). */
  readonly onDeadLetter?: (entry: WebhookDeadLetter) => void | Promise<void>;
  /** Failures of `onDeadLetter` itself, which have nowhere else to go. */
  readonly onError?: (
    error: unknown,
    context: { readonly operation: 'dead-letter'; readonly webhookId: string },
  ) => void;
}

const SECRET_HINT = ' Use the whsec_ secret your receiver was given (whsec_ then 24 to 64 bytes in base64).';

const secretSchema = z
  .string('must be a string')
  .refine((value) => /^whsec_[A-Za-z0-9+/]+={0,2}$/.test(value), {
    message: `must be a whsec_ secret.${SECRET_HINT}`,
    abort: true,
  })
  .refine((value) => {
    const bytes = Buffer.from(value.slice('whsec_'.length), 'base64').length;
    return bytes >= 24 && bytes <= 64;
  }, `must hold 24 to 64 bytes of key after whsec_.${SECRET_HINT}`);

// An option misspelt (maxAttempt) is refused, not ignored without a word.
export const webhookOptionsSchema = optionsObject({
  url: httpUrlSchema({
    example: 'https://hooks.example.com/countersign',
    credential: 'secret (every delivery is signed with it)',
  }),
  secret: z.union(
    [secretSchema, z.array(secretSchema).min(1, 'is an empty list; pass at least one whsec_ secret')],
    `must be a whsec_ secret or a list of them.${SECRET_HINT}`,
  ),
  signingKey: z
    .custom<KeyObject>(isWebhookSigningKey, "must be an Ed25519 private KeyObject (generateKeyPairSync('ed25519'))")
    .optional(),
  events: z
    .array(z.enum(WEBHOOK_EVENT_TYPES, `must be one of ${WEBHOOK_EVENT_TYPES.join(', ')}`))
    .min(1, 'is empty; leave it out to send approval.requested and approval.resolved')
    .optional(),
  ...deliveryOptionsShape,
  deadLetters: z.number().int('must be a whole number').min(0).optional(),
  onDeadLetter: functionSchema().optional(),
  onError: functionSchema().optional(),
});
