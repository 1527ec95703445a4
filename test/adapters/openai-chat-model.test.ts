// A fake OpenAI Chat Completions server on loopback, speaking the real wire format.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { approveAll, ConfigError, createAgent, defineTool } from 'countersign';
import { createOpenAIChatModel, ModelProviderError } from 'countersign/openai';
import { expectCredentialsRefused, withCredentials } from '../support/credential-urls.js';

interface Received {
  headers: IncomingMessage['headers'];
  body: any;
}

let server: Server;
let baseUrl: string;
const received: Received[] = [];
let answers: { status: number; body: unknown; headers?: Record<string, string> }[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk) => (text += chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body: JSON.parse(text) });
      const answer = answers.shift() ?? { status: 500, body: { error: 'no answer scripted' } };
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
  body: { id: 'chatcmpl-1', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: 'stop' }] },
});

describe('createOpenAIChatModel', () => {
  it('drives a full approval round trip over the Chat Completions wire format', async () => {
    received.length = 0;
    answers = [
      completion({ content: null, tool_calls: [{ id: 'call_abc', type: 'function', function: { name: 'delete_file', arguments: '{"path":"/tmp/x"}' } }] }),
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
    expect(paused.pendingApprovals[0]).toMatchObject({ toolCallId: 'call_abc', toolName: 'delete_file', args: { path: '/tmp/x' } });
    const done = await agent.execute(approveAll(paused, 'alice', { agent }));
    expect(done.output).toBe('Deleted /tmp/x.');
    expect(deleted).toEqual(['/tmp/x']);

    expect(received[0]!.headers.authorization).toBe('Bearer sk-test');
    expect(received[0]!.body).toMatchObject({
      model: 'gpt-test',
      temperature: 0,
      messages: [
        { role: 'system', content: 'You manage files.' },
        { role: 'user', content: 'remove /tmp/x' },
      ],
      tools: [{ type: 'function', function: { name: 'delete_file', description: 'Delete a file', parameters: { type: 'object', properties: { path: { type: 'string' } } } } }],
    });
    expect(received[1]!.body.messages.slice(2)).toEqual([
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_abc', type: 'function', function: { name: 'delete_file', arguments: '{"path":"/tmp/x"}' } }] },
      { role: 'tool', tool_call_id: 'call_abc', content: '{"deleted":"/tmp/x"}' },
    ]);
  });

  it('passes arguments that are not JSON on, so the tool schema turns them into an error the model reads', async () => {
    answers = [
      completion({ content: '', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'delete_file', arguments: '{"path": ' } }] }),
      completion({ content: 'sorry' }),
    ];
    const agent = createAgent({
      name: 'openai-bad-args',
      model: createOpenAIChatModel({ model: 'gpt-test', baseUrl }),
      tools: [defineTool({ name: 'delete_file', description: 'Delete', input: z.object({ path: z.string() }), execute: () => 'never' })],
    });
    const done = await agent.execute({ input: 'go' });
    expect(done.status).toBe('completed');
    expect(JSON.parse(done.messages.find((message) => message.role === 'tool')!.content)).toMatchObject({ status: 'error', error: expect.stringContaining('Invalid arguments') });
  });

  it('retries 429 and 5xx, honouring Retry-After, then gives up with ModelProviderError', async () => {
    answers = [{ status: 429, body: { error: 'slow down' }, headers: { 'retry-after': '0' } }, completion({ content: 'hello' })];
    const model = createOpenAIChatModel({ model: 'gpt-test', baseUrl });
    expect((await model.generate({ messages: [{ role: 'user', content: 'hi' }], tools: [] })).message).toEqual({ role: 'assistant', content: 'hello' });

    answers = [
      { status: 503, body: {} },
      { status: 503, body: {} },
      { status: 503, body: { error: 'down' } },
    ];
    const failing = model.generate({ messages: [{ role: 'user', content: 'hi' }], tools: [] });
    await expect(failing).rejects.toBeInstanceOf(ModelProviderError);
    answers = [{ status: 401, body: { error: 'bad key' } }];
    const error = (await model.generate({ messages: [], tools: [] }).catch((thrown: unknown) => thrown)) as ModelProviderError;
    expect(error).toMatchObject({ status: 401, message: 'The model provider answered HTTP 401 (authentication).' });
    // What the provider wrote stays on the error, out of its message and of JSON.stringify.
    expect(error.detail).toContain('bad key');
    expect(JSON.stringify(error)).not.toContain('bad key');
  });

  it('a provider failure fails the run with a public error, not a crash; the provider body goes to onError only', async () => {
    const key = 'sk-live-KEY0123456789abcdef';
    answers = [{ status: 401, body: { error: { message: `Incorrect API key provided: ${key}. Find your key at https://platform.openai.com/account/api-keys.` } } }];
    const agent = createAgent({ name: 'openai-fail', model: createOpenAIChatModel({ model: 'gpt-test', baseUrl, apiKey: key, maxRetries: 0 }), tools: [] });
    const reported: unknown[] = [];
    const failed = await agent.execute({ input: 'go' }, { onError: (error) => reported.push(error) });
    expect(failed).toMatchObject({ status: 'failed', stopReason: 'error', error: { code: 'model_error', message: 'The model call failed: HTTP 401 (authentication).' } });
    expect(JSON.stringify(failed)).not.toContain(key);
    expect(reported).toHaveLength(1);
    expect((reported[0] as ModelProviderError).detail).toContain(`Incorrect API key provided: ${key}`);
  });

  it('keeps an answer that is not a chat completion out of the message', async () => {
    answers = [{ status: 200, body: { echo: 'sk-live-KEY0123456789abcdef' } }];
    const model = createOpenAIChatModel({ model: 'gpt-test', baseUrl, maxRetries: 0 });
    const error = (await model.generate({ messages: [], tools: [] }).catch((thrown: unknown) => thrown)) as ModelProviderError;
    expect(error).toBeInstanceOf(ModelProviderError);
    expect(error.message).toBe('The model provider answered HTTP 200 with something that is not a chat completion.');
    expect(error.detail).toContain('sk-live-KEY');
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
