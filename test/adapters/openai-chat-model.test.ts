// A fake OpenAI Chat Completions server on loopback, speaking the real wire format: a request with `stream: true`
// gets the scripted completion as OpenAI streams it (chat.completion.chunk events, content and arguments in pieces,
// a usage chunk when stream_options.include_usage asks, then data: [DONE]), or cut short by an error chunk.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { approveAll, ConfigError, createAgent, defineTool, type ModelStreamPart } from 'countersign';
import { createOpenAIChatModel, ModelProviderError } from 'countersign/openai';
import { expectCredentialsRefused, withCredentials } from '../support/credential-urls.js';
import { CHART_URL, PNG, richToolHistory } from '../support/rich-tool-history.js';

interface Received {
  headers: IncomingMessage['headers'];
  body: any;
}

let server: Server;
let baseUrl: string;
const received: Received[] = [];
let answers: { status: number; body: unknown; headers?: Record<string, string>; errorAfter?: number }[] = [];

/** Text in pieces as the API streams it (at least two when it can). */
const pieces = (text: string) => {
  const size = Math.max(1, Math.ceil(text.length / 3));
  return Array.from({ length: Math.ceil(text.length / size) }, (_, index) =>
    text.slice(index * size, (index + 1) * size),
  );
};

/** The chunks OpenAI streams for `completion` (its first choice), with a last usage chunk when `withUsage`. */
function chunksOf(completion: any, withUsage: boolean): unknown[] {
  const { message, finish_reason } = completion.choices[0];
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
    id: completion.id,
    object: 'chat.completion.chunk',
    created: 1_764_000_000,
    model: 'gpt-test',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...(withUsage ? { usage: null } : {}),
  });
  const chunks: unknown[] = [chunk({ role: 'assistant', content: '', refusal: null })];
  chunks.push(...pieces(message.content ?? '').map((content) => chunk({ content })));
  for (const [index, call] of (message.tool_calls ?? []).entries()) {
    chunks.push(
      chunk({
        tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }],
      }),
    );
    chunks.push(
      ...pieces(call.function.arguments).map((args) =>
        chunk({ tool_calls: [{ index, function: { arguments: args } }] }),
      ),
    );
  }
  chunks.push(chunk({}, finish_reason));
  if (withUsage)
    chunks.push({
      ...(chunk({}) as object),
      choices: [],
      usage: completion.usage ?? { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    });
  return chunks;
}

beforeAll(async () => {
  server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk) => (text += chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body: JSON.parse(text) });
      const answer = answers.shift() ?? { status: 500, body: { error: 'no answer scripted' } };
      const json = received.at(-1)!.body;
      if (json.stream === true && answer.status === 200) {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        const chunks = chunksOf(answer.body, json.stream_options?.include_usage === true);
        const sent =
          answer.errorAfter === undefined
            ? chunks
            : [
                ...chunks.slice(0, answer.errorAfter),
                { error: { message: 'The server had an error.', type: 'server_error', code: null } },
              ];
        for (const chunk of sent) response.write(`data: ${JSON.stringify(chunk)}\n\n`);
        return response.end(answer.errorAfter === undefined ? 'data: [DONE]\n\n' : '');
      }
      response.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      response.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const completion = (message: Record<string, unknown>) => ({
  status: 200,
  body: {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: 'stop' }],
  },
});

