// createOpenAIResponsesModel against a fake OpenAI Responses API on loopback: request bodies field by field, reasoning
// items with encrypted content and item ids sent back byte for byte after a pause and a snapshot round trip.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ConfigError,
  createAgent,
  defineTool,
  deserialize,
  serialize,
  withApprovalResponse,
  type Message,
  type ModelDeltaEvent,
} from 'countersign';
import { createOpenAIResponsesModel, ModelProviderError } from 'countersign/openai';
import { expectCredentialsRefused, withCredentials } from '../support/credential-urls.js';
import { freePort } from '../support/free-port.js';
import { OPENAI_KEY, startFakeResponses } from '../support/fake-openai-responses.js';
import { deleteSpec, useFake } from '../support/model-fixtures.js';
import { callItem, messageItem, reasoningItemOf } from '../support/responses-items.js';

const fakes = useFake(startFakeResponses);
const reasoningItem = reasoningItemOf('**Clearing files**\n\nThe user wants both files gone.');

const toolsWire = [
  {
    type: 'function',
    name: 'delete_file',
    description: 'Delete a file',
    parameters: deleteSpec.parameters,
    strict: false,
  },
];
/** A function_call output item as it goes back in: its fields, without the status. */
const sentBack = ({ status: _status, ...item }: Record<string, unknown>) => item;
/** The same, in the order the adapter writes its fields. */
const sentCall = (n: number, path: string) => {
  const { id, call_id, name, arguments: args } = callItem(n, path);
  return { type: 'function_call', call_id, name, arguments: args, id };
};

/** The start of the request after the two calls: the conversation with the reasoning item, both calls and their outputs. */
const followUp = (outputA: string, outputB: string) => ({
  model: 'gpt-5-mini',
  instructions: 'You manage files.',
  input: [
    { role: 'user', content: [{ type: 'input_text', text: 'Clear /tmp/a and /tmp/b' }] },
    {
      type: 'reasoning',
      id: reasoningItem.id,
      summary: reasoningItem.summary,
      encrypted_content: reasoningItem.encrypted_content,
    },
    sentCall(1, '/tmp/a'),
    sentCall(2, '/tmp/b'),
    { type: 'function_call_output', call_id: 'call_Ab1xYz', output: outputA },
    { type: 'function_call_output', call_id: 'call_Ab2xYz', output: outputB },
  ],
});

