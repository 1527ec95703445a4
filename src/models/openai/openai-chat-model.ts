import type { Model, ModelRequest, ModelResponse, ModelStreamPart, ToolSpec } from '../../index.js';
import {
  optionsObject,
  parseOptions,
  postToModel,
  readModelAnswer,
  streamFromModel,
  streamingAsAsked,
} from '../../kit/index.js';
import { chatAnswer, completionSchema } from './chat-output.js';
import { chatStreamParts } from './chat-stream.js';
import { openAIEndpoint, openAIEndpointShape, type OpenAIEndpointOptions } from './openai-endpoint.js';
import { toChatMessages } from './chat-messages.js';

/**
 * Options of `createOpenAIChatModel`: model, apiKey, baseUrl, headers, extra body fields, maxRetries, timeoutMs, fetch.
 *
 * @example
 * const options: OpenAIChatModelOptions = { model: 'gpt-4.1-mini', apiKey: process.env.OPENAI_API_KEY, body: { temperature: 0 } };
 */
export type OpenAIChatModelOptions = OpenAIEndpointOptions;

const optionsSchema = optionsObject(openAIEndpointShape);

function toolsToWire(tools: readonly ToolSpec[]): Record<string, unknown>[] {
  return tools.map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  }));
}

/**
 * A `Model` over any OpenAI-compatible Chat Completions API (OpenAI, Azure
 * OpenAI, vLLM, Ollama, LiteLLM, ...), with plain `fetch`: no SDK to install.
 * `stream` asks for chunks (with usage) and yields text and argument deltas,
 * then the same answer `generate` would have returned.
 *
 * @example
 * import { createOpenAIChatModel } from 'countersign/openai';
 * const model = createOpenAIChatModel({ model: 'gpt-4.1-mini', apiKey: process.env.OPENAI_API_KEY });
 * const agent = createAgent({ name: 'files', model, tools: [deleteFile] });
 */
export function createOpenAIChatModel(options: OpenAIChatModelOptions): Model {
  parseOptions(optionsSchema, options, 'createOpenAIChatModel');
  const endpoint = openAIEndpoint(options, '/chat/completions');

  const body = (request: ModelRequest) => ({
    ...options.body,
    model: options.model,
    messages: toChatMessages(request.messages),
    ...(request.tools.length > 0 ? { tools: toolsToWire(request.tools) } : {}),
  });

  return streamingAsAsked(
    {
      modelId: options.model,
      async generate(request: ModelRequest): Promise<ModelResponse> {
        const response = await postToModel(endpoint, JSON.stringify(body(request)), request.signal);
        return chatAnswer(await readModelAnswer(response, completionSchema, 'a chat completion'));
      },
      stream(request: ModelRequest): AsyncIterable<ModelStreamPart> {
        const streamed = JSON.stringify({ ...body(request), stream: true, stream_options: { include_usage: true } });
        return chatStreamParts(streamFromModel(endpoint, streamed, request.signal));
      },
    },
    options.stream,
  );
}
