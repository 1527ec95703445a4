import type { LanguageModelV2, LanguageModelV3, LanguageModelV3CallOptions, SharedV3ProviderOptions } from '@ai-sdk/provider';
import { z } from 'zod';
import { ConfigError } from '../../errors.js';
import { DeliveryError } from '../../delivery/delivery-error.js';
import { parseRetryAfter } from '../../delivery/retry-after.js';
import { wait, withRetries } from '../../delivery/retry.js';
import { httpStatusText } from '../../machine/public-text.js';
import type { JsonValue, Model, ModelRequest, ModelResponse } from '../../machine/types.js';
import { optionsObject, parseOptions } from '../../options.js';
import { ModelProviderError } from '../model-errors.js';
import { fromGenerateResult, type GenerateResult } from './ai-sdk-answer.js';
import { toFunctionTools, toPrompt } from './ai-sdk-prompt.js';
import { dialects, specVersions, type SpecVersion } from './spec-versions.js';

export interface AiSdkModelOptions {
  /** An AI SDK language model: `anthropic('claude-sonnet-4-5')`, `openai.responses('gpt-5')`, any v2 or v3 provider. */
  readonly model: LanguageModelV3 | LanguageModelV2;
  /** Sent with every call, keyed by provider: `{ anthropic: { thinking: { type: 'enabled', budgetTokens: 4000 } } }`. */
  readonly providerOptions?: { readonly [provider: string]: { readonly [key: string]: JsonValue } };
  readonly maxOutputTokens?: number;
  readonly temperature?: number;
  /** Retries of a call the provider refused with a retryable status (429, 5xx), honouring Retry-After. Default 2. */
  readonly maxRetries?: number;
}

const optionsSchema = optionsObject({
  model: z.custom<LanguageModelV3>(
    (value) => typeof value === 'object' && value !== null && typeof (value as { doGenerate?: unknown }).doGenerate === 'function',
    'must be an AI SDK language model, e.g. anthropic("claude-sonnet-4-5") from @ai-sdk/anthropic',
  ),
  providerOptions: z.record(z.string(), z.record(z.string(), z.json())).optional(),
  maxOutputTokens: z.number().int().positive().optional(),
  temperature: z.number().min(0).optional(),
  maxRetries: z.number().int().min(0).max(10).optional(),
});

/** The wait a provider asked for: `retry-after-ms` (Anthropic, OpenAI), else `Retry-After`. */
function askedWait(headers: Record<string, string | undefined>): { retryAfterMs?: number } {
  const milliseconds = headers['retry-after-ms'];
  const asked = milliseconds !== undefined && /^\d+(\.\d+)?$/.test(milliseconds.trim()) ? Number(milliseconds) : parseRetryAfter(headers['retry-after']);
  return asked === undefined ? {} : { retryAfterMs: asked };
}

/** The failure as the retry loop sees it: a refusal of the provider's API is retryable when the AI SDK says so. */
function asDelivery(error: unknown): unknown {
  if (!(typeof error === 'object' && error !== null && Symbol.for('vercel.ai.error.AI_APICallError') in error)) return error;
  const api = error as { statusCode?: number; isRetryable?: boolean; responseHeaders?: Record<string, string> };
  return new DeliveryError('The model provider refused the call', {
    retryable: api.isRetryable === true,
    ...(api.statusCode === undefined ? {} : { status: api.statusCode }),
    ...askedWait(api.responseHeaders ?? {}),
    cause: error,
  });
}

/**
 * A provider failure as a `ModelProviderError` that names the status only; what the provider wrote goes to
 * `detail`. Errors that are not the AI SDK's (an abort, a bug) pass through unchanged.
 */
function providerError(error: unknown): unknown {
  const failure = error instanceof DeliveryError ? error.cause : error;
  if (!(typeof failure === 'object' && failure !== null && Symbol.for('vercel.ai.error') in failure)) return error;
  const { statusCode, responseBody, message } = failure as { statusCode?: number; responseBody?: string; message?: string };
  const detail = (responseBody ?? message ?? '').slice(0, 2000);
  return statusCode === undefined
    ? new ModelProviderError('The model provider could not be called, or its answer could not be read.', undefined, detail)
    : new ModelProviderError(`The model provider answered ${httpStatusText(statusCode)}.`, statusCode, detail);
}

/**
 * A `Model` over any AI SDK language model (specification v2 or v3): the provider package makes the request,
 * countersign gives it the conversation and gates the tool calls. Reasoning comes back as parts with the
 * provider's metadata (an Anthropic thinking signature, an OpenAI item id) and goes back unchanged on the next
 * call, also after the run was stored and resumed.
 *
 * @example
 * import { createAnthropic } from '@ai-sdk/anthropic';
 * import { createAiSdkModel } from 'countersign/ai-sdk';
 * const model = createAiSdkModel({
 *   model: createAnthropic()('claude-sonnet-4-5'),
 *   providerOptions: { anthropic: { thinking: { type: 'enabled', budgetTokens: 4000 } } },
 * });
 * const agent = createAgent({ name: 'files', model, tools: [deleteFile] });
 */
export function createAiSdkModel(options: AiSdkModelOptions): Model {
  parseOptions(optionsSchema, options, 'createAiSdkModel');
  const version = (options.model as { specificationVersion?: unknown }).specificationVersion;
  if (!specVersions.includes(version as SpecVersion)) {
    throw new ConfigError(
      `createAiSdkModel: model has specificationVersion ${JSON.stringify(version)}; countersign supports the AI SDK's language model specifications ${specVersions.join(' and ')}. Use a provider package of AI SDK 5 (v2) or 6 (v3).`,
      'invalid_config',
    );
  }
  const dialect = dialects[version as SpecVersion];
  const model = options.model as LanguageModelV3;
  const policy = { maxAttempts: (options.maxRetries ?? 2) + 1, backoffMs: 500, maxBackoffMs: 30_000 };

  return {
    async generate(request: ModelRequest): Promise<ModelResponse> {
      const call: LanguageModelV3CallOptions = {
        prompt: toPrompt(request.messages, dialect),
        ...(request.tools.length > 0 ? { tools: toFunctionTools(request.tools) } : {}),
        ...(options.providerOptions ? { providerOptions: options.providerOptions as SharedV3ProviderOptions } : {}),
        ...(options.maxOutputTokens === undefined ? {} : { maxOutputTokens: options.maxOutputTokens }),
        ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
        ...(request.signal ? { abortSignal: request.signal } : {}),
      };
      try {
        const result = await withRetries(
          () => Promise.resolve(model.doGenerate(call)).catch((error: unknown) => Promise.reject(request.signal?.aborted ? error : asDelivery(error))),
          { ...policy, sleep: (ms) => wait(ms, request.signal) },
        );
        return fromGenerateResult(result as GenerateResult, dialect);
      } catch (error) {
        throw request.signal?.aborted ? error : providerError(error);
      }
    },
  };
}
