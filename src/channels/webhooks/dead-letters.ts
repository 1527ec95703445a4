// Deliveries that failed their last try: the newest kept for inspection and resending, each handed to onDeadLetter.
import type { WebhookEvent } from './webhook-events.js';

/**
 * A delivery that failed its last try, kept so it can be inspected, stored or sent again.
 *
 * @example
 * for (const entry of notifier.deadLetters()) log.warn(`${entry.event.type} ${entry.webhookId}: ${entry.lastError} after ${entry.attempts} tries`);
 */
export interface WebhookDeadLetter {
  /** The `webhook-id` every try carried; a receiver that deduplicates on it sees a resend as a repeat. */
  readonly webhookId: string;
  readonly event: WebhookEvent;
  /** The exact body every try sent. (The URL is left out: many carry a secret, like a Slack webhook's path.) */
  readonly body: string;
  /** Tries made, at most `maxAttempts`. */
  readonly attempts: number;
  /** HTTP status of the last try, when the receiver answered at all. */
  readonly lastStatus?: number;
  /** Why the last try failed: `HTTP 500: <start of the body>`, `timed out after 10000 ms`, `ECONNREFUSED` …; any URL in it cut to its host (`hooks.example.com/…`), the signing secrets removed. */
  readonly lastError: string;
  /** When the notifier gave up (ISO 8601). */
  readonly failedAt: string;
}

export interface DeadLetterSettings {
  /** How many `list()` keeps, the oldest dropped first. */
  readonly keep: number;
  readonly onDeadLetter?: (entry: WebhookDeadLetter) => void | Promise<void>;
  readonly onError?: (
    error: unknown,
    context: { readonly operation: 'dead-letter'; readonly webhookId: string },
  ) => void;
}

/** The dead letters of one notifier. */
export interface DeadLetters {
  /** Keeps `entry` and tells `onDeadLetter`, whose failure goes to `onError`; never rejects. */
  add(entry: WebhookDeadLetter): Promise<void>;
  list(): readonly WebhookDeadLetter[];
  /** Forgets the entry with this `webhookId`, if kept. */
  remove(webhookId: string): void;
}

export function createDeadLetters(settings: DeadLetterSettings): DeadLetters {
  const kept: WebhookDeadLetter[] = [];
  return {
    async add(entry) {
      if (settings.keep > 0) {
        kept.push(entry);
        if (kept.length > settings.keep) kept.splice(0, kept.length - settings.keep);
      }
      try {
        await settings.onDeadLetter?.(entry);
      } catch (error) {
        try {
          settings.onError?.(error, { operation: 'dead-letter', webhookId: entry.webhookId });
        } catch {
          // The error reporter's own failure has nowhere left to go.
        }
      }
    },
    list: () => [...kept],
    remove(webhookId) {
      const index = kept.findIndex((item) => item.webhookId === webhookId);
      if (index !== -1) kept.splice(index, 1);
    },
  };
}
