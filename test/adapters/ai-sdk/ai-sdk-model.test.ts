// createAiSdkModel with the real @ai-sdk/anthropic and @ai-sdk/openai packages, pointed at a loopback server
// answering in the providers' documented JSON, and with hand-made v2 and unknown-version model objects.
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { describe, expect, it } from 'vitest';
import { ConfigError, type Message, type ToolSpec } from 'countersign';
import { createAiSdkModel, ModelProviderError } from 'countersign/ai-sdk';
import { freePort } from '../../support/free-port.js';
import { startFakeProviderApi } from './fake-provider-api.js';
import { useFake } from '../../support/model-fixtures.js';

const apis = useFake(startFakeProviderApi);

const ANTHROPIC_KEY = 'sk-ant-api03-secret-key';
const deleteFile: ToolSpec = {
  name: 'delete_file',
  description: 'Delete a file',
  parameters: {
    type: 'object',
    properties: { path: { type: 'string' } },
    required: ['path'],
    additionalProperties: false,
  },
};
const SIGNATURE = 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds+/=';
const REDACTED = 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP';

/** An Anthropic Messages API answer (https://docs.anthropic.com/en/api/messages). */
const anthropicMessage = (
  content: unknown[],
  stopReason: string,
  usage: Record<string, number> = { input_tokens: 1, output_tokens: 1 },
) => ({
  body: {
    id: 'msg_01XFDUDYJgAACzvnptvVoYEL',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5-20250929',
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage,
  },
});

const anthropicModel = (options: { maxRetries?: number } = {}) =>
  createAiSdkModel({
    model: createAnthropic({ baseURL: apis.current.baseURL, apiKey: ANTHROPIC_KEY })('claude-sonnet-4-5'),
    providerOptions: { anthropic: { thinking: { type: 'enabled', budgetTokens: 2000 } } },
    maxOutputTokens: 1000,
    ...options,
  });

