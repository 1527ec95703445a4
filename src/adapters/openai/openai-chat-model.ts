import { z } from 'zod';
import { httpStatusText } from '../../machine/public-text.js';
import { httpUrlSchema } from '../../machine/url-schema.js';
import type { AssistantMessage, Message, Model, ModelRequest, ToolSpec } from '../../machine/types.js';
import { parseOptions } from '../../options.js';
import { ModelProviderError } from '../model-errors.js';

export interface OpenAIChatModelOptions {
  /** The model name, e.g. `gpt-4.1-mini`. */
  readonly model: string;
  readonly apiKey?: string;
  /** Any OpenAI-compatible Chat Completions endpoint. Default `https://api.openai.com/v1`. */
  readonly baseUrl?: string;
  readonly headers?: Record<string, string>;
  /** Extra body fields (temperature, max_tokens, ...). */
  readonly body?: Record<string, unknown>;
  /** Retries on 429 and 5xx, honouring Retry-After. Default 2. */
  readonly maxRetries?: number;
  readonly fetch?: typeof fetch;
}

const optionsSchema = z.object({
  model: z.string().min(1, 'names no model, e.g. gpt-4.1-mini'),
  apiKey: z.string().optional(),
  baseUrl: httpUrlSchema({ example: 'https://api.openai.com/v1', credential: 'apiKey or headers' }).optional(),
  headers: z.record(z.string(), z.string()).optional(),
  body: z.record(z.string(), z.unknown()).optional(),
  maxRetries: z.number().int().min(0).max(10).optional(),
  fetch: z.custom<typeof fetch>((value) => typeof value === 'function').optional(),
});

const completionSchema = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({
          content: z.string().nullish(),
          tool_calls: z.array(z.object({ id: z.string(), function: z.object({ name: z.string(), arguments: z.string() }) })).nullish(),
        }),
      }),
    )
    .min(1),
});

function toWire(message: Message): Record<string, unknown> {
  if (message.role === 'tool') return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
  if (message.role === 'assistant' && message.toolCalls?.length) {
    return {
      role: 'assistant',
      content: message.content || null,
      tool_calls: message.toolCalls.map((call) => ({
        id: call.id,
        type: 'function',
        function: { name: call.name, arguments: JSON.stringify(call.args ?? {}) },
      })),
    };
  }
  return { role: message.role, content: message.content };
}

function toolsToWire(tools: readonly ToolSpec[]): Record<string, unknown>[] {
  return tools.map((tool) => ({ type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.parameters } }));
}

/** Arguments the model sent as text; text that is not JSON is passed on as is, for the tool's schema to refuse. */
function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });

/**
 * A `Model` over any OpenAI-compatible Chat Completions API (OpenAI, Azure
 * OpenAI, vLLM, Ollama, LiteLLM, ...), with plain `fetch`: no SDK to install.
 *
 * @example
 * import { createOpenAIChatModel } from 'countersign/openai';
 * const model = createOpenAIChatModel({ model: 'gpt-4.1-mini', apiKey: process.env.OPENAI_API_KEY });
 * const agent = createAgent({ name: 'files', model, tools: [deleteFile] });
 */
export function createOpenAIChatModel(options: OpenAIChatModelOptions): Model {
  parseOptions(optionsSchema, options, 'createOpenAIChatModel');
  const endpoint = `${(options.baseUrl ?? 'https://api.openai.com/v1').replace(/\/+$/, '')}/chat/completions`;
  const doFetch = options.fetch ?? fetch;
  const maxRetries = options.maxRetries ?? 2;

  return {
    async generate(request: ModelRequest): Promise<{ message: AssistantMessage }> {
      const body = JSON.stringify({
        ...options.body,
        model: options.model,
        messages: request.messages.map(toWire),
        ...(request.tools.length > 0 ? { tools: toolsToWire(request.tools) } : {}),
      });
      for (let attempt = 0; ; attempt++) {
        const response = await doFetch(endpoint, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
            ...options.headers,
          },
          body,
          ...(request.signal ? { signal: request.signal } : {}),
        });
        if ((response.status === 429 || response.status >= 500) && attempt < maxRetries) {
          const retryAfter = Number(response.headers.get('retry-after'));
          await response.body?.cancel();
          await sleep(Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : 250 * 2 ** attempt, request.signal);
          continue;
        }
        const text = await response.text();
        if (!response.ok) throw new ModelProviderError(`The model provider answered ${httpStatusText(response.status)}.`, response.status, text.slice(0, 2000));
        let completion: z.infer<typeof completionSchema>;
        try {
          completion = completionSchema.parse(JSON.parse(text));
        } catch {
          throw new ModelProviderError(`The model provider answered HTTP ${response.status} with something that is not a chat completion.`, response.status, text.slice(0, 2000));
        }
        const message = completion.choices[0]!.message;
        const toolCalls = (message.tool_calls ?? []).map((call) => ({ id: call.id, name: call.function.name, args: parseArguments(call.function.arguments) }));
        return {
          message: { role: 'assistant', content: message.content ?? '', ...(toolCalls.length > 0 ? { toolCalls } : {}) },
        };
      }
    },
  };
}
