import { DeliveryError } from '../../errors.js';
import { bodyRetryAfter, parseRetryAfter } from './retry-after.js';

/** What a service answered: status, headers and the start of the body. */
export interface JsonAnswer {
  readonly status: number;
  readonly headers: Headers;
  /** At most `maxBodyBytes` of the body, as text. */
  readonly text: string;
}

export interface SendOptions {
  readonly method?: 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  readonly headers?: Readonly<Record<string, string>>;
  /** Sent as JSON; left out for none. */
  readonly body?: unknown;
  /** A body already serialized, sent byte for byte (a signed webhook body); wins over `body`. */
  readonly rawBody?: string;
  /** One try is abandoned after this long. */
  readonly timeoutMs: number;
  /** The caller's abort: the request is abandoned and `signal.reason` thrown as is (not a `DeliveryError`, so never retried). */
  readonly signal?: AbortSignal;
  /** How much of the answer to read. Default 64 KiB. */
  readonly maxBodyBytes?: number;
  /** Names the service in error messages (`Slack`, `the webhook receiver`). */
  readonly service: string;
  /** The clock an HTTP-date `Retry-After` is read against. Default `Date.now`. */
  readonly clock?: () => number;
}

/** The start of a body, never more than `limit` bytes read. */
async function bodyStart(response: Response, limit: number): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < limit) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } catch {
    // A body cut short still tells what it managed to say.
  } finally {
    reader.cancel().catch(() => {});
  }
  return Buffer.concat(chunks).subarray(0, limit).toString('utf8');
}

/** What a request that got no answer failed with: the system's code (ECONNREFUSED) when there is one. */
export function networkReason(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  if (typeof cause?.code === 'string') return cause.code;
  if (typeof cause?.message === 'string') return cause.message;
  return error instanceof Error ? error.message : String(error);
}

/**
 * One JSON request to a service, no redirects followed. Resolves with the
 * answer for a 2xx; throws a `DeliveryError` otherwise: retryable for a
 * network failure, a timeout, 408, 429 and 5xx (with the wait it asked for:
 * a `retry_after` in its JSON body, as Telegram and Discord send it, else its
 * `Retry-After` header), final for anything else. Messages name the service and the
 * status, never the URL (a redirect's target is cut to its host).
 *
 * @example
 * const answer = await sendJson(fetch, 'https://hooks.slack.com/services/...', { body: { text: 'hi' }, timeoutMs: 10_000, service: 'Slack' });
 */
export async function sendJson(fetchImpl: typeof fetch, url: string | URL, options: SendOptions): Promise<JsonAnswer> {
  const body = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  let response: Response;
  try {
    response = await fetchImpl(url, {
      method: options.method ?? 'POST',
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json; charset=utf-8' }),
        ...options.headers,
      },
      ...(body === undefined ? {} : { body }),
      redirect: 'manual',
      signal: options.signal
        ? AbortSignal.any([options.signal, AbortSignal.timeout(options.timeoutMs)])
        : AbortSignal.timeout(options.timeoutMs),
    });
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
    const reason = timedOut ? `timed out after ${options.timeoutMs} ms` : networkReason(error);
    throw new DeliveryError(`${options.service} ${timedOut ? reason : `could not be reached: ${reason}`}`, {
      retryable: true,
      reason,
      cause: error,
    });
  }
  const text = await bodyStart(response, options.maxBodyBytes ?? 65_536);
  const { status } = response;
  if (status >= 200 && status < 300) return { status, headers: response.headers, text };
  const hint =
    status >= 300 && status < 400
      ? ` (redirect to ${response.headers.get('location') ?? 'nowhere'} not followed; configure the final URL)`
      : status === 429
        ? ' (rate limited)'
        : '';
  const excerpt = text.replace(/\s+/g, ' ').trim().slice(0, 200);
  const reason = `HTTP ${status}${hint}${excerpt ? `: ${excerpt}` : ''}`;
  // A JSON body's retry_after is preferred: Discord's has fractions of a second, its header only whole seconds.
  const retryAfterMs =
    bodyRetryAfter(text) ?? parseRetryAfter(response.headers.get('retry-after'), (options.clock ?? Date.now)());
  throw new DeliveryError(`${options.service} answered ${reason}`, {
    retryable: status === 408 || status === 429 || status >= 500,
    status,
    reason,
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  });
}
