// How a model adapter talks to its provider over HTTP: one POST with retries on 429, 5xx, timeouts and network
// failures (honouring Retry-After, through the delivery kit's withRetries), aborted by the request's signal, and
// every failure a ModelProviderError whose message never holds the key, the body sent or the provider's answer.
// postToModel resolves with the open Response; streamFromModel reads it as server-sent events, its timeout and
// retries covering only the wait for the answer's headers (a stream that breaks later is not replayed).
import { setTimeout as delay } from 'node:timers/promises';
import type { z } from 'zod';
import { DeliveryError } from '../../errors.js';
import { parseRetryAfter } from '../delivery/retry-after.js';
import { withRetries } from '../delivery/retry.js';
import { networkReason } from '../delivery/send-json.js';
import { httpStatusText } from '../../presentation/public-text.js';
import { ModelProviderError } from '../../errors.js';
import { serverSentEvents, type ServerSentEvent } from './server-sent-events.js';

/** Where and how a model adapter posts. */
export interface ModelEndpoint {
  /** Names the provider in error messages (`Anthropic`). Default `The model provider`. */
  readonly provider?: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly fetch: typeof fetch;
  /** Tries after the first, on 429, 5xx, a timeout or a network failure. */
  readonly maxRetries: number;
  /** One try is abandoned after this long (a streamed one when its headers have not come by then). */
  readonly timeoutMs: number;
}

const nameOf = (endpoint: ModelEndpoint): string => endpoint.provider ?? 'The model provider';

/** The start of what a provider wrote, kept on `ModelProviderError.detail`. */
const DETAIL_CHARS = 2000;

/** A wait that ends early, rejecting with the signal's reason, when the request is aborted. */
const abortableSleep = (ms: number, signal: AbortSignal | undefined): Promise<void> =>
  delay(ms, undefined, signal ? { signal } : {}).catch((error: unknown) => {
    throw signal?.aborted ? signal.reason : error;
  });

/** How one POST reads its answer: whole (the timeout covers the body too) or as a stream (it covers the headers only). */
interface PostShape {
  readonly streamed: boolean;
  readonly signal: AbortSignal | undefined;
}

/** One try: the answer for a 2xx; a retryable DeliveryError for what another try could fix; a ModelProviderError otherwise. */
async function tryOnce(
  endpoint: ModelEndpoint,
  body: string,
  { streamed, signal }: PostShape,
  failures: { detail: string },
): Promise<Response> {
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), endpoint.timeoutMs).unref();
  let response: Response;
  try {
    response = await endpoint.fetch(endpoint.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(streamed ? { accept: 'text/event-stream' } : {}),
        ...endpoint.headers,
      },
      body,
      signal: signal ? AbortSignal.any([signal, timeout.signal]) : timeout.signal,
    });
  } catch (error) {
    clearTimeout(timer);
    if (signal?.aborted) throw signal.reason;
    const reason = timeout.signal.aborted
      ? `did not answer within ${endpoint.timeoutMs} ms`
      : `could not be reached (${networkReason(error)})`;
    throw new DeliveryError(`${nameOf(endpoint)} ${reason}.`, { retryable: true, reason });
  }
  if (streamed) clearTimeout(timer);
  if (response.ok) return response;
  const text = await response.text().catch(() => '');
  failures.detail = text.slice(0, DETAIL_CHARS);
  const message = `${nameOf(endpoint)} answered ${httpStatusText(response.status)}.`;
  if (response.status === 408 || response.status === 429 || response.status >= 500) {
    const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'));
    throw new DeliveryError(message, {
      retryable: true,
      status: response.status,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    });
  }
  throw new ModelProviderError(message, response.status, failures.detail);
}

/**
 * POSTs `body` (JSON text) to the endpoint and resolves with the provider's
 * 2xx answer, body unread. Retries 408, 429, 5xx, timeouts and network
 * failures up to `maxRetries` times, waiting what Retry-After asks (at most a
 * minute) or a jittered backoff; `signal` aborts the call and any wait.
 * Throws `ModelProviderError` for every failure.
 */
export function postToModel(endpoint: ModelEndpoint, body: string, signal?: AbortSignal): Promise<Response> {
  return post(endpoint, body, { streamed: false, signal });
}

async function post(endpoint: ModelEndpoint, body: string, shape: PostShape): Promise<Response> {
  const { signal } = shape;
  const failures = { detail: '' };
  try {
    return await withRetries(() => tryOnce(endpoint, body, shape, failures), {
      maxAttempts: endpoint.maxRetries + 1,
      backoffMs: 500,
      maxBackoffMs: 60_000,
      sleep: (ms) => abortableSleep(ms, signal),
    });
  } catch (error) {
    if (!(error instanceof DeliveryError)) throw error;
    throw new ModelProviderError(error.message, error.status, failures.detail);
  }
}

/** The JSON answer read with `schema`, or a ModelProviderError saying it is not `what` (the answer on `detail` only). */
export async function readModelAnswer<S extends z.ZodType>(
  response: Response,
  schema: S,
  what: string,
  provider = 'The model provider',
): Promise<z.output<S>> {
  const text = await response.text();
  try {
    return schema.parse(JSON.parse(text));
  } catch {
    throw new ModelProviderError(
      `${provider} answered HTTP ${response.status} with something that is not ${what}.`,
      response.status,
      text.slice(0, DETAIL_CHARS),
    );
  }
}

/**
 * POSTs `body` (JSON text asking for a stream) as `postToModel` does, and
 * yields the answer's server-sent events as they arrive. Retries and the
 * timeout cover the wait for the answer's headers only; once the stream has
 * begun, a break is a `ModelProviderError` (nothing is replayed), and
 * `signal` stops the reading with its reason.
 */
export async function* streamFromModel(
  endpoint: ModelEndpoint,
  body: string,
  signal?: AbortSignal,
): AsyncGenerator<ServerSentEvent> {
  const response = await post(endpoint, body, { streamed: true, signal });
  if (!response.body)
    throw new ModelProviderError(
      `${nameOf(endpoint)} answered HTTP ${response.status} with no body to stream.`,
      response.status,
    );
  try {
    yield* serverSentEvents(response.body);
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    throw new ModelProviderError(
      `${nameOf(endpoint)} broke off its stream (${networkReason(error)}).`,
      response.status,
    );
  }
}

/** The JSON data of a streamed event read with `schema`, or a ModelProviderError saying it is not `what` (the data on `detail` only). */
export function readEventData<S extends z.ZodType>(
  event: ServerSentEvent,
  schema: S,
  what: string,
  provider = 'The model provider',
): z.output<S> {
  try {
    return schema.parse(JSON.parse(event.data));
  } catch {
    throw new ModelProviderError(
      `${provider} streamed a "${event.event}" event that is not ${what}.`,
      undefined,
      event.data.slice(0, DETAIL_CHARS),
    );
  }
}
