// The webhook channel: run events POSTed to one URL as signed Standard Webhooks, through the delivery kit
// (per-run order, concurrency, retries with backoff and Retry-After), with dead letters for what never arrived.
import type { RunEvent, Notifier } from '../../index.js';
import {
  createDeliveryQueue,
  type LaneSlot,
  DeliveryError,
  deliverySettings,
  freeingSlot,
  withRetries,
  sendJson,
  publicText,
  parseOptions,
  signWebhook,
  webhookAsymmetricSignature,
  webhookSignature,
} from '../../kit/index.js';
import type { KeyObject } from 'node:crypto';
import { createDeadLetters, type WebhookDeadLetter } from './dead-letters.js';
import { toWebhookEvent, webhookIdOf, type WebhookEvent, type WebhookEventType } from './webhook-events.js';
import { webhookOptionsSchema, type WebhookNotifierOptions } from './webhook-options.js';

/**
 * A `Notifier` that POSTs signed events to one URL, retrying in the background.
 *
 * @example
 * const notifier: WebhookNotifier = createWebhookNotifier({ url, secret });
 * await notifier.flush(); // before the process exits
 */
export interface WebhookNotifier extends Notifier {
  /** Queues the events this notifier sends and returns at once; deliveries go on in the background. */
  publish(events: readonly RunEvent[]): Promise<void>;
  /** Resolves once every queued delivery has been delivered or dead-lettered (tests, graceful shutdown). */
  flush(): Promise<void>;
  /** The most recent dead letters, oldest first. */
  deadLetters(): readonly WebhookDeadLetter[];
  /** Queues a dead letter again, with its original `webhook-id` and body, and removes it from `deadLetters()`. */
  redeliver(entry: WebhookDeadLetter): void;
}

interface Delivery {
  readonly webhookId: string;
  readonly event: WebhookEvent;
  readonly body: string;
}

/** `text` without any of `secrets`, nor the key inside a `whsec_` one: a receiver's error body may echo them. */
function withoutSecrets(text: string, secrets: readonly string[]): string {
  const needles = secrets
    .flatMap((secret) => [secret, secret.slice('whsec_'.length)])
    .filter((needle) => needle.length >= 8);
  return needles.reduce((clean, needle) => clean.split(needle).join('[secret]'), text);
}

/**
 * A notifier that POSTs run events to a URL as Standard Webhooks: a JSON body
 * `{ type, timestamp, data }` with `webhook-id` (derived from the fact, so
 * every retry and every process sends the same one and the receiver can
 * deduplicate), `webhook-timestamp` and `webhook-signature` headers, signed
 * anew on each try. A try fails on a network error, a timeout or a non-2xx
 * answer and is retried with exponential backoff and jitter (by default 8
 * tries, waits of at most 5 min, unlike a channel's 5 and 30 s), except for a 4xx
 * other than 408 and 429 and for a redirect (not followed), which no retry
 * would change; a `Retry-After` is honoured (up to `maxBackoffMs`). After the
 * last try the delivery becomes a dead letter (`deadLetters()`, `onDeadLetter`).
 *
 * `publish` only queues, so a run never waits for a slow receiver; the events
 * of one run are delivered in order, and a delivery waiting between tries
 * leaves its concurrency slot to others. Call `flush()` before the process exits.
 *
 * @example
 * const notifier = createWebhookNotifier({
 *   url: 'https://hooks.example.com/countersign',
 *   secret: process.env.COUNTERSIGN_WEBHOOK_SECRET!, // whsec_…
 *   events: ['approval.requested', 'approval.resolved', 'tool.finished'],
 *   onDeadLetter: (entry) => db.insert('dead_letters', entry),
 * });
 * const runtime = createRuntime({ agents: [agent], store, notifier });
 * process.on('SIGTERM', async () => { await notifier.flush(); process.exit(0); });
 */