describe('createAiSdkModel over @ai-sdk/anthropic', () => {
  it('keeps thinking, redacted thinking and tool calls through a JSON round trip and sends them back byte for byte with the tool results in one user turn', async () => {
    apis.current.script(
      anthropicMessage(
        [
          { type: 'thinking', thinking: 'The user wants three files gone; /etc needs care.', signature: SIGNATURE },
          { type: 'redacted_thinking', data: REDACTED },
          { type: 'text', text: 'Deleting the three files.' },
          { type: 'tool_use', id: 'toolu_01A', name: 'delete_file', input: { path: '/tmp/a' } },
          { type: 'tool_use', id: 'toolu_01B', name: 'delete_file', input: { path: '/etc/b' } },
          { type: 'tool_use', id: 'toolu_01C', name: 'delete_file', input: { path: '/tmp/c' } },
        ],
        'tool_use',
        { input_tokens: 50, output_tokens: 120, cache_creation_input_tokens: 0, cache_read_input_tokens: 10 },
      ),
    );
    const model = anthropicModel();
    const start: Message[] = [
      { role: 'system', content: 'You manage files.' },
      { role: 'user', content: 'Delete /tmp/a, /etc/b and /tmp/c' },
    ];
    const answer = await model.generate({ messages: start, tools: [deleteFile] });

    const first = apis.current.requests[0]!;
    expect(first.path).toBe('/v1/messages');
    expect(first.headers['x-api-key']).toBe(ANTHROPIC_KEY);
    expect(first.json).toEqual({
      model: 'claude-sonnet-4-5',
      max_tokens: 3000,
      thinking: { type: 'enabled', budget_tokens: 2000 },
      system: [{ type: 'text', text: 'You manage files.' }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Delete /tmp/a, /etc/b and /tmp/c' }] }],
      tools: [{ name: 'delete_file', description: 'Delete a file', input_schema: deleteFile.parameters }],
    });

    expect(answer.message.content).toBe('Deleting the three files.');
    expect(answer.message.parts).toEqual([
      {
        type: 'reasoning',
        text: 'The user wants three files gone; /etc needs care.',
        providerMetadata: { anthropic: { signature: SIGNATURE } },
      },
      { type: 'reasoning', text: '', providerMetadata: { anthropic: { redactedData: REDACTED } } },
      { type: 'text', text: 'Deleting the three files.' },
    ]);
    expect(answer.message.toolCalls).toEqual([
      { id: 'toolu_01A', name: 'delete_file', args: { path: '/tmp/a' } },
      { id: 'toolu_01B', name: 'delete_file', args: { path: '/etc/b' } },
      { id: 'toolu_01C', name: 'delete_file', args: { path: '/tmp/c' } },
    ]);
    // The AI SDK counts cache reads in the input total.
    expect(answer.usage).toEqual({ inputTokens: 60, outputTokens: 120, cachedInputTokens: 10 });
    expect(answer.finishReason).toBe('tool-calls');
    expect(answer.message.usage).toEqual(answer.usage);

    const stored = JSON.parse(
      JSON.stringify([
        ...start,
        answer.message,
        {
          role: 'tool',
          toolCallId: 'toolu_01A',
          content: 'deleted /tmp/a',
          parts: [{ type: 'tool-result', toolCallId: 'toolu_01A', toolName: 'delete_file', outcome: 'ok' }],
        },
        {
          role: 'tool',
          toolCallId: 'toolu_01B',
          content: 'The approver denied this call: not /etc',
          parts: [{ type: 'tool-result', toolCallId: 'toolu_01B', toolName: 'delete_file', outcome: 'denied' }],
        },
        {
          role: 'tool',
          toolCallId: 'toolu_01C',
          content: '{"error":"EACCES"}',
          parts: [
            {
              type: 'tool-result',
              toolCallId: 'toolu_01C',
              toolName: 'delete_file',
              outcome: 'error',
              output: { error: 'EACCES' },
            },
          ],
        },
      ]),
    ) as Message[];
    apis.current.script(
      anthropicMessage([{ type: 'text', text: 'Deleted /tmp/a; /etc/b was refused; /tmp/c failed.' }], 'end_turn'),
    );
    const final = await model.generate({ messages: stored, tools: [deleteFile] });

    const second = apis.current.requests[1]!;
    expect(second.body).toContain(
      `{"type":"thinking","thinking":"The user wants three files gone; /etc needs care.","signature":"${SIGNATURE}"}`,
    );
    expect(second.body).toContain(`{"type":"redacted_thinking","data":"${REDACTED}"}`);
    expect(second.json.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Delete /tmp/a, /etc/b and /tmp/c' }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'The user wants three files gone; /etc needs care.', signature: SIGNATURE },
          { type: 'redacted_thinking', data: REDACTED },
          { type: 'text', text: 'Deleting the three files.' },
          { type: 'tool_use', id: 'toolu_01A', name: 'delete_file', input: { path: '/tmp/a' } },
          { type: 'tool_use', id: 'toolu_01B', name: 'delete_file', input: { path: '/etc/b' } },
          { type: 'tool_use', id: 'toolu_01C', name: 'delete_file', input: { path: '/tmp/c' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_01A', content: 'deleted /tmp/a' },
          { type: 'tool_result', tool_use_id: 'toolu_01B', content: 'The approver denied this call: not /etc' },
          { type: 'tool_result', tool_use_id: 'toolu_01C', content: '{"error":"EACCES"}', is_error: true },
        ],
      },
    ]);
    expect(final.message.content).toBe('Deleted /tmp/a; /etc/b was refused; /tmp/c failed.');
    expect(final.finishReason).toBe('stop');
  });

  it('retries a 429 after the wait its retry-after asks for, then answers', async () => {
    apis.current.script(
      {
        status: 429,
        headers: { 'retry-after': '0' },
        body: {
          type: 'error',
          error: { type: 'rate_limit_error', message: 'Number of requests has exceeded your rate limit' },
        },
      },
      anthropicMessage([{ type: 'text', text: 'Hello.' }], 'end_turn'),
    );
    const answer = await anthropicModel().generate({ messages: [{ role: 'user', content: 'Hi' }], tools: [] });
    expect(answer.message.content).toBe('Hello.');
    expect(apis.current.requests).toHaveLength(2);
    expect(apis.current.requests[1]!.body).toBe(apis.current.requests[0]!.body);
  });

  it('gives up after maxRetries with a ModelProviderError that names the status', async () => {
    const overloaded = {
      status: 529,
      headers: { 'retry-after': '0' },
      body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
    };
    apis.current.script(overloaded, overloaded);
    const failure = await anthropicModel({ maxRetries: 1 })
      .generate({ messages: [{ role: 'user', content: 'Hi' }], tools: [] })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ModelProviderError);
    expect((failure as ModelProviderError).status).toBe(529);
    expect(apis.current.requests).toHaveLength(2);
  });

  it('does not retry a 401, and its error holds neither the API key nor the request in its message or its serialized fields', async () => {
    const refusal = {
      type: 'error',
      error: { type: 'authentication_error', message: `invalid x-api-key ${ANTHROPIC_KEY}` },
    };
    apis.current.script({ status: 401, body: refusal });
    const failure = (await anthropicModel()
      .generate({ messages: [{ role: 'user', content: 'the secret plan' }], tools: [] })
      .catch((error: unknown) => error)) as ModelProviderError;
    expect(failure).toBeInstanceOf(ModelProviderError);
    expect(failure.status).toBe(401);
    expect(failure.message).toBe('The model provider answered HTTP 401 (authentication).');
    for (const text of [failure.message, JSON.stringify(failure), String(failure.stack)]) {
      expect(text).not.toContain(ANTHROPIC_KEY);
      expect(text).not.toContain('the secret plan');
    }
    expect(failure.detail).toBe(JSON.stringify(refusal));
    expect(apis.current.requests).toHaveLength(1);
  });

  it('reports a provider it cannot reach as a ModelProviderError without a status', async () => {
    const model = createAiSdkModel({
      model: createAnthropic({ baseURL: `http://127.0.0.1:${await freePort()}/v1`, apiKey: ANTHROPIC_KEY })(
        'claude-sonnet-4-5',
      ),
      maxRetries: 0,
    });
    const failure = await model
      .generate({ messages: [{ role: 'user', content: 'Hi' }], tools: [] })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ModelProviderError);
    expect(failure).toMatchObject({
      status: undefined,
      message: 'The model provider could not be called, or its answer could not be read.',
    });
  });

  it('passes an abort through as it is, without a retry', async () => {
    const controller = new AbortController();
    controller.abort();
    const failure = await anthropicModel()
      .generate({ messages: [{ role: 'user', content: 'Hi' }], tools: [], signal: controller.signal })
      .catch((error: unknown) => error);
    expect(failure).not.toBeInstanceOf(ModelProviderError);
    expect((failure as Error).name).toBe('AbortError');
    expect(apis.current.requests.length).toBeLessThanOrEqual(1);
  });
});