describe('createOpenAIResponsesModel', () => {
  it('maps a reasoning item and two function calls, then sends them back byte for byte after a JSON round trip with an error and a denial', async () => {
    const model = createOpenAIResponsesModel({
      model: 'gpt-5-mini',
      apiKey: OPENAI_KEY,
      baseUrl: fakes.current.baseUrl,
      reasoning: { effort: 'low', summary: 'auto' },
    });
    const start: Message[] = [
      { role: 'system', content: 'You manage files.' },
      { role: 'user', content: 'Clear /tmp/a and /tmp/b' },
    ];
    fakes.current.script({
      output: [reasoningItem, callItem(1, '/tmp/a'), callItem(2, '/tmp/b')],
      usage: {
        input_tokens: 1200,
        input_tokens_details: { cached_tokens: 1024 },
        output_tokens: 180,
        output_tokens_details: { reasoning_tokens: 128 },
        total_tokens: 1380,
      },
    });
    const first = await model.generate({ messages: start, tools: [deleteSpec] });

    expect(fakes.current.requests[0]!.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
    expect(fakes.current.requests[0]!.json).toStrictEqual({
      model: 'gpt-5-mini',
      instructions: 'You manage files.',
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'Clear /tmp/a and /tmp/b' }] }],
      tools: toolsWire,
      store: false,
      include: ['reasoning.encrypted_content'],
      reasoning: { effort: 'low', summary: 'auto' },
    });
    expect(first).toStrictEqual({
      message: {
        role: 'assistant',
        content: '',
        parts: [
          {
            type: 'reasoning',
            text: '**Clearing files**\n\nThe user wants both files gone.',
            encryptedContent: reasoningItem.encrypted_content,
            providerMetadata: { openai: { itemId: reasoningItem.id } },
          },
          {
            type: 'reasoning',
            text: 'Delete them in parallel.',
            providerMetadata: { openai: { itemId: reasoningItem.id } },
          },
        ],
        toolCalls: [
          {
            id: 'call_Ab1xYz',
            name: 'delete_file',
            args: { path: '/tmp/a' },
            providerMetadata: { openai: { itemId: 'fc_68c1f0a2b3c4d5e1' } },
          },
          {
            id: 'call_Ab2xYz',
            name: 'delete_file',
            args: { path: '/tmp/b' },
            providerMetadata: { openai: { itemId: 'fc_68c1f0a2b3c4d5e2' } },
          },
        ],
        providerMetadata: { openai: { responseId: expect.stringMatching(/^resp_/) } },
      },
      usage: { inputTokens: 1200, outputTokens: 180, reasoningTokens: 128, cachedInputTokens: 1024 },
      finishReason: 'tool-calls',
    });

    const failed = JSON.stringify({ status: 'error', error: 'delete_file failed: EACCES' });
    const denied = JSON.stringify({
      status: 'denied',
      reason: 'keep b',
      message: 'A person reviewing this call denied it, so it did not run.',
    });
    // What a snapshot keeps: the answer with its usage and finish reason, then the tool results with their outcomes.
    const history: Message[] = JSON.parse(
      JSON.stringify([
        ...start,
        { ...first.message, usage: first.usage, finishReason: first.finishReason },
        {
          role: 'tool',
          toolCallId: 'call_Ab1xYz',
          content: failed,
          parts: [{ type: 'tool-result', toolCallId: 'call_Ab1xYz', toolName: 'delete_file', outcome: 'error' }],
        },
        {
          role: 'tool',
          toolCallId: 'call_Ab2xYz',
          content: denied,
          parts: [{ type: 'tool-result', toolCallId: 'call_Ab2xYz', toolName: 'delete_file', outcome: 'denied' }],
        },
      ]),
    );
    fakes.current.script({ output: [messageItem('I could not delete /tmp/a (permission denied); /tmp/b was kept.')] });
    const second = await model.generate({ messages: history, tools: [deleteSpec] });

    expect(fakes.current.requests[1]!.raw).toBe(
      JSON.stringify({
        ...followUp(failed, denied),
        tools: toolsWire,
        store: false,
        include: ['reasoning.encrypted_content'],
        reasoning: { effort: 'low', summary: 'auto' },
      }),
    );
    // The items OpenAI answered with go back with every field they had (a function call's status aside).
    const input = fakes.current.requests[1]!.json['input'];
    expect(input[1]).toStrictEqual(reasoningItem);
    expect(input.slice(2, 4)).toStrictEqual([sentBack(callItem(1, '/tmp/a')), sentBack(callItem(2, '/tmp/b'))]);
    expect(second.message).toMatchObject({
      content: 'I could not delete /tmp/a (permission denied); /tmp/b was kept.',
      parts: [
        {
          type: 'text',
          text: 'I could not delete /tmp/a (permission denied); /tmp/b was kept.',
          providerMetadata: { openai: { itemId: 'msg_68c1f0a2b3c4d5f0' } },
        },
      ],
    });
    expect(second.finishReason).toBe('stop');
  });

  it('an agent paused for approval, streaming, serialized and resumed sends the reasoning and calls back unchanged, with an error and a denial', async () => {
    const deleteFile = defineTool({
      name: 'delete_file',
      description: 'Delete a file',
      input: z.object({ path: z.string() }),
      needsApproval: true,
      execute: async ({ path }) => {
        if (path === '/tmp/a') throw new Error('EACCES');
        return { deleted: path };
      },
    });
    const deltas: ModelDeltaEvent[] = [];
    const agent = createAgent({
      name: 'responses-round-trip',
      instructions: 'You manage files.',
      model: createOpenAIResponsesModel({ model: 'gpt-5-mini', apiKey: OPENAI_KEY, baseUrl: fakes.current.baseUrl }),
      tools: [deleteFile],
      onEvent: (event) => {
        if (event.type === 'model-delta') deltas.push(event);
      },
    });
    fakes.current.script(
      {
        output: [reasoningItem, callItem(1, '/tmp/a'), callItem(2, '/tmp/b')],
        usage: { input_tokens: 900, output_tokens: 150, output_tokens_details: { reasoning_tokens: 100 } },
      },
      {
        output: [messageItem('/tmp/a could not be deleted; /tmp/b was kept.')],
        usage: { input_tokens: 1100, output_tokens: 20 },
      },
    );
    const paused = await agent.execute({ input: 'Clear /tmp/a and /tmp/b' });
    expect(paused.pendingApprovals.map((request) => request.toolCallId)).toEqual(['call_Ab1xYz', 'call_Ab2xYz']);
    // The model streams (it has `stream`): its reasoning summary reached onEvent as it came, piece by piece.
    const reasoned = deltas.filter((event) => event.kind === 'reasoning').map((event) => event.delta);
    expect(reasoned.length).toBeGreaterThan(1);
    expect(reasoned.join('')).toBe(reasoningItem.summary.map((summary) => summary.text).join(''));

    let next = deserialize(serialize(paused));
    const [first, second] = next.pendingApprovals;
    next = withApprovalResponse(
      next,
      { approvalId: first!.approvalId, approved: true, approvedBy: 'alice' },
      { agent },
    );
    next = withApprovalResponse(
      next,
      { approvalId: second!.approvalId, approved: false, approvedBy: 'alice', reason: 'keep b' },
      { agent },
    );
    const done = await agent.execute(deserialize(serialize(next)));

    expect(done).toMatchObject({
      status: 'completed',
      output: '/tmp/a could not be deleted; /tmp/b was kept.',
      usage: { inputTokens: 2000, outputTokens: 170, reasoningTokens: 100 },
    });
    const results = done.messages.filter((message) => message.role === 'tool');
    expect(results.map((message) => message.parts?.[0])).toMatchObject([{ outcome: 'error' }, { outcome: 'denied' }]);
    expect(results[0]!.content).toContain('EACCES');
    expect(results[1]!.content).toContain('keep b');
    expect(fakes.current.requests[1]!.raw).toBe(
      JSON.stringify({
        ...followUp(results[0]!.content, results[1]!.content),
        // The tool's JSON Schema as countersign makes it from the zod input.
        tools: [{ ...toolsWire[0], parameters: { ...deleteSpec.parameters, additionalProperties: false } }],
        store: false,
        include: ['reasoning.encrypted_content'],
        stream: true,
      }),
    );
  });

  it('sends an assistant text back as its message item, and later system messages as developer messages', async () => {
    const model = createOpenAIResponsesModel({
      model: 'gpt-4.1',
      apiKey: OPENAI_KEY,
      baseUrl: fakes.current.baseUrl,
      encryptedReasoning: false,
    });
    fakes.current.script({ output: [messageItem('Hello.')] });
    const hello = await model.generate({ messages: [{ role: 'user', content: 'hi' }], tools: [] });
    fakes.current.script({ output: [messageItem('Bye.')] });
    await model.generate({
      messages: [
        { role: 'user', content: 'hi' },
        hello.message,
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'bye' },
      ],
      tools: [],
    });
    expect(fakes.current.requests[1]!.json).toStrictEqual({
      model: 'gpt-4.1',
      input: [
        { role: 'user', content: [{ type: 'input_text', text: 'hi' }] },
        {
          type: 'message',
          role: 'assistant',
          content: [{ type: 'output_text', text: 'Hello.' }],
          id: 'msg_68c1f0a2b3c4d5f0',
        },
        { role: 'developer', content: 'Be brief.' },
        { role: 'user', content: [{ type: 'input_text', text: 'bye' }] },
      ],
      store: false,
    });
  });

  it('sends images and files as input_image and input_file', async () => {
    const model = createOpenAIResponsesModel({ model: 'gpt-5', apiKey: OPENAI_KEY, baseUrl: fakes.current.baseUrl });
    fakes.current.script({ output: [messageItem('A cat, and an invoice.')] });
    await model.generate({
      messages: [
        {
          role: 'user',
          content: 'What are these?',
          parts: [
            { type: 'file', mediaType: 'image/png', url: 'https://example.com/cat.png' },
            { type: 'file', mediaType: 'image/jpeg', data: '/9j/4AAQ' },
            { type: 'file', mediaType: 'application/pdf', data: 'JVBERi0x', filename: 'invoice.pdf' },
            { type: 'file', mediaType: 'application/pdf', url: 'https://example.com/terms.pdf' },
          ],
        },
      ],
      tools: [],
    });
    expect(fakes.current.requests[0]!.json['input']).toStrictEqual([
      {
        role: 'user',
        content: [
          { type: 'input_text', text: 'What are these?' },
          { type: 'input_image', image_url: 'https://example.com/cat.png' },
          { type: 'input_image', image_url: 'data:image/jpeg;base64,/9j/4AAQ' },
          { type: 'input_file', filename: 'invoice.pdf', file_data: 'data:application/pdf;base64,JVBERi0x' },
          { type: 'input_file', file_url: 'https://example.com/terms.pdf' },
        ],
      },
    ]);
  });

  it('with store: true sends store and no include; reasoning without encrypted content goes back by id', async () => {
    const model = createOpenAIResponsesModel({
      model: 'o4-mini',
      apiKey: OPENAI_KEY,
      baseUrl: fakes.current.baseUrl,
      store: true,
    });
    const { encrypted_content: _, ...storedReasoning } = reasoningItem;
    fakes.current.script({ output: [storedReasoning, callItem(1, '/tmp/a')] }, { output: [messageItem('Done.')] });
    const first = await model.generate({ messages: [{ role: 'user', content: 'clear /tmp/a' }], tools: [deleteSpec] });
    await model.generate({
      messages: [
        { role: 'user', content: 'clear /tmp/a' },
        first.message,
        { role: 'tool', toolCallId: 'call_Ab1xYz', content: '{"deleted":"/tmp/a"}' },
      ],
      tools: [deleteSpec],
    });
    expect(fakes.current.requests[0]!.json).not.toHaveProperty('include');
    expect(fakes.current.requests[1]!.json).toMatchObject({ store: true });
    expect(fakes.current.requests[1]!.json).not.toHaveProperty('previous_response_id');
    expect(fakes.current.requests[1]!.json['input'].slice(1)).toStrictEqual([
      { type: 'reasoning', id: reasoningItem.id, summary: reasoningItem.summary },
      sentBack(callItem(1, '/tmp/a')),
      { type: 'function_call_output', call_id: 'call_Ab1xYz', output: '{"deleted":"/tmp/a"}' },
    ]);
  });

  it("with previousResponseId 'auto' continues from the last response and sends only what came after it", async () => {
    const model = createOpenAIResponsesModel({
      model: 'gpt-5',
      apiKey: OPENAI_KEY,
      baseUrl: fakes.current.baseUrl,
      store: true,
      previousResponseId: 'auto',
    });
    const start: Message[] = [
      { role: 'system', content: 'You manage files.' },
      { role: 'user', content: 'clear /tmp/a' },
    ];
    fakes.current.script({ output: [reasoningItem, callItem(1, '/tmp/a')] }, { output: [messageItem('Done.')] });
    const first = await model.generate({ messages: start, tools: [deleteSpec] });
    await model.generate({
      messages: [...start, first.message, { role: 'tool', toolCallId: 'call_Ab1xYz', content: 'ok' }],
      tools: [deleteSpec],
    });
    expect(fakes.current.requests[0]!.json).not.toHaveProperty('previous_response_id');
    expect(fakes.current.requests[1]!.json).toStrictEqual({
      model: 'gpt-5',
      instructions: 'You manage files.',
      input: [{ type: 'function_call_output', call_id: 'call_Ab1xYz', output: 'ok' }],
      tools: toolsWire,
      store: true,
      previous_response_id: first.message.providerMetadata?.['openai']?.['responseId'],
    });
  });

  it("refuses previousResponseId 'auto' without store: true, and other bad options, with a ConfigError", () => {
    expect(() => createOpenAIResponsesModel({ model: 'gpt-5', previousResponseId: 'auto' })).toThrow(
      "createOpenAIResponsesModel: previousResponseId 'auto' needs store: true",
    );
    expect(() => createOpenAIResponsesModel({ model: '' })).toThrow(ConfigError);
    expect(() => createOpenAIResponsesModel({ model: 'gpt-5', reasoning: { effort: 'extreme' as never } })).toThrow(
      /reasoning\.effort/,
    );
    expect(() => createOpenAIResponsesModel({ model: 'gpt-5', streaming: true } as never)).toThrow(
      expect.objectContaining({ code: 'unknown_option' }),
    );
    expectCredentialsRefused(
      () => createOpenAIResponsesModel({ model: 'gpt-5', baseUrl: withCredentials('https://llm.example.com/v1') }),
      'baseUrl',
      /Put the credential in apiKey or headers/,
    );
  });

  it('maps an incomplete answer to finishReason length', async () => {
    const model = createOpenAIResponsesModel({ model: 'gpt-5', apiKey: OPENAI_KEY, baseUrl: fakes.current.baseUrl });
    fakes.current.script({ output: [messageItem('The first half')], incomplete: 'max_output_tokens' });
    expect(await model.generate({ messages: [{ role: 'user', content: 'write a lot' }], tools: [] })).toMatchObject({
      message: { content: 'The first half' },
      finishReason: 'length',
    });
  });

  it('retries a 429, waiting what Retry-After asks; the request signal aborts the wait', async () => {
    const model = createOpenAIResponsesModel({ model: 'gpt-5', apiKey: OPENAI_KEY, baseUrl: fakes.current.baseUrl });
    const rateLimited = {
      status: 429,
      body: { error: { message: 'Rate limit reached', type: 'requests', param: null, code: 'rate_limit_exceeded' } },
    };
    fakes.current.script({ ...rateLimited, headers: { 'retry-after': '0' } }, { output: [messageItem('Hello.')] });
    expect((await model.generate({ messages: [{ role: 'user', content: 'hi' }], tools: [] })).message.content).toBe(
      'Hello.',
    );
    expect(fakes.current.requests).toHaveLength(2);
    expect(fakes.current.requests[1]!.raw).toBe(fakes.current.requests[0]!.raw);

    fakes.current.requests.length = 0;
    fakes.current.script({ ...rateLimited, headers: { 'retry-after': '30' } });
    const controller = new AbortController();
    const waiting = model.generate({
      messages: [{ role: 'user', content: 'hi' }],
      tools: [],
      signal: controller.signal,
    });
    await expect.poll(() => fakes.current.requests.length).toBe(1);
    controller.abort(new Error('user cancelled'));
    await expect(waiting).rejects.toThrow('user cancelled');
    expect(fakes.current.requests).toHaveLength(1);
  });

  it('a 401 is a ModelProviderError whose message and JSON hold neither the key nor the request', async () => {
    const wrongKey = 'sk-proj-WRONG9876543210zyxwvutsrqpon';
    const model = createOpenAIResponsesModel({ model: 'gpt-5', apiKey: wrongKey, baseUrl: fakes.current.baseUrl });
    const error = await model
      .generate({ messages: [{ role: 'user', content: 'my card is 4111 1111 1111 1111' }], tools: [] })
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ModelProviderError);
    expect(error).toMatchObject({ status: 401, message: 'The model provider answered HTTP 401 (authentication).' });
    expect(fakes.current.requests).toHaveLength(1);
    const seen = `${(error as Error).message} ${(error as Error).stack} ${JSON.stringify(error)}`;
    expect(seen).not.toContain(wrongKey);
    expect(seen).not.toContain('4111');
    // What OpenAI wrote (echoing the key) is kept for the operator, on purpose only.
    expect((error as ModelProviderError).detail).toContain(`Incorrect API key provided: ${wrongKey}`);
  });

  it('a provider that cannot be reached or does not answer in time is a ModelProviderError saying so', async () => {
    const closed = createOpenAIResponsesModel({
      model: 'gpt-5',
      apiKey: OPENAI_KEY,
      baseUrl: `http://127.0.0.1:${await freePort()}/v1`,
      maxRetries: 0,
    });
    await expect(closed.generate({ messages: [{ role: 'user', content: 'hi' }], tools: [] })).rejects.toThrow(
      'The model provider could not be reached (ECONNREFUSED).',
    );

    let tries = 0;
    const silent: typeof fetch = (_url, init) => {
      tries += 1;
      return new Promise((_resolve, reject) =>
        init?.signal?.addEventListener('abort', () => reject(init.signal?.reason)),
      );
    };
    const slow = createOpenAIResponsesModel({
      model: 'gpt-5',
      apiKey: OPENAI_KEY,
      timeoutMs: 20,
      maxRetries: 1,
      fetch: silent,
    });
    await expect(slow.generate({ messages: [{ role: 'user', content: 'hi' }], tools: [] })).rejects.toThrow(
      'The model provider did not answer within 20 ms.',
    );
    expect(tries).toBe(2);
  });

  it('an answer that is not a response is a ModelProviderError', async () => {
    const model = createOpenAIResponsesModel({
      model: 'gpt-5',
      apiKey: OPENAI_KEY,
      baseUrl: fakes.current.baseUrl,
      maxRetries: 0,
    });
    fakes.current.script({ status: 200, body: { object: 'list', data: [] } });
    await expect(model.generate({ messages: [{ role: 'user', content: 'hi' }], tools: [] })).rejects.toThrow(
      'The model provider answered HTTP 200 with something that is not a response.',
    );
  });
});
