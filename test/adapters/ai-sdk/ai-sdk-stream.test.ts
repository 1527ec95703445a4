// createAiSdkModel's stream with the real @ai-sdk/anthropic against a loopback server that streams the Anthropic
// Messages API's server-sent events (https://docs.anthropic.com/en/docs/build-with-claude/streaming): the same
// answer, streamed and not, must give the same stored turn.
import { createAnthropic } from '@ai-sdk/anthropic';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createAgent,
  defineTool,
  type Message,
  type ModelResponse,
  type ModelStreamPart,
  type RunEvent,
  type ToolSpec,
} from 'countersign';
import { createAiSdkModel, ModelProviderError } from 'countersign/ai-sdk';
import { type AnthropicAnswer, anthropicEvents, anthropicMessage } from './anthropic-wire.js';
import { startFakeProviderApi } from './fake-provider-api.js';
import { useFake } from '../../support/model-fixtures.js';

const apis = useFake(startFakeProviderApi);

const KEY = 'sk-ant-api03-stream-secret';
const SIGNATURE = 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds+/=';
const REDACTED = 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP';
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
const messages: Message[] = [
  { role: 'system', content: 'You manage files.' },
  { role: 'user', content: 'Delete /tmp/a and /etc/b' },
];

const answer: AnthropicAnswer = {
  id: 'msg_01Stream',
  content: [
    { type: 'thinking', thinking: 'Two files; /etc needs a person.', signature: SIGNATURE },
    { type: 'redacted_thinking', data: REDACTED },
    { type: 'text', text: 'Deleting both files.' },
    { type: 'tool_use', id: 'toolu_01A', name: 'delete_file', input: { path: '/tmp/a' } },
    { type: 'tool_use', id: 'toolu_01B', name: 'delete_file', input: { path: '/etc/b' } },
  ],
  stopReason: 'tool_use',
  usage: { input_tokens: 50, output_tokens: 90 },
};
const text = (id: string, words: string): AnthropicAnswer => ({
  id,
  content: [{ type: 'text', text: words }],
  stopReason: 'end_turn',
  usage: { input_tokens: 20, output_tokens: 5 },
});

const model = (maxRetries?: number) =>
  createAiSdkModel({
    model: createAnthropic({ baseURL: apis.current.baseURL, apiKey: KEY })('claude-sonnet-4-5'),
    providerOptions: { anthropic: { thinking: { type: 'enabled', budgetTokens: 2000 } } },
    maxOutputTokens: 1000,
    ...(maxRetries === undefined ? {} : { maxRetries }),
  });

async function collect(parts: AsyncIterable<ModelStreamPart>): Promise<ModelStreamPart[]> {
  const seen: ModelStreamPart[] = [];
  for await (const part of parts) seen.push(part);
  return seen;
}