describe('createAiSdkModel over @ai-sdk/openai (Responses API)', () => {
  it('keeps encrypted reasoning and item ids, counts reasoning and cached tokens, and sends a failed call back as its output', async () => {
    apis.current.script({
      body: {
        id: 'resp_67ccd2bed1ec8190b14f964abc054267',
        object: 'response',
        created_at: 1741476542,
        status: 'completed',
        model: 'gpt-5',
        error: null,
        incomplete_details: null,
        output: [
          {
            type: 'reasoning',
            id: 'rs_1',
            encrypted_content: 'gAAAAABo-encrypted',
            summary: [{ type: 'summary_text', text: 'Deleting a temp file.' }],
          },
          {
            type: 'message',
            id: 'msg_1',
            status: 'completed',
            role: 'assistant',
            content: [{ type: 'output_text', text: 'On it.', annotations: [] }],
          },
          {
            type: 'function_call',
            id: 'fc_1',
            call_id: 'call_1',
            name: 'delete_file',
            arguments: '{"path":"/tmp/a"}',
            status: 'completed',
          },
        ],
        usage: {
          input_tokens: 40,
          input_tokens_details: { cached_tokens: 8 },
          output_tokens: 30,
          output_tokens_details: { reasoning_tokens: 20 },
          total_tokens: 70,
        },
      },
    });
    const model = createAiSdkModel({
      model: createOpenAI({ baseURL: apis.current.baseURL, apiKey: 'sk-proj-secret' }).responses('gpt-5'),
      providerOptions: { openai: { store: false, include: ['reasoning.encrypted_content'] } },
    });
    const answer = await model.generate({
      messages: [{ role: 'user', content: 'Delete /tmp/a' }],
      tools: [deleteFile],
    });
    expect(apis.current.requests[0]!.path).toBe('/v1/responses');
    expect(apis.current.requests[0]!.json).toEqual({
      model: 'gpt-5',
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'Delete /tmp/a' }] }],
      store: false,
      include: ['reasoning.encrypted_content'],
      tools: [
        { type: 'function', name: 'delete_file', description: 'Delete a file', parameters: deleteFile.parameters },
      ],
    });
    expect(answer.message.parts).toEqual([
      {
        type: 'reasoning',
        text: 'Deleting a temp file.',
        providerMetadata: { openai: { itemId: 'rs_1', reasoningEncryptedContent: 'gAAAAABo-encrypted' } },
      },
      { type: 'text', text: 'On it.', providerMetadata: { openai: { itemId: 'msg_1' } } },
    ]);
    expect(answer.message.toolCalls).toEqual([
      { id: 'call_1', name: 'delete_file', args: { path: '/tmp/a' }, providerMetadata: { openai: { itemId: 'fc_1' } } },
    ]);
    expect(answer.usage).toEqual({ inputTokens: 40, outputTokens: 30, reasoningTokens: 20, cachedInputTokens: 8 });

    const stored = JSON.parse(
      JSON.stringify([
        { role: 'user', content: 'Delete /tmp/a' },
        answer.message,
        {
          role: 'tool',
          toolCallId: 'call_1',
          content: 'EACCES',
          parts: [{ type: 'tool-result', toolCallId: 'call_1', toolName: 'delete_file', outcome: 'error' }],
        },
      ]),
    ) as Message[];
    apis.current.script({
      body: {
        id: 'resp_2',
        object: 'response',
        created_at: 1741476543,
        status: 'completed',
        model: 'gpt-5',
        error: null,
        incomplete_details: null,
        output: [
          {
            type: 'message',
            id: 'msg_2',
            status: 'completed',
            role: 'assistant',
            content: [{ type: 'output_text', text: 'It failed.', annotations: [] }],
          },
        ],
        usage: { input_tokens: 60, output_tokens: 4, total_tokens: 64 },
      },
    });
    await model.generate({ messages: stored, tools: [] });
    expect(apis.current.requests[1]!.json.input).toEqual([
      { role: 'user', content: [{ type: 'input_text', text: 'Delete /tmp/a' }] },
      {
        type: 'reasoning',
        id: 'rs_1',
        encrypted_content: 'gAAAAABo-encrypted',
        summary: [{ type: 'summary_text', text: 'Deleting a temp file.' }],
      },
      { role: 'assistant', content: [{ type: 'output_text', text: 'On it.' }], id: 'msg_1' },
      { type: 'function_call', call_id: 'call_1', name: 'delete_file', arguments: '{"path":"/tmp/a"}' },
      { type: 'function_call_output', call_id: 'call_1', output: 'EACCES' },
    ]);
  });
});

