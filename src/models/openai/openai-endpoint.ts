// The options both OpenAI models take (model, key, base URL, headers, extra body fields, retries, timeout, fetch),
// their schema, and the endpoint they make.
import { z } from 'zod';
import { functionSchema, httpUrlSchema, type ModelEndpoint, streamOptionShape } from '../../kit/index.js';

/** What every OpenAI model adapter takes. */
export interface OpenAIEndpointOptions {
  /** The model name, e.g. `gpt-5-mini`. */
  readonly model: string;
  /** Sent as `Authorization: Bearer …`; leave out for a gateway that authenticates through `headers`. */
  readonly apiKey?: string;
  /** Any OpenAI-compatible endpoint. Default `https://api.openai.com/v1`. */
  readonly baseUrl?: string;
  readonly headers?: Record<string, string>;
  /** Extra body fields (temperature, max_output_tokens, ...); the adapter's own fields win. */
  readonly body?: Record<string, unknown>;
  /** Retries on 408, 429, 5xx, timeouts and network failures, honouring Retry-After. Default 2. */
  readonly maxRetries?: number;
  /** One try is abandoned after this long. Default 600,000 ms (ten minutes: reasoning models think a while). */
  readonly timeoutMs?: number;
  readonly fetch?: typeof fetch;
  /** Default true: the run streams (deltas go out as `model-delta` events); false for a gateway that cannot pass server-sent events. */
  readonly stream?: boolean;
}

/** For an adapter's `optionsObject({ ...openAIEndpointShape, ...its own })`. */
export const openAIEndpointShape = {
  model: z.string().min(1, 'names no model, e.g. gpt-5-mini'),
  apiKey: z.string().optional(),
  baseUrl: httpUrlSchema({ example: 'https://api.openai.com/v1', credential: 'apiKey or headers' }).optional(),
  headers: z.record(z.string(), z.string()).optional(),
  body: z.record(z.string(), z.unknown()).optional(),
  maxRetries: z.number().int('must be a whole number').min(0).max(10).optional(),
  timeoutMs: z.number().int('must be a whole number').min(1).max(3_600_000).optional(),
  fetch: functionSchema().optional(),
  ...streamOptionShape,
};

/** The endpoint at `path` (`/responses`) under the base URL, with the key and headers. */
export function openAIEndpoint(options: OpenAIEndpointOptions, path: string): ModelEndpoint {
  return {
    url: `${(options.baseUrl ?? 'https://api.openai.com/v1').replace(/\/+$/, '')}${path}`,
    headers: { ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}), ...options.headers },
    fetch: options.fetch ?? globalThis.fetch,
    maxRetries: options.maxRetries ?? 2,
    timeoutMs: options.timeoutMs ?? 600_000,
  };
}
