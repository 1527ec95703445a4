import { describe, expect, it } from 'vitest';
import { ConfigError, type Message } from 'countersign';
import { createAnthropicModel, ModelProviderError } from 'countersign/anthropic';
import { expectCredentialsRefused, withCredentials } from '../../support/credential-urls.js';
import { ANTHROPIC_API_KEY, messageAnswer, startFakeAnthropic } from '../../support/fake-anthropic.js';
import { thrown } from '../../support/test-kit.js';
import { deleteSpec, useFake } from '../../support/model-fixtures.js';

const fakes = useFake(startFakeAnthropic);

const model = (options: Partial<Parameters<typeof createAnthropicModel>[0]> = {}) =>
  createAnthropicModel({ model: 'claude-test', apiKey: ANTHROPIC_API_KEY, baseUrl: fakes.current.baseUrl, ...options });

// Text a JSON round trip could disturb if anything re-encoded it: quotes, escapes, astral and line-separator characters.
const thinkingBlock = {
  type: 'thinking',
  thinking:
    'Two deletions asked: "/tmp/a" and /etc/b.\nThe second is a system path ⚠️ 🧹 \u2028 — both can go in parallel.\\n',
  signature: 'EqQBCkYIBxgCKkDxQ3l0ZXN+/9dGhpbmtpbmc=AbCdEf0123456789+/==',
};
const redactedBlock = {
  type: 'redacted_thinking',
  data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB5URj+cO/ty==',
};
const toolUseA = {
  type: 'tool_use',
  id: 'toolu_01A09q90qw90lq917835lq9',
  name: 'delete_file',
  input: { path: '/tmp/a' },
};
const toolUseB = {
  type: 'tool_use',
  id: 'toolu_01B7x8y9z0ab12cd34ef56gh',
  name: 'delete_file',
  input: { path: '/etc/b' },
};