export function createWebhookNotifier(options: WebhookNotifierOptions): WebhookNotifier {
  parseOptions(webhookOptionsSchema, options, 'createWebhookNotifier');
  const { url } = options;
  const secrets: readonly string[] = typeof options.secret === 'string' ? [options.secret] : options.secret;
  // Reminders, escalations and votes by default too: they happen only where a tool or rule asks for them, and a receiver that asks people needs them.
  const wanted = new Set<WebhookEventType>(
    options.events ?? [
      'approval.requested',
      'approval.reminder',
      'approval.escalated',
      'approval.voted',
      'approval.resolved',
    ],
  );
  // The webhook notifier's own defaults: more tries, and longer waits, than a channel's.
  const {
    retry,
    timeoutMs,
    concurrency,
    fetch: fetchImpl,
    clock,
  } = deliverySettings(options, { maxAttempts: 8, maxBackoffMs: 300_000 });
  const queue = createDeliveryQueue({ concurrency });
  const dead = createDeadLetters({
    keep: options.deadLetters ?? 1000,
    ...(options.onDeadLetter === undefined ? {} : { onDeadLetter: options.onDeadLetter }),
    ...(options.onError === undefined ? {} : { onError: options.onError }),
  });

  const headersFor = (delivery: Delivery) => signedHeaders(delivery, secrets, options.signingKey, clock());

  const deliver = async (delivery: Delivery, slot: LaneSlot) => {
    let attempts = 0;
    try {
      await withRetries(
        (tryNumber) => {
          attempts = tryNumber;
          return sendJson(fetchImpl, url, {
            rawBody: delivery.body,
            headers: headersFor(delivery),
            timeoutMs,
            maxBodyBytes: 512,
            service: 'The webhook receiver',
            clock,
          });
        },
        // A delivery waiting between tries holds no concurrency slot.
        freeingSlot(retry, slot),
      );
    } catch (error) {
      await dead.add(deadLetterOf(delivery, error, attempts, secrets, clock()));
    }
  };

  const enqueue = (delivery: Delivery) => queue.enqueue(delivery.event.data.runId, (slot) => deliver(delivery, slot));

  return {
    async publish(events) {
      const timestamp = new Date(clock()).toISOString();
      for (const runEvent of events) {
        const built = toWebhookEvent(runEvent, timestamp);
        if (!built || !wanted.has(built.event.type)) continue;
        enqueue({
          webhookId: webhookIdOf(built.event.type, runEvent.runId, built.identity),
          event: built.event,
          body: JSON.stringify(built.event),
        });
      }
    },
    flush: () => queue.flush(),
    deadLetters: () => dead.list(),
    redeliver(entry) {
      dead.remove(entry.webhookId);
      enqueue({ webhookId: entry.webhookId, event: entry.event, body: entry.body });
    },
  };
}

/** Signed with the time of this try, so a late retry is not stale; one `v1,` signature per secret, and a `v1a,` with a signing key. */
function signedHeaders(
  delivery: Delivery,
  secrets: readonly string[],
  signingKey: KeyObject | undefined,
  now: number,
): Record<string, string> {
  const signed = signWebhook(secrets[0]!, delivery.webhookId, Math.floor(now / 1000), delivery.body);
  const asymmetric =
    signingKey === undefined
      ? []
      : [webhookAsymmetricSignature(signingKey, signed['webhook-id'], signed['webhook-timestamp'], delivery.body)];
  const others = secrets
    .slice(1)
    .map((secret) => webhookSignature(secret, signed['webhook-id'], signed['webhook-timestamp'], delivery.body));
  return {
    ...signed,
    'webhook-signature': [signed['webhook-signature'], ...others, ...asymmetric].join(' '),
    'content-type': 'application/json',
    'user-agent': 'countersign-webhooks',
  };
}

/** What is kept of a delivery that failed its last try. */
function deadLetterOf(delivery: Delivery, error: unknown, attempts: number, secrets: readonly string[], now: number) {
  const reason = error instanceof DeliveryError ? error.reason : error instanceof Error ? error.message : String(error);
  return {
    webhookId: delivery.webhookId,
    event: delivery.event,
    body: delivery.body,
    attempts,
    ...(error instanceof DeliveryError && error.status !== undefined ? { lastStatus: error.status } : {}),
    // Dead letters are stored and logged: the receiver's answer and a redirect's target may quote a URL or a secret.
    lastError: publicText(withoutSecrets(reason, secrets)),
    failedAt: new Date(now).toISOString(),
  };
}
