import type {
  LanguageModelV2,
  LanguageModelV3,
  LanguageModelV3CallOptions,
  SharedV3ProviderOptions,
} from '@ai-sdk/provider';
import { z } from 'zod';
import { ConfigError } from '../../errors.js';
import type { Model, ModelRequest, ModelResponse, ModelStreamPart, JsonValue } from '../../index.js';
import {
  wait,
  withRetries,
  optionsObject,
  parseOptions,
  streamOptionShape,
  streamingAsAsked,
} from '../../kit/index.js';
import { fromGenerateResult, type GenerateResult } from './ai-sdk-answer.js';
import { asDelivery, cannotStream, providerError } from './ai-sdk-errors.js';
import { fromStream } from './ai-sdk-stream.js';
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
  /** Default true: the run streams (deltas go out as `model-delta` events); false for a gateway that cannot pass server-sent events. */
  readonly stream?: boolean;
}

const optionsSchema = optionsObject({
  model: z.custom<LanguageModelV3>(
    (value) =>
      typeof value === 'object' &&
      value !== null &&
      typeof (value as { doGenerate?: unknown }).doGenerate === 'function',
    'must be an AI SDK language model, e.g. anthropic("claude-sonnet-4-5") from @ai-sdk/anthropic',
  ),
  providerOptions: z.record(z.string(), z.record(z.string(), z.json())).optional(),
  maxOutputTokens: z.number().int().positive().optional(),
  temperature: z.number().min(0).optional(),
  maxRetries: z.number().int().min(0).max(10).optional(),
  ...streamOptionShape,
});

/**
 * A `Model` over any AI SDK language model (specification v2 or v3): the provider package makes the request,
 * countersign gives it the conversation and gates the tool calls. Reasoning comes back as parts with the
 * provider's metadata (an Anthropic thinking signature, an OpenAI item id) and goes back unchanged on the next
 * call, also after the run was stored and resumed. The model streams (`doStream`): its text, reasoning and tool
 * input arrive as `model-delta` run events, and the turn is stored exactly as a generated one would be. A model
 * that cannot stream (the AI SDK's `MockLanguageModelV3` given only `doGenerate`) answers through `doGenerate`.
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

  const callOptions = (request: ModelRequest): LanguageModelV3CallOptions => ({
    prompt: toPrompt(request.messages, dialect),
    ...(request.tools.length > 0 ? { tools: toFunctionTools(request.tools) } : {}),
    ...(options.providerOptions ? { providerOptions: options.providerOptions as SharedV3ProviderOptions } : {}),
    ...(options.maxOutputTokens === undefined ? {} : { maxOutputTokens: options.maxOutputTokens }),
    ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
    ...(request.signal ? { abortSignal: request.signal } : {}),
  });
  /** A provider call, retried while refused with a retryable status (429, 5xx), honouring the wait it asked for. */
  const withProviderRetries = <T>(request: ModelRequest, call: () => PromiseLike<T>): Promise<T> =>
    withRetries(
      () =>
        Promise.resolve(call()).catch((error: unknown) =>
          Promise.reject(request.signal?.aborted ? error : asDelivery(error)),
        ),
      {
        ...policy,
        sleep: (ms) => wait(ms, request.signal),
      },
    );
  const failure = (request: ModelRequest, error: unknown): unknown =>
    request.signal?.aborted ? error : providerError(error);

  async function generate(request: ModelRequest): Promise<ModelResponse> {
    try {
      const result = await withProviderRetries(request, () => model.doGenerate(callOptions(request)));
      return fromGenerateResult(result as GenerateResult, dialect);
    } catch (error) {
      throw failure(request, error);
    }
  }

  return streamingAsAsked(
    {
      modelId: model.modelId,
      generate,
      /**
       * Retries only the opening of the stream: once deltas went out, a failure ends the call. A model whose
       * doStream is missing (the AI SDK's MockLanguageModelV3 given only doGenerate) answers through doGenerate.
       */
      async *stream(request: ModelRequest): AsyncGenerator<ModelStreamPart> {
        let opened: Awaited<ReturnType<LanguageModelV3['doStream']>> | undefined;
        try {
          opened = await withProviderRetries(request, () => model.doStream(callOptions(request)));
        } catch (error) {
          if (request.signal?.aborted || !cannotStream(error)) throw failure(request, error);
        }
        if (!opened) {
          yield { type: 'finish', response: await generate(request) };
          return;
        }
        try {
          yield* fromStream(opened.stream, dialect);
        } catch (error) {
          throw failure(request, error);
        }
      },
    },
    options.stream,
  );
}
