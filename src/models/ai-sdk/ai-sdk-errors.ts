// How the AI SDK's failures reach countersign: a refused call as a DeliveryError the retry loop understands (with
// the wait the provider asked for), any provider failure, before or during an answer, as a ModelProviderError
// that names the status only, and a model that cannot stream told apart from one that failed.
import { DeliveryError, parseRetryAfter, httpStatusText, ModelProviderError } from '../../kit/index.js';

const isAiSdkError = (error: unknown, marker: string): boolean =>
  typeof error === 'object' && error !== null && Symbol.for(marker) in error;

/** The wait a provider asked for: `retry-after-ms` (Anthropic, OpenAI), else `Retry-After`. */
function askedWait(headers: Record<string, string | undefined>): { retryAfterMs?: number } {
  const milliseconds = headers['retry-after-ms'];
  const asked =
    milliseconds !== undefined && /^\d+(\.\d+)?$/.test(milliseconds.trim())
      ? Number(milliseconds)
      : parseRetryAfter(headers['retry-after']);
  return asked === undefined ? {} : { retryAfterMs: asked };
}

/** The failure as the retry loop sees it: a refusal of the provider's API is retryable when the AI SDK says so. */
export function asDelivery(error: unknown): unknown {
  if (!isAiSdkError(error, 'vercel.ai.error.AI_APICallError')) return error;
  const api = error as { statusCode?: number; isRetryable?: boolean; responseHeaders?: Record<string, string> };
  return new DeliveryError('The model provider refused the call', {
    retryable: api.isRetryable === true,
    ...(api.statusCode === undefined ? {} : { status: api.statusCode }),
    ...askedWait(api.responseHeaders ?? {}),
    cause: error,
  });
}

/**
 * Whether doStream failed because the model cannot stream, before asking the provider anything: the AI SDK's
 * `UnsupportedFunctionalityError`, or an error that is none of the AI SDK's, as the `Error('Not implemented')`
 * of a `MockLanguageModelV3` given only `doGenerate`. A provider that refused or could not be reached fails
 * with an AI SDK error (`APICallError`, wrapped in a `DeliveryError` by the retry loop), which is not this.
 */
export function cannotStream(error: unknown): boolean {
  if (error instanceof DeliveryError) return false;
  return (
    isAiSdkError(error, 'vercel.ai.error.AI_UnsupportedFunctionalityError') || !isAiSdkError(error, 'vercel.ai.error')
  );
}

/**
 * A provider failure as a `ModelProviderError` that names the status only; what the provider wrote goes to
 * `detail`. Errors that are not the AI SDK's (an abort, a bug) pass through unchanged.
 */
export function providerError(error: unknown): unknown {
  const failure = error instanceof DeliveryError ? error.cause : error;
  if (!isAiSdkError(failure, 'vercel.ai.error')) return error;
  const { statusCode, responseBody, message } = failure as {
    statusCode?: number;
    responseBody?: string;
    message?: string;
  };
  const detail = (responseBody ?? message ?? '').slice(0, 2000);
  return statusCode === undefined
    ? new ModelProviderError(
        'The model provider could not be called, or its answer could not be read.',
        undefined,
        detail,
      )
    : new ModelProviderError(`The model provider answered ${httpStatusText(statusCode)}.`, statusCode, detail);
}

/**
 * What a stream's `error` part carries, as an error to throw: the AI SDK's own errors as `providerError` makes
 * them, anything else (the provider's error event, e.g. Anthropic's `overloaded_error`) with its JSON on `detail`.
 */
export function streamError(error: unknown): Error {
  const mapped = providerError(error);
  if (mapped instanceof ModelProviderError) return mapped;
  const detail = error instanceof Error ? error.message : (JSON.stringify(error) ?? String(error));
  return new ModelProviderError(
    'The model provider stopped its answer with an error.',
    undefined,
    detail.slice(0, 2000),
  );
}