describe('createAnthropicModel', () => {
  it('keeps thinking, redacted thinking and parallel tool calls through a snapshot round trip and sends them back unchanged', async () => {
    fakes.current.answer(
      messageAnswer([thinkingBlock, redactedBlock, { type: 'text', text: "I'll delete both." }, toolUseA, toolUseB], {
        stop_reason: 'tool_use',
        usage: { input_tokens: 120, output_tokens: 80, cache_read_input_tokens: 100, cache_creation_input_tokens: 20 },
      }),
      messageAnswer([{ type: 'text', text: 'Could not delete either file.' }]),
    );
    const thinking = model({ thinking: { budgetTokens: 2048 } });
    const opening: Message[] = [
      { role: 'system', content: 'You manage files.' },
      { role: 'user', content: 'remove /tmp/a and /etc/b' },
    ];
    const first = await thinking.generate({ messages: opening, tools: [deleteSpec] });

    expect(first.message).toEqual({
      role: 'assistant',
      content: "I'll delete both.",
      parts: [
        { type: 'reasoning', text: thinkingBlock.thinking, signature: thinkingBlock.signature },
        {
          type: 'reasoning',
          text: '',
          encryptedContent: redactedBlock.data,
          providerMetadata: { anthropic: { redacted: true } },
        },
        { type: 'text', text: "I'll delete both." },
      ],
      toolCalls: [
        { id: toolUseA.id, name: 'delete_file', args: { path: '/tmp/a' } },
        { id: toolUseB.id, name: 'delete_file', args: { path: '/etc/b' } },
      ],
      usage: { inputTokens: 240, outputTokens: 80, cachedInputTokens: 100 },
      finishReason: 'tool-calls',
    });
    expect(first.usage).toEqual({ inputTokens: 240, outputTokens: 80, cachedInputTokens: 100 });
    expect(first.finishReason).toBe('tool-calls');

    // The run pauses for approval: its history is stored as JSON and read back, as a snapshot's would be.
    const stored = JSON.parse(JSON.stringify([...opening, first.message])) as Message[];
    const denied = JSON.stringify({
      status: 'denied',
      reason: 'not /etc',
      message: 'A person reviewing this call denied it, so it did not run.',
    });
    const history: Message[] = [
      ...stored,
      {
        role: 'tool',
        toolCallId: toolUseA.id,
        content: '{"status":"error","error":"EACCES: permission denied"}',
        parts: [{ type: 'tool-result', toolCallId: toolUseA.id, toolName: 'delete_file', outcome: 'error' }],
      },
      {
        role: 'tool',
        toolCallId: toolUseB.id,
        content: denied,
        parts: [{ type: 'tool-result', toolCallId: toolUseB.id, toolName: 'delete_file', outcome: 'denied' }],
      },
    ];
    const second = await thinking.generate({ messages: history, tools: [deleteSpec] });
    expect(second.message.content).toBe('Could not delete either file.');

    const expected = {
      model: 'claude-test',
      max_tokens: 2048 + 4096,
      system: [{ type: 'text', text: 'You manage files.' }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'remove /tmp/a and /etc/b' }] },
        {
          role: 'assistant',
          content: [thinkingBlock, redactedBlock, { type: 'text', text: "I'll delete both." }, toolUseA, toolUseB],
        },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: toolUseA.id,
              content: '{"status":"error","error":"EACCES: permission denied"}',
              is_error: true,
            },
            { type: 'tool_result', tool_use_id: toolUseB.id, content: denied, is_error: true },
          ],
        },
      ],
      tools: [{ name: 'delete_file', description: 'Delete a file', input_schema: deleteSpec.parameters }],
      thinking: { type: 'enabled', budget_tokens: 2048 },
    };
    const body = fakes.current.requests[1]!.body;
    expect(body).toBe(JSON.stringify(expected));
    // The blocks the API signed are in the request exactly as the API wrote them.
    expect(body).toContain(JSON.stringify(thinkingBlock));
    expect(body).toContain(JSON.stringify(redactedBlock));
  });

  it('sends the key and version headers, and no thinking unless asked', async () => {
    fakes.current.answer(messageAnswer([{ type: 'text', text: 'hi' }]));
    await model({ maxTokens: 1000, headers: { 'anthropic-beta': 'test-beta-2025-01-01' } }).generate({
      messages: [{ role: 'user', content: 'hello' }],
      tools: [],
    });
    const [request] = fakes.current.requests;
    expect(request!.headers).toMatchObject({
      'x-api-key': ANTHROPIC_API_KEY,
      'anthropic-version': '2023-06-01',
      'anthropic-beta': 'test-beta-2025-01-01',
      'content-type': 'application/json',
    });
    expect(request!.body).toBe(
      JSON.stringify({
        model: 'claude-test',
        max_tokens: 1000,
        messages: [{ role: 'user', content: [{ type: 'text', text: 'hello' }] }],
      }),
    );
  });

  it('passes prompt-caching markers through and sends images and documents as blocks', async () => {
    fakes.current.answer(messageAnswer([{ type: 'text', text: 'ok' }]));
    const ephemeral = { type: 'ephemeral' };
    await model().generate({
      messages: [
        {
          role: 'system',
          content: 'A long, stable system prompt.',
          providerMetadata: { anthropic: { cacheControl: ephemeral } },
        },
        {
          role: 'user',
          content: 'What is in these?',
          parts: [
            { type: 'file', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
            {
              type: 'file',
              mediaType: 'application/pdf',
              url: 'https://example.com/report.pdf',
              providerMetadata: { anthropic: { cacheControl: ephemeral } },
            },
          ],
        },
      ],
      tools: [],
    });
    expect(fakes.current.requests[0]!.json).toMatchObject({
      system: [{ type: 'text', text: 'A long, stable system prompt.', cache_control: ephemeral }],
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
            {
              type: 'document',
              source: { type: 'url', url: 'https://example.com/report.pdf' },
              cache_control: ephemeral,
            },
            { type: 'text', text: 'What is in these?' },
          ],
        },
      ],
    });
  });

  it("merges consecutive turns of one role and leaves out reasoning that is not Anthropic's", async () => {
    fakes.current.answer(messageAnswer([{ type: 'text', text: 'ok' }]));
    await model().generate({
      messages: [
        { role: 'user', content: 'first' },
        { role: 'user', content: 'second' },
        {
          role: 'assistant',
          content: 'answer',
          parts: [{ type: 'reasoning', text: '', encryptedContent: 'gAAAA-openai-item' }],
        },
        { role: 'user', content: 'third' },
      ],
      tools: [],
    });
    expect(fakes.current.requests[0]!.json.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'first' },
          { type: 'text', text: 'second' },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'answer' }] },
      { role: 'user', content: [{ type: 'text', text: 'third' }] },
    ]);
  });

  it.each([
    ['max_tokens', 'length'],
    ['end_turn', 'stop'],
    ['refusal', 'content-filter'],
    ['pause_turn', 'other'],
  ] as const)('maps stop_reason %s to finishReason %s', async (stopReason, finishReason) => {
    fakes.current.answer(messageAnswer([{ type: 'text', text: 'cut' }], { stop_reason: stopReason }));
    const { finishReason: got, message } = await model().generate({
      messages: [{ role: 'user', content: 'go' }],
      tools: [],
    });
    expect(got).toBe(finishReason);
    expect(message.finishReason).toBe(finishReason);
  });

  it('retries a 429 after the Retry-After the API asked for, then answers', async () => {
    fakes.current.answer({
      status: 429,
      body: {
        type: 'error',
        error: {
          type: 'rate_limit_error',
          message: 'Number of request tokens has exceeded your per-minute rate limit',
        },
      },
      headers: { 'retry-after': '0' },
    });
    fakes.current.answer(messageAnswer([{ type: 'text', text: 'after the wait' }]));
    const { message } = await model().generate({ messages: [{ role: 'user', content: 'hi' }], tools: [] });
    expect(message.content).toBe('after the wait');
    expect(fakes.current.requests).toHaveLength(2);
    expect(fakes.current.requests[1]!.body).toBe(fakes.current.requests[0]!.body);
  });

  it('gives up after maxRetries on an overloaded API with a ModelProviderError carrying the status', async () => {
    const overloaded = {
      status: 529,
      body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
      headers: { 'retry-after': '0' },
    };
    fakes.current.answer(overloaded, overloaded);
    const error = await model({ maxRetries: 1 })
      .generate({ messages: [{ role: 'user', content: 'hi' }], tools: [] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelProviderError);
    expect(error).toMatchObject({
      status: 529,
      code: 'model_provider_error',
      message: 'Anthropic answered HTTP 529 (provider error).',
    });
    expect(fakes.current.requests).toHaveLength(2);
  });

  it('turns a 401 into a ModelProviderError that does not repeat the key, even when the answer echoes it', async () => {
    const wrongKey = 'sk-ant-api03-WRONG-secret-9876543210';
    const error = await model({ apiKey: wrongKey })
      .generate({ messages: [{ role: 'user', content: 'the private prompt' }], tools: [] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelProviderError);
    const providerError = error as ModelProviderError;
    expect(providerError.status).toBe(401);
    expect(providerError.message).toBe('Anthropic answered HTTP 401 (authentication).');
    for (const shown of [
      providerError.message,
      String(providerError),
      JSON.stringify(providerError),
      providerError.stack ?? '',
    ]) {
      expect(shown).not.toContain(wrongKey);
      expect(shown).not.toContain('the private prompt');
    }
    // What the API said stays on `detail`, for the operator to read on purpose.
    expect(providerError.detail).toContain('authentication_error');
    expect(fakes.current.requests).toHaveLength(1);
  });

  it('refuses an answer that is not a message', async () => {
    fakes.current.answer({ status: 200, body: { hello: 'world' } });
    const error = await model()
      .generate({ messages: [{ role: 'user', content: 'hi' }], tools: [] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelProviderError);
    expect((error as Error).message).toBe(
      'Anthropic answered HTTP 200 with something that is not a Messages API message.',
    );
  });

  it('stops when the request is aborted, while waiting for the answer or between tries', async () => {
    fakes.current.answer('hold');
    const waiting = new AbortController();
    const pending = model().generate({
      messages: [{ role: 'user', content: 'hi' }],
      tools: [],
      signal: waiting.signal,
    });
    await expect.poll(() => fakes.current.requests.length).toBe(1);
    waiting.abort(new Error('the run was cancelled'));
    await expect(pending).rejects.toThrow('the run was cancelled');

    fakes.current.answer({
      status: 429,
      body: { type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } },
      headers: { 'retry-after': '600' },
    });
    const between = new AbortController();
    const retrying = model().generate({
      messages: [{ role: 'user', content: 'hi' }],
      tools: [],
      signal: between.signal,
    });
    await expect.poll(() => fakes.current.requests.length).toBe(2);
    between.abort(new Error('cancelled during the wait'));
    await expect(retrying).rejects.toThrow('cancelled during the wait');
    expect(fakes.current.requests).toHaveLength(2);
  });

  it('refuses options it cannot use, naming the option', () => {
    const base = { model: 'claude-test', apiKey: ANTHROPIC_API_KEY };
    const tooSmall = thrown(() => createAnthropicModel({ ...base, thinking: { budgetTokens: 4000 }, maxTokens: 4000 }));
    expect(tooSmall).toBeInstanceOf(ConfigError);
    expect((tooSmall as Error).message).toMatch(/^createAnthropicModel: maxTokens must be above thinking.budgetTokens/);
    expect(thrown(() => createAnthropicModel({ ...base, thinking: { budgetTokens: 100 } }))).toMatchObject({
      code: 'invalid_config',
      message: expect.stringContaining('thinking.budgetTokens must be at least 1024'),
    });
    expect(thrown(() => createAnthropicModel({ ...base, maxToken: 10 } as never))).toMatchObject({
      code: 'unknown_option',
      message: expect.stringContaining('maxToken'),
    });
    expect(thrown(() => createAnthropicModel({ model: 'claude-test' } as never))).toMatchObject({
      code: 'missing_option',
      message: expect.stringContaining('apiKey'),
    });
    expectCredentialsRefused(
      () => createAnthropicModel({ ...base, baseUrl: withCredentials('https://api.anthropic.com') }),
      'baseUrl',
      /apiKey or headers/,
    );
  });
});