/** A hand-made model of the given specification version that records its calls and answers `result`. */
function handMadeModel(specificationVersion: string, result: unknown) {
  const calls: Record<string, unknown>[] = [];
  return {
    calls,
    model: {
      specificationVersion,
      provider: 'hand-made',
      modelId: 'm-1',
      supportedUrls: {},
      doGenerate: async (options: Record<string, unknown>) => {
        calls.push(options);
        return result;
      },
      doStream: async () => {
        throw new Error('not used');
      },
    },
  };
}

describe('createAiSdkModel with specification v2 and others', () => {
  it('accepts a v2 model: flat usage, a plain finish reason, and a refused call told as an error text (v2 has no execution-denied)', async () => {
    const { model, calls } = handMadeModel('v2', {
      content: [
        { type: 'reasoning', text: 'Thinking.', providerMetadata: { anthropic: { signature: 'sig-v2' } } },
        { type: 'text', text: 'All done.' },
      ],
      finishReason: 'unknown',
      usage: { inputTokens: 12, outputTokens: 7, totalTokens: 19, reasoningTokens: 3, cachedInputTokens: 2 },
      warnings: [],
    });
    const aiModel = createAiSdkModel({ model: model as never, temperature: 0.2 });
    const answer = await aiModel.generate({
      messages: [
        { role: 'user', content: 'Delete /etc/b' },
        { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'delete_file', args: { path: '/etc/b' } }] },
        {
          role: 'tool',
          toolCallId: 'c1',
          content: 'The approver denied this call.',
          parts: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'delete_file', outcome: 'denied' }],
        },
      ],
      tools: [deleteFile],
    });
    expect(calls[0]).toEqual({
      prompt: [
        { role: 'user', content: [{ type: 'text', text: 'Delete /etc/b' }] },
        {
          role: 'assistant',
          content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'delete_file', input: { path: '/etc/b' } }],
        },
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: 'c1',
              toolName: 'delete_file',
              output: { type: 'error-text', value: 'The approver denied this call.' },
            },
          ],
        },
      ],
      tools: [
        { type: 'function', name: 'delete_file', description: 'Delete a file', inputSchema: deleteFile.parameters },
      ],
      temperature: 0.2,
    });
    expect(answer.usage).toEqual({ inputTokens: 12, outputTokens: 7, reasoningTokens: 3, cachedInputTokens: 2 });
    expect(answer.finishReason).toBe('other');
    expect(answer.message.parts?.[0]).toEqual({
      type: 'reasoning',
      text: 'Thinking.',
      providerMetadata: { anthropic: { signature: 'sig-v2' } },
    });
  });

  it('finds the tool name of a result without a tool-result part from the call it answers, and tells it as text', async () => {
    const { model, calls } = handMadeModel('v3', {
      content: [],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: {
        inputTokens: { total: 3, noCache: 3, cacheRead: undefined, cacheWrite: undefined },
        outputTokens: { total: 0, text: 0, reasoning: undefined },
      },
      warnings: [],
    });
    await createAiSdkModel({ model: model as never }).generate({
      messages: [
        { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'read_file', args: { path: '/a' } }] },
        { role: 'tool', toolCallId: 'c1', content: 'contents of a' },
      ],
      tools: [],
    });
    expect((calls[0]!['prompt'] as unknown[])[1]).toEqual({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'c1',
          toolName: 'read_file',
          output: { type: 'text', value: 'contents of a' },
        },
      ],
    });
  });

  it('refuses a model of a specification it does not know, naming it and the ones it supports', () => {
    const { model } = handMadeModel('v9', {});
    expect(() => createAiSdkModel({ model: model as never })).toThrow(ConfigError);
    expect(() => createAiSdkModel({ model: model as never })).toThrow(/specificationVersion "v9".*v2 and v3/);
  });

  it('refuses what is not a language model, and unknown options by name', () => {
    expect(() => createAiSdkModel({ model: 'claude-sonnet-4-5' as never })).toThrow(
      /model must be an AI SDK language model/,
    );
    const { model } = handMadeModel('v3', {});
    expect(() => createAiSdkModel({ model: model as never, temprature: 1 } as never)).toThrow(
      expect.objectContaining({ code: 'unknown_option', message: expect.stringContaining('temprature') }),
    );
  });
});
