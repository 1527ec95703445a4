// One JSON call to a model provider, for every adapter that speaks plain HTTP: the delivery kit's retries
// (429, 5xx, Retry-After), the caller's abort, and every failure as a ModelProviderError that names the
// status only (the provider's words, which can echo the key, stay on `detail`).
import type { z } from 'zod';
import { DeliveryError } from '../delivery/delivery-error.js';
import { wait, withRetries } from '../delivery/retry.js';
import { sendJson } from '../delivery/send-json.js';
import { httpStatusText } from '../machine/public-text.js';
import { ModelProviderError } from './model-errors.js';

export interface ModelCall<Answer> {
  /** Names the provider in error messages (`Anthropic`). */
  readonly provider: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
  /** Reads the answer; an answer it refuses is a `ModelProviderError` naming `answerName`. */
  readonly answer: z.ZodType<Answer>;
  readonly answerName: string;
  readonly fetch: typeof fetch;
  /** Tries after the first, on 429 and 5xx. */
  readonly maxRetries: number;
  /** One try is abandoned after this long. */
  readonly timeoutMs: number;
  readonly signal?: AbortSignal | undefined;
}

/** Model answers can be long (thinking, long texts): read up to this much. */
const MAX_ANSWER_BYTES = 32 * 1024 * 1024;

function providerError(provider: string, error: DeliveryError): ModelProviderError {
  const message = error.status === undefined ? `${provider}: ${error.reason}.` : `${provider} answered ${httpStatusText(error.status)}.`;
  return new ModelProviderError(message, error.status, error.reason);
}

/**
 * POSTs `body` as JSON and resolves with the answer read by `answer`. Retries
 * 429 and 5xx answers, network failures and timeouts up to `maxRetries`
 * times, waiting what the provider asked (`Retry-After`) or backing off.
 * Aborting `signal` stops at once with its reason, between tries too.
 */
export async function postModelRequest<Answer>(call: ModelCall<Answer>): Promise<Answer> {
  const { signal } = call;
  let text: string;
  try {
    ({ text } = await withRetries(
      () =>
        sendJson(call.fetch, call.url, {
          headers: call.headers,
          body: call.body,
          timeoutMs: call.timeoutMs,
          maxBodyBytes: MAX_ANSWER_BYTES,
          service: call.provider,
          ...(signal ? { signal } : {}),
        }),
      { maxAttempts: call.maxRetries + 1, backoffMs: 500, maxBackoffMs: 60_000, sleep: (ms) => wait(ms, signal) },
    ));
  } catch (error) {
    throw error instanceof DeliveryError ? providerError(call.provider, error) : error;
  }
  // An abort while the body was read leaves it cut short: the abort is the answer, not a parse failure.
  signal?.throwIfAborted();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const parsed = call.answer.safeParse(json);
  if (!parsed.success) throw new ModelProviderError(`${call.provider} answered with something that is not ${call.answerName}.`, 200, text.slice(0, 2000));
  return parsed.data;
}