describe('createOpenAIChatModel', () => {
  it('drives a full approval round trip over the Chat Completions wire format', async () => {
    received.length = 0;
    answers = [
      completion({
        content: null,
        tool_calls: [
          { id: 'call_abc', type: 'function', function: { name: 'delete_file', arguments: '{"path":"/tmp/x"}' } },
        ],
      }),
      completion({ content: 'Deleted /tmp/x.' }),
    ];
    const deleted: string[] = [];
    const deleteFile = defineTool({
      name: 'delete_file',
      description: 'Delete a file',
      input: z.object({ path: z.string() }),
      execute: ({ path }) => {
        deleted.push(path);
        return { deleted: path };
      },
    });
    const agent = createAgent({
      name: 'openai-round-trip',
      instructions: 'You manage files.',
      model: createOpenAIChatModel({ model: 'gpt-test', apiKey: 'sk-test', baseUrl, body: { temperature: 0 } }),
      tools: [deleteFile],
    });
    const paused = await agent.execute({ input: 'remove /tmp/x' });
    expect(paused.pendingApprovals[0]).toMatchObject({
      toolCallId: 'call_abc',
      toolName: 'delete_file',
      args: { path: '/tmp/x' },
    });
    const done = await agent.execute(approveAll(paused, 'alice', { agent }));
    expect(done.output).toBe('Deleted /tmp/x.');
    expect(deleted).toEqual(['/tmp/x']);

    expect(received[0]!.headers.authorization).toBe('Bearer sk-test');
    // The model streams (it has `stream`), asking for usage in the last chunk.
    expect(received[0]!.body).toMatchObject({
      model: 'gpt-test',
      temperature: 0,
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: 'system', content: 'You manage files.' },
        { role: 'user', content: 'remove /tmp/x' },
      ],
      tools: [
        {
          type: 'function',
          function: {
            name: 'delete_file',
            description: 'Delete a file',
            parameters: { type: 'object', properties: { path: { type: 'string' } } },
          },
        },
      ],
    });
    expect(received[1]!.body.messages.slice(2)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_abc', type: 'function', function: { name: 'delete_file', arguments: '{"path":"/tmp/x"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_abc', content: '{"deleted":"/tmp/x"}' },
    ]);
  });

  it('passes arguments that are not JSON on, so the tool schema turns them into an error the model reads', async () => {
    answers = [
      completion({
        content: '',
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'delete_file', arguments: '{"path": ' } }],
      }),
      completion({ content: 'sorry' }),
    ];
    const agent = createAgent({
      name: 'openai-bad-args',
      model: createOpenAIChatModel({ model: 'gpt-test', baseUrl }),
      tools: [
        defineTool({
          name: 'delete_file',
          description: 'Delete',
          input: z.object({ path: z.string() }),
          execute: () => 'never',
        }),
      ],
    });
    const done = await agent.execute({ input: 'go' });
    expect(done.status).toBe('completed');
    expect(JSON.parse(done.messages.find((message) => message.role === 'tool')!.content)).toMatchObject({
      status: 'error',
      error: expect.stringContaining('Invalid arguments'),
    });
  });

  it('retries 429 and 5xx, honouring Retry-After, then gives up with ModelProviderError', async () => {
    answers = [
      { status: 429, body: { error: 'slow down' }, headers: { 'retry-after': '0' } },
      completion({ content: 'hello' }),
    ];
    const model = createOpenAIChatModel({ model: 'gpt-test', baseUrl });
    expect((await model.generate({ messages: [{ role: 'user', content: 'hi' }], tools: [] })).message).toEqual({
      role: 'assistant',
      content: 'hello',
    });

    answers = [
      { status: 503, body: {} },
      { status: 503, body: {} },
      { status: 503, body: { error: 'down' } },
    ];
    const failing = model.generate({ messages: [{ role: 'user', content: 'hi' }], tools: [] });
    await expect(failing).rejects.toBeInstanceOf(ModelProviderError);
    answers = [{ status: 401, body: { error: 'bad key' } }];
    const error = (await model
      .generate({ messages: [], tools: [] })
      .catch((thrown: unknown) => thrown)) as ModelProviderError;
    expect(error).toMatchObject({ status: 401, message: 'The model provider answered HTTP 401 (authentication).' });
    // What the provider wrote stays on the error, out of its message and of JSON.stringify.
    expect(error.detail).toContain('bad key');
    expect(JSON.stringify(error)).not.toContain('bad key');
  });

  it('a provider failure fails the run with a public error, not a crash; the provider body goes to onError only', async () => {
    const key = 'sk-live-KEY0123456789abcdef';
    answers = [
      {
        status: 401,
        body: {
          error: {
            message: `Incorrect API key provided: ${key}. Find your key at https://platform.openai.com/account/api-keys.`,
          },
        },
      },
    ];
    const agent = createAgent({
      name: 'openai-fail',
      model: createOpenAIChatModel({ model: 'gpt-test', baseUrl, apiKey: key, maxRetries: 0 }),
      tools: [],
    });
    const reported: unknown[] = [];
    const failed = await agent.execute({ input: 'go' }, { onError: (error) => reported.push(error) });
    expect(failed).toMatchObject({
      status: 'failed',
      stopReason: 'error',
      error: { code: 'model_error', message: 'The model call failed: HTTP 401 (authentication).' },
    });
    expect(JSON.stringify(failed)).not.toContain(key);
    expect(reported).toHaveLength(1);
    expect((reported[0] as ModelProviderError).detail).toContain(`Incorrect API key provided: ${key}`);
  });

  it('keeps an answer that is not a chat completion out of the message', async () => {
    answers = [{ status: 200, body: { echo: 'sk-live-KEY0123456789abcdef' } }];
    const model = createOpenAIChatModel({ model: 'gpt-test', baseUrl, maxRetries: 0 });
    const error = (await model
      .generate({ messages: [], tools: [] })
      .catch((thrown: unknown) => thrown)) as ModelProviderError;
    expect(error).toBeInstanceOf(ModelProviderError);
    expect(error.message).toBe('The model provider answered HTTP 200 with something that is not a chat completion.');
    expect(error.detail).toContain('sk-live-KEY');
  });

  it('sends the files tools returned in a user message after the tool messages: images as image_url parts, other files named in text', async () => {
    received.length = 0;
    answers = [completion({ content: 'Seen.' })];
    await createOpenAIChatModel({ model: 'gpt-test', baseUrl }).generate({
      messages: await richToolHistory(),
      tools: [],
    });
    expect(received[0]!.body.messages.slice(2)).toEqual([
      { role: 'tool', tool_call_id: 'call_shot', content: 'Screenshot of https://example.com' },
      { role: 'tool', tool_call_id: 'call_report', content: 'The report and its chart' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Files the tool call call_shot returned:' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
          { type: 'text', text: 'Files the tool call call_report returned:' },
          { type: 'text', text: '[file: application/pdf report.pdf]' },
          { type: 'image_url', image_url: { url: CHART_URL } },
        ],
      },
    ]);
  });

  it('returns what the call used and why it stopped', async () => {
    answers = [
      {
        status: 200,
        body: {
          id: 'chatcmpl-2',
          object: 'chat.completion',
          choices: [{ index: 0, message: { role: 'assistant', content: 'The first half' }, finish_reason: 'length' }],
          usage: {
            prompt_tokens: 40,
            completion_tokens: 100,
            total_tokens: 140,
            prompt_tokens_details: { cached_tokens: 32 },
            completion_tokens_details: { reasoning_tokens: 64 },
          },
        },
      },
    ];
    const model = createOpenAIChatModel({ model: 'gpt-test', baseUrl });
    expect(await model.generate({ messages: [{ role: 'user', content: 'write a lot' }], tools: [] })).toStrictEqual({
      message: { role: 'assistant', content: 'The first half' },
      usage: { inputTokens: 40, outputTokens: 100, reasoningTokens: 64, cachedInputTokens: 32 },
      finishReason: 'length',
    });
  });

  it('streams deltas that add up to the answer, and finishes with exactly what generate returns', async () => {
    const answer = {
      status: 200,
      body: {
        id: 'chatcmpl-3',
        object: 'chat.completion',
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: 'Deleting "both" ⚠️ now.',
              tool_calls: [
                { id: 'call_1', type: 'function', function: { name: 'delete_file', arguments: '{"path":"/tmp/a"}' } },
                { id: 'call_2', type: 'function', function: { name: 'delete_file', arguments: '{"path":"/tmp/b"}' } },
              ],
            },
            finish_reason: 'tool_calls',
          },
        ],
        usage: {
          prompt_tokens: 40,
          completion_tokens: 30,
          total_tokens: 70,
          prompt_tokens_details: { cached_tokens: 32 },
          completion_tokens_details: { reasoning_tokens: 0 },
        },
      },
    };
    answers = [answer, answer];
    received.length = 0;
    const model = createOpenAIChatModel({ model: 'gpt-test', baseUrl });
    const request = { messages: [{ role: 'user' as const, content: 'clear both' }], tools: [] };
    const generated = await model.generate(request);
    const parts: ModelStreamPart[] = [];
    for await (const part of model.stream!(request)) parts.push(part);

    expect(parts.at(-1)).toStrictEqual({ type: 'finish', response: generated });
    expect(generated.message.toolCalls).toHaveLength(2);
    expect(parts.flatMap((part) => (part.type === 'text-delta' ? [part.delta] : [])).join('')).toBe(
      'Deleting "both" ⚠️ now.',
    );
    const args = (id: string) =>
      parts
        .flatMap((part) => (part.type === 'tool-call-delta' && part.toolCallId === id ? [part.argsDelta] : []))
        .join('');
    expect([args('call_1'), args('call_2')]).toEqual(['{"path":"/tmp/a"}', '{"path":"/tmp/b"}']);
    expect(received[1]!.body).toStrictEqual({
      ...received[0]!.body,
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it('a stream cut short by an error chunk is a ModelProviderError, not replayed', async () => {
    answers = [{ ...completion({ content: 'a long answer that breaks' }), errorAfter: 2 }];
    received.length = 0;
    const model = createOpenAIChatModel({ model: 'gpt-test', baseUrl, maxRetries: 2 });
    const seen: ModelStreamPart[] = [];
    const error = await (async () => {
      for await (const part of model.stream!({ messages: [{ role: 'user', content: 'hi' }], tools: [] }))
        seen.push(part);
    })().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelProviderError);
    expect((error as Error).message).toContain('server_error');
    expect(seen.map((part) => part.type)).toEqual(['text-delta']);
    expect(received).toHaveLength(1);
  });

  it('refuses bad options with a ConfigError', () => {
    expect(() => createOpenAIChatModel({ model: '' })).toThrow(ConfigError);
    expect(() => createOpenAIChatModel({ model: 'm', baseUrl: 'not a url' })).toThrow(/baseUrl/);
  });

  it('refuses a baseUrl with a user name and password, pointing at apiKey or headers instead', () => {
    expectCredentialsRefused(
      () => createOpenAIChatModel({ model: 'm', baseUrl: withCredentials('https://llm.example.com/v1') }),
      'baseUrl',
      /Put the credential in apiKey or headers/,
    );
  });
});
