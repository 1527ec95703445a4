import { DeliveryError } from './delivery-error.js';
import { parseRetryAfter } from './retry-after.js';

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
  /** One try is abandoned after this long. */
  readonly timeoutMs: number;
  /** How much of the answer to read. Default 64 KiB. */
  readonly maxBodyBytes?: number;
  /** Names the service in error messages (`Slack`, `the webhook receiver`). */
  readonly service: string;
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

/**
 * One JSON request to a service, no redirects followed. Resolves with the
 * answer for a 2xx; throws a `DeliveryError` otherwise: retryable for a
 * network failure, a timeout, 408, 429 and 5xx (with the `Retry-After` it
 * asked for), final for anything else. Messages name the service and the
 * status, never the URL.
 *
 * @example
 * const answer = await sendJson(fetch, 'https://hooks.slack.com/services/...', { body: { text: 'hi' }, timeoutMs: 10_000, service: 'Slack' });
 */
export async function sendJson(fetchImpl: typeof fetch, url: string | URL, options: SendOptions): Promise<JsonAnswer> {
  let response: Response;
  try {
    response = await fetchImpl(url, {
      method: options.method ?? 'POST',
      headers: { ...(options.body === undefined ? {} : { 'content-type': 'application/json; charset=utf-8' }), ...options.headers },
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
      redirect: 'manual',
      signal: AbortSignal.timeout(options.timeoutMs),
    });
  } catch (error) {
    const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
    const why = timedOut ? `timed out after ${options.timeoutMs} ms` : `could not be reached: ${error instanceof Error ? error.message : String(error)}`;
    throw new DeliveryError(`${options.service} ${why}`, { retryable: true, cause: error });
  }
  const text = await bodyStart(response, options.maxBodyBytes ?? 65_536);
  const { status } = response;
  if (status >= 200 && status < 300) return { status, headers: response.headers, text };
  const hint = status >= 300 && status < 400 ? ' (a redirect, not followed)' : status === 429 ? ' (rate limited)' : '';
  const excerpt = text.replace(/\s+/g, ' ').trim().slice(0, 200);
  const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'));
  throw new DeliveryError(`${options.service} answered HTTP ${status}${hint}${excerpt ? `: ${excerpt}` : ''}`, {
    retryable: status === 408 || status === 429 || status >= 500,
    status,
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  });
}
