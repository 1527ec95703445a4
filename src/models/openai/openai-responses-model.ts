import { z } from 'zod';
import type { Model, ModelRequest, ModelResponse, ModelStreamPart } from '../../index.js';
import {
  optionsObject,
  parseOptions,
  postToModel,
  readModelAnswer,
  streamFromModel,
  streamingAsAsked,
} from '../../kit/index.js';
import { openAIEndpoint, openAIEndpointShape, type OpenAIEndpointOptions } from './openai-endpoint.js';
import { responsesRequestBody } from './responses-input.js';
import { responseSchema, responsesAnswer } from './responses-output.js';
import { responsesStreamParts } from './responses-stream.js';

/**
 * Options of `createOpenAIResponsesModel`: the endpoint's (model, apiKey, baseUrl, headers, body, maxRetries,
 * timeoutMs, fetch) and the Responses API's own.
 *
 * @example
 * const options: OpenAIResponsesModelOptions = { model: 'gpt-5-mini', apiKey: process.env.OPENAI_API_KEY, store: false, reasoning: { effort: 'low', summary: 'auto' } };
 */
export interface OpenAIResponsesModelOptions extends OpenAIEndpointOptions {
  /**
   * Let OpenAI keep the responses (`store: true`). Default false: nothing is
   * kept, and reasoning goes back to the API as its encrypted content, which
   * the run's snapshot carries.
   */
  readonly store?: boolean;
  /**
   * Ask for reasoning's encrypted content (`include: ['reasoning.encrypted_content']`),
   * so the model gets its reasoning back on the next call. Default: on when
   * `store` is false. Turn it off for a model or gateway that refuses it.
   */
  readonly encryptedReasoning?: boolean;
  /**
   * `'auto'` sends `previous_response_id` (the response the last assistant
   * message came from) and only the messages after it; needs `store: true`.
   * Default `'off'`: every call sends the whole conversation.
   */
  readonly previousResponseId?: 'off' | 'auto';
  /** How hard a reasoning model thinks, and whether it summarizes its reasoning (the summaries become reasoning parts). */
  readonly reasoning?: {
    readonly effort?: 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh';
    readonly summary?: 'auto' | 'concise' | 'detailed';
  };
}

const optionsSchema = optionsObject({
  ...openAIEndpointShape,
  store: z.boolean().optional(),
  encryptedReasoning: z.boolean().optional(),
  previousResponseId: z.enum(['off', 'auto']).optional(),
  reasoning: optionsObject({
    effort: z.enum(['none', 'minimal', 'low', 'medium', 'high', 'xhigh']).optional(),
    summary: z.enum(['auto', 'concise', 'detailed']).optional(),
  }).optional(),
}).refine((options) => options.previousResponseId !== 'auto' || options.store === true, {
  path: ['previousResponseId'],
  message:
    "'auto' needs store: true (OpenAI keeps no response to continue from otherwise). Set store: true, or leave previousResponseId out.",
});

/**
 * A `Model` over the OpenAI Responses API (`POST {baseUrl}/responses`), with
 * plain `fetch`: no SDK to install. Reasoning items (with their encrypted
 * content), message and function call ids come back as parts and
 * `providerMetadata`, so a run paused for approval and resumed from its
 * snapshot sends them back to the API unchanged. `stream` asks for
 * server-sent events and yields text, reasoning summary and argument deltas,
 * then the same answer `generate` would have returned.
 *
 * @example
 * import { createOpenAIResponsesModel } from 'countersign/openai';
 * const model = createOpenAIResponsesModel({ model: 'gpt-5-mini', apiKey: process.env.OPENAI_API_KEY, reasoning: { effort: 'low' } });
 * const agent = createAgent({ name: 'files', model, tools: [deleteFile] });
 */
export function createOpenAIResponsesModel(options: OpenAIResponsesModelOptions): Model {
  parseOptions(optionsSchema, options, 'createOpenAIResponsesModel');
  const store = options.store ?? false;
  const endpoint = openAIEndpoint(options, '/responses');
  const settings = {
    model: options.model,
    store,
    encryptedReasoning: options.encryptedReasoning ?? !store,
    previousResponseId: options.previousResponseId ?? 'off',
    ...(options.reasoning === undefined ? {} : { reasoning: options.reasoning }),
    ...(options.body === undefined ? {} : { body: options.body }),
  };

  return streamingAsAsked(
    {
      modelId: options.model,
      async generate(request: ModelRequest): Promise<ModelResponse> {
        const response = await postToModel(
          endpoint,
          JSON.stringify(responsesRequestBody(settings, request)),
          request.signal,
        );
        return responsesAnswer(await readModelAnswer(response, responseSchema, 'a response'));
      },
      stream(request: ModelRequest): AsyncIterable<ModelStreamPart> {
        const body = JSON.stringify({ ...responsesRequestBody(settings, request), stream: true });
        return responsesStreamParts(streamFromModel(endpoint, body, request.signal));
      },
    },
    options.stream,
  );
}