describe('createAiSdkModel streaming over @ai-sdk/anthropic', () => {
  it('yields text, reasoning and tool input as they arrive, then a finish equal to the generated answer, signatures included', async () => {
    apis.current.script(anthropicMessage(answer), anthropicEvents(answer));
    const generated = await model().generate({ messages, tools: [deleteFile] });
    const streamed = await collect(model().stream!({ messages, tools: [deleteFile] }));

    expect(streamed.slice(0, -1)).toEqual([
      { type: 'reasoning-delta', delta: 'Two files; /etc ' },
      { type: 'reasoning-delta', delta: 'needs a person.' },
      { type: 'text-delta', delta: 'Deleting b' },
      { type: 'text-delta', delta: 'oth files.' },
      { type: 'tool-call-delta', toolCallId: 'toolu_01A', toolName: 'delete_file', argsDelta: '{"path":"' },
      { type: 'tool-call-delta', toolCallId: 'toolu_01A', toolName: 'delete_file', argsDelta: '/tmp/a"}' },
      { type: 'tool-call-delta', toolCallId: 'toolu_01B', toolName: 'delete_file', argsDelta: '{"path":"' },
      { type: 'tool-call-delta', toolCallId: 'toolu_01B', toolName: 'delete_file', argsDelta: '/etc/b"}' },
    ]);
    const finish = streamed.at(-1) as { type: 'finish'; response: ModelResponse };
    expect(finish.type).toBe('finish');
    expect(finish.response.message.parts).toEqual([
      {
        type: 'reasoning',
        text: 'Two files; /etc needs a person.',
        providerMetadata: { anthropic: { signature: SIGNATURE } },
      },
      { type: 'reasoning', text: '', providerMetadata: { anthropic: { redactedData: REDACTED } } },
      { type: 'text', text: 'Deleting both files.' },
    ]);
    expect(finish.response).toEqual(generated);

    // The same request, asked to stream (@ai-sdk/anthropic also asks for the tool input as it is written).
    const [generateRequest, streamRequest] = apis.current.requests;
    expect(streamRequest!.json).toEqual({
      ...generateRequest!.json,
      stream: true,
      tools: generateRequest!.json.tools.map((tool: object) => ({ ...tool, eager_input_streaming: true })),
    });
  });

  it('sends the streamed thinking back byte for byte after a JSON round trip of the history', async () => {
    apis.current.script(anthropicEvents(answer), anthropicMessage(text('msg_02', 'Done.')));
    const finish = (await collect(model().stream!({ messages, tools: [deleteFile] }))).at(-1) as {
      type: 'finish';
      response: ModelResponse;
    };
    const history = JSON.parse(
      JSON.stringify([
        ...messages,
        finish.response.message,
        {
          role: 'tool',
          toolCallId: 'toolu_01A',
          content: 'deleted /tmp/a',
          parts: [{ type: 'tool-result', toolCallId: 'toolu_01A', toolName: 'delete_file', outcome: 'ok' }],
        },
        {
          role: 'tool',
          toolCallId: 'toolu_01B',
          content: 'denied: not /etc',
          parts: [{ type: 'tool-result', toolCallId: 'toolu_01B', toolName: 'delete_file', outcome: 'denied' }],
        },
      ]),
    ) as Message[];
    await model().generate({ messages: history, tools: [deleteFile] });

    const next = apis.current.requests[1]!;
    expect(next.body).toContain(
      `{"type":"thinking","thinking":"Two files; /etc needs a person.","signature":"${SIGNATURE}"},{"type":"redacted_thinking","data":"${REDACTED}"}`,
    );
    expect(next.json.messages[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'Two files; /etc needs a person.', signature: SIGNATURE },
        { type: 'redacted_thinking', data: REDACTED },
        { type: 'text', text: 'Deleting both files.' },
        { type: 'tool_use', id: 'toolu_01A', name: 'delete_file', input: { path: '/tmp/a' } },
        { type: 'tool_use', id: 'toolu_01B', name: 'delete_file', input: { path: '/etc/b' } },
      ],
    });
  });

  it('retries a refused opening after the wait it asks for, then streams', async () => {
    apis.current.script(
      {
        status: 429,
        headers: { 'retry-after': '0' },
        body: {
          type: 'error',
          error: { type: 'rate_limit_error', message: 'Number of requests has exceeded your rate limit' },
        },
      },
      anthropicEvents(text('msg_02', 'Hello there.')),
    );
    const parts = await collect(model().stream!({ messages, tools: [] }));
    expect(apis.current.requests).toHaveLength(2);
    expect(parts.map((part) => part.type)).toEqual(['text-delta', 'text-delta', 'finish']);
    expect((parts.at(-1) as { response: ModelResponse }).response.message.content).toBe('Hello there.');
  });

  it('ends with a ModelProviderError, without the key, when the provider reports an error mid-answer', async () => {
    const { events } = anthropicEvents(text('msg_03', 'Deleting both files.'));
    apis.current.script({
      events: [
        ...events.slice(0, 4),
        { event: 'error', data: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } },
      ],
    });
    const seen: ModelStreamPart[] = [];
    const failure = await (async () => {
      for await (const part of model(0).stream!({ messages, tools: [] })) seen.push(part);
    })().catch((error: unknown) => error);

    expect(seen).toEqual([{ type: 'text-delta', delta: 'Deleting b' }]);
    expect(failure).toBeInstanceOf(ModelProviderError);
    const error = failure as ModelProviderError;
    expect(error.message).toBe('The model provider stopped its answer with an error.');
    expect(error.detail).toContain('overloaded_error');
    for (const shown of [error.message, JSON.stringify(error), error.stack ?? '', error.detail])
      expect(shown).not.toContain(KEY);
    expect(apis.current.requests).toHaveLength(1);
  });

  it('stops at an abort mid-answer and rejects with the abort itself, not a provider error', async () => {
    const { events } = anthropicEvents(text('msg_04', 'Deleting both files.'));
    apis.current.script({ events: events.slice(0, 4), open: true });
    const controller = new AbortController();
    const seen: ModelStreamPart[] = [];
    const failure = await (async () => {
      for await (const part of model().stream!({ messages, tools: [], signal: controller.signal })) {
        seen.push(part);
        controller.abort();
      }
    })().catch((error: unknown) => error);

    expect(seen).toEqual([{ type: 'text-delta', delta: 'Deleting b' }]);
    expect(failure).not.toBeInstanceOf(ModelProviderError);
    expect((failure as Error).name).toBe('AbortError');
    expect(apis.current.requests).toHaveLength(1);
  });

  it('drives a run: the deltas reach onEvent as model-delta events and the paused run holds the streamed turn', async () => {
    apis.current.script(anthropicEvents(answer));
    const events: RunEvent[] = [];
    const agent = createAgent({
      name: 'streamed-files',
      instructions: 'You manage files.',
      model: model(),
      tools: [
        defineTool({
          name: 'delete_file',
          description: 'Delete a file',
          input: z.object({ path: z.string() }),
          needsApproval: true,
          execute: async () => 'deleted',
        }),
      ],
      onEvent: (event) => {
        events.push(event);
      },
    });
    const paused = await agent.execute({ input: 'Delete /tmp/a and /etc/b' });

    expect(paused.status).toBe('awaitingApproval');
    expect(paused.pendingApprovals.map((request) => request.toolCallId)).toEqual(['toolu_01A', 'toolu_01B']);
    const deltas = events.filter((event) => event.type === 'model-delta');
    expect(deltas.map((event) => [event.kind, event.delta])).toEqual([
      ['reasoning', 'Two files; /etc '],
      ['reasoning', 'needs a person.'],
      ['text', 'Deleting b'],
      ['text', 'oth files.'],
      ['tool-call', ''],
      ['tool-call', ''],
      ['tool-call', ''],
      ['tool-call', ''],
    ]);
    const assistant = paused.messages.find((entry) => entry.role === 'assistant');
    expect(assistant?.parts?.[0]).toEqual({
      type: 'reasoning',
      text: 'Two files; /etc needs a person.',
      providerMetadata: { anthropic: { signature: SIGNATURE } },
    });
  });
});

