import { z } from 'zod';
import type { Model, ModelRequest, ModelResponse, ModelStreamPart } from '../../index.js';
import {
  httpUrlSchema,
  optionsObject,
  parseOptions,
  postToModel,
  readModelAnswer,
  streamFromModel,
  type ModelEndpoint,
  streamOptionShape,
  streamingAsAsked,
} from '../../kit/index.js';
import { anthropicAnswerSchema, responseOf } from './anthropic-answer.js';
import { anthropicRequestBody } from './anthropic-request.js';
import { anthropicStreamParts } from './anthropic-stream.js';

export interface AnthropicModelOptions {
  /** The model name, e.g. `claude-sonnet-4-5`. */
  readonly model: string;
  readonly apiKey: string;
  /** The API's origin; requests go to `{baseUrl}/v1/messages`. Default `https://api.anthropic.com`. */
  readonly baseUrl?: string;
  /** Extended thinking with this many tokens to think in (at least 1024), or `false` (the default) for none. */
  readonly thinking?: { readonly budgetTokens: number } | false;
  /** The answer's limit, thinking included. Default 4096, or the thinking budget plus 4096. */
  readonly maxTokens?: number;
  /** Extra headers, e.g. `{ 'anthropic-beta': '...' }`. */
  readonly headers?: Record<string, string>;
  readonly fetch?: typeof fetch;
  /** Retries on 429, 5xx (529 overloaded too) and network failures, honouring Retry-After. Default 2. */
  readonly maxRetries?: number;
  /** One try is abandoned after this long. Default 600000 (10 minutes, as Anthropic's SDK). */
  readonly timeoutMs?: number;
  /** The `anthropic-version` header. Default `2023-06-01`. */
  readonly anthropicVersion?: string;
  /** Default true: the run streams (deltas go out as `model-delta` events); false for a gateway that cannot pass server-sent events. */
  readonly stream?: boolean;
}

const positiveInteger = z.number().int().positive();

const optionsSchema = optionsObject({
  model: z.string().min(1, 'names no model, e.g. claude-sonnet-4-5'),
  apiKey: z.string().min(1, 'is empty: pass your Anthropic API key, e.g. apiKey: process.env.ANTHROPIC_API_KEY'),
  baseUrl: httpUrlSchema({ example: 'https://api.anthropic.com', credential: 'apiKey or headers' }).optional(),
  thinking: z
    .union([
      optionsObject({
        budgetTokens: z.number().int().min(1024, 'must be at least 1024, the least the Messages API accepts'),
      }),
      z.literal(false),
    ])
    .optional(),
  maxTokens: positiveInteger.optional(),
  headers: z.record(z.string(), z.string()).optional(),
  fetch: z.custom<typeof fetch>((value) => typeof value === 'function', 'must be a fetch function').optional(),
  maxRetries: z.number().int().min(0).max(10).optional(),
  timeoutMs: positiveInteger.optional(),
  anthropicVersion: z.string().min(1).optional(),
  ...streamOptionShape,
}).refine(
  (options) =>
    !options.thinking || options.maxTokens === undefined || options.maxTokens > options.thinking.budgetTokens,
  {
    message:
      'must be above thinking.budgetTokens: the answer has to fit after the thinking. Raise maxTokens or lower the budget.',
    path: ['maxTokens'],
  },
);

/**
 * A `Model` over Anthropic's Messages API, with plain `fetch`: no SDK to
 * install. Extended thinking (`thinking: { budgetTokens }`) is kept on the
 * assistant messages, signatures and redacted blocks included, and sent back
 * unchanged after a pause for approval; parallel tool results go back in one
 * user turn, errors and denials flagged `is_error`. Prompt-caching markers are
 * read from `providerMetadata.anthropic.cacheControl` on messages and parts.
 * `stream` asks for server-sent events and yields text, thinking and tool
 * input deltas, then the same answer `generate` would have returned.
 *
 * @example
 * import { createAnthropicModel } from 'countersign/anthropic';
 * const model = createAnthropicModel({ model: 'claude-sonnet-4-5', apiKey: process.env.ANTHROPIC_API_KEY!, thinking: { budgetTokens: 2048 } });
 * const agent = createAgent({ name: 'files', model, tools: [deleteFile] });
 */
export function createAnthropicModel(options: AnthropicModelOptions): Model {
  parseOptions(optionsSchema, options, 'createAnthropicModel');
  const thinkingBudget = options.thinking ? options.thinking.budgetTokens : undefined;
  const settings = {
    model: options.model,
    maxTokens: options.maxTokens ?? (thinkingBudget ?? 0) + 4096,
    thinkingBudget,
  };
  const url = `${(options.baseUrl ?? 'https://api.anthropic.com').replace(/\/+$/, '')}/v1/messages`;
  const endpoint: ModelEndpoint = {
    provider: 'Anthropic',
    url,
    headers: {
      'x-api-key': options.apiKey,
      'anthropic-version': options.anthropicVersion ?? '2023-06-01',
      ...options.headers,
    },
    fetch: options.fetch ?? fetch,
    maxRetries: options.maxRetries ?? 2,
    timeoutMs: options.timeoutMs ?? 600_000,
  };

  return streamingAsAsked(
    {
      modelId: options.model,
      async generate(request: ModelRequest): Promise<ModelResponse> {
        const response = await postToModel(
          endpoint,
          JSON.stringify(anthropicRequestBody(settings, request)),
          request.signal,
        );
        return responseOf(
          await readModelAnswer(response, anthropicAnswerSchema, 'a Messages API message', 'Anthropic'),
        );
      },
      stream(request: ModelRequest): AsyncIterable<ModelStreamPart> {
        const body = JSON.stringify({ ...anthropicRequestBody(settings, request), stream: true });
        return anthropicStreamParts(streamFromModel(endpoint, body, request.signal));
      },
    },
    options.stream,
  );
}
