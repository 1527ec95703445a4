// Deliveries to channels (chat, email, webhooks).
import { publicText } from '../presentation/public-text.js';

/**
 * A delivery to a channel failed. `retryable` says whether another try could
 * help (network failure, timeout, HTTP 408, 429, 5xx, a service's own
 * "try again" codes); `retryAfterMs` is the wait the service asked for. The
 * message never holds a URL (a webhook URL or a bot URL carries a secret),
 * only its host. `reason` is the failure without the service's name
 * (`HTTP 500: down`, `timed out after 10000 ms`, `ECONNREFUSED`), for records
 * that name the service elsewhere, like a webhook's dead letter.
 *
 * @example
 * throw new DeliveryError('Slack answered HTTP 503', { retryable: true, status: 503, reason: 'HTTP 503' });
 */
export class DeliveryError extends Error {
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;
  readonly status: number | undefined;
  readonly reason: string;

  constructor(
    message: string,
    details: {
      readonly retryable: boolean;
      readonly retryAfterMs?: number;
      readonly status?: number;
      readonly reason?: string;
      readonly cause?: unknown;
    },
  ) {
    super(publicText(message), details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'DeliveryError';
    this.retryable = details.retryable;
    this.retryAfterMs = details.retryAfterMs;
    this.status = details.status;
    this.reason = details.reason === undefined ? this.message : publicText(details.reason);
  }
}
