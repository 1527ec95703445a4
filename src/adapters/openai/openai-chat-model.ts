import { z } from 'zod';
import type { FinishReason, Message, Model, ModelRequest, ModelResponse, ToolSpec } from '../../machine/types.js';
import { optionsObject, parseOptions } from '../../options.js';
import { postToModel, readModelAnswer } from '../model-http.js';
import { usageOf } from '../model-usage.js';
import { openAIEndpoint, openAIEndpointShape, type OpenAIEndpointOptions } from './openai-endpoint.js';
import { argumentsText, parseArguments } from './tool-arguments.js';

/**
 * Options of `createOpenAIChatModel`: model, apiKey, baseUrl, headers, extra body fields, maxRetries, timeoutMs, fetch.
 *
 * @example
 * const options: OpenAIChatModelOptions = { model: 'gpt-4.1-mini', apiKey: process.env.OPENAI_API_KEY, body: { temperature: 0 } };
 */
export type OpenAIChatModelOptions = OpenAIEndpointOptions;

const optionsSchema = optionsObject(openAIEndpointShape);

const completionSchema = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({
          content: z.string().nullish(),
          tool_calls: z.array(z.object({ id: z.string(), function: z.object({ name: z.string(), arguments: z.string() }) })).nullish(),
        }),
        finish_reason: z.string().nullish(),
      }),
    )
    .min(1),
  usage: z
    .object({
      prompt_tokens: z.number().optional(),
      completion_tokens: z.number().optional(),
      prompt_tokens_details: z.object({ cached_tokens: z.number().nullish() }).nullish(),
      completion_tokens_details: z.object({ reasoning_tokens: z.number().nullish() }).nullish(),
    })
    .nullish(),
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
        function: { name: call.name, arguments: argumentsText(call.args) },
      })),
    };
  }
  return { role: message.role, content: message.content };
}

function toolsToWire(tools: readonly ToolSpec[]): Record<string, unknown>[] {
  return tools.map((tool) => ({ type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.parameters } }));
}

const FINISH_REASONS: Readonly<Record<string, FinishReason>> = {
  stop: 'stop',
  length: 'length',
  tool_calls: 'tool-calls',
  function_call: 'tool-calls',
  content_filter: 'content-filter',
};

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
  const endpoint = openAIEndpoint(options, '/chat/completions');

  return {
    async generate(request: ModelRequest): Promise<ModelResponse> {
      const body = JSON.stringify({
        ...options.body,
        model: options.model,
        messages: request.messages.map(toWire),
        ...(request.tools.length > 0 ? { tools: toolsToWire(request.tools) } : {}),
      });
      const response = await postToModel(endpoint, body, request.signal);
      const completion = await readModelAnswer(response, completionSchema, 'a chat completion');
      const choice = completion.choices[0]!;
      const toolCalls = (choice.message.tool_calls ?? []).map((call) => ({ id: call.id, name: call.function.name, args: parseArguments(call.function.arguments) }));
      const usage = usageOf({
        inputTokens: completion.usage?.prompt_tokens,
        outputTokens: completion.usage?.completion_tokens,
        reasoningTokens: completion.usage?.completion_tokens_details?.reasoning_tokens,
        cachedInputTokens: completion.usage?.prompt_tokens_details?.cached_tokens,
      });
      const finishReason = choice.finish_reason ? (FINISH_REASONS[choice.finish_reason] ?? 'other') : undefined;
      return {
        message: { role: 'assistant', content: choice.message.content ?? '', ...(toolCalls.length > 0 ? { toolCalls } : {}) },
        ...(usage === undefined ? {} : { usage }),
        ...(finishReason === undefined ? {} : { finishReason }),
      };
    },
  };
}