describe('createAiSdkModel streaming a v2 model', () => {
  it('maps v2 parts: deltas of its own tool calls only, the latest metadata of a part, flat usage, and files and calls in the finish', async () => {
    const parts = [
      { type: 'stream-start', warnings: [] },
      { type: 'response-metadata', id: 'resp-1', modelId: 'm-1' },
      { type: 'raw', rawValue: { anything: true } },
      {
        type: 'reasoning-start',
        id: 'r1',
        providerMetadata: { openai: { itemId: 'rs_1', reasoningEncryptedContent: null } },
      },
      { type: 'reasoning-delta', id: 'r1', delta: 'Checking.' },
      {
        type: 'reasoning-end',
        id: 'r1',
        providerMetadata: { openai: { itemId: 'rs_1', reasoningEncryptedContent: 'gAAAA-encrypted' } },
      },
      { type: 'tool-input-start', id: 'ws_1', toolName: 'web_search', providerExecuted: true },
      { type: 'tool-input-delta', id: 'ws_1', delta: '{"query":"x"}' },
      { type: 'tool-input-end', id: 'ws_1' },
      { type: 'tool-call', toolCallId: 'ws_1', toolName: 'web_search', input: '{"query":"x"}', providerExecuted: true },
      { type: 'text-start', id: 't1' },
      { type: 'text-delta', id: 't1', delta: 'Here it is.' },
      { type: 'text-end', id: 't1' },
      { type: 'file', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
      { type: 'tool-input-start', id: 'call_1', toolName: 'delete_file' },
      { type: 'tool-input-delta', id: 'call_1', delta: '{"path":"/tmp/a"}' },
      { type: 'tool-input-end', id: 'call_1' },
      { type: 'tool-call', toolCallId: 'call_1', toolName: 'delete_file', input: '{"path":"/tmp/a"}' },
      {
        type: 'finish',
        finishReason: 'tool-calls',
        usage: { inputTokens: 12, outputTokens: 7, totalTokens: 19, reasoningTokens: 3 },
      },
    ];
    const model = handMadeV2(parts);
    const streamed = await collect(
      createAiSdkModel({ model: model as never }).stream!({ messages, tools: [deleteFile] }),
    );

    expect(streamed.slice(0, -1)).toEqual([
      { type: 'reasoning-delta', delta: 'Checking.' },
      { type: 'text-delta', delta: 'Here it is.' },
      { type: 'tool-call-delta', toolCallId: 'call_1', toolName: 'delete_file', argsDelta: '{"path":"/tmp/a"}' },
    ]);
    expect(streamed.at(-1)).toEqual({
      type: 'finish',
      response: {
        message: {
          role: 'assistant',
          content: 'Here it is.',
          parts: [
            {
              type: 'reasoning',
              text: 'Checking.',
              providerMetadata: { openai: { itemId: 'rs_1', reasoningEncryptedContent: 'gAAAA-encrypted' } },
            },
            { type: 'text', text: 'Here it is.' },
            { type: 'file', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
          ],
          toolCalls: [{ id: 'call_1', name: 'delete_file', args: { path: '/tmp/a' } }],
          usage: { inputTokens: 12, outputTokens: 7, reasoningTokens: 3 },
          finishReason: 'tool-calls',
        },
        usage: { inputTokens: 12, outputTokens: 7, reasoningTokens: 3 },
        finishReason: 'tool-calls',
      },
    });
  });

  it('fails with a ModelProviderError when the stream ends before its finish part', async () => {
    const model = handMadeV2([
      { type: 'text-start', id: 't1' },
      { type: 'text-delta', id: 't1', delta: 'Half an ans' },
    ]);
    const failure = await collect(createAiSdkModel({ model: model as never }).stream!({ messages, tools: [] })).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(ModelProviderError);
    expect((failure as ModelProviderError).message).toBe("The model provider's answer ended before it was finished.");
  });
});

/** A minimal hand-made v2 language model that streams `parts` (doGenerate is never called). */
function handMadeV2(parts: readonly unknown[]) {
  return {
    specificationVersion: 'v2',
    provider: 'hand-made',
    modelId: 'm-1',
    supportedUrls: {},
    doGenerate: async () => {
      throw new Error('not used');
    },
    doStream: async () => ({
      stream: new ReadableStream({
        start(controller) {
          for (const part of parts) controller.enqueue(part);
          controller.close();
        },
      }),
    }),
  };
}
