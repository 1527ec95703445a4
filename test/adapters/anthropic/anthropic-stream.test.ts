import { describe, expect, it } from 'vitest';
import { setTimeout as delay } from 'node:timers/promises';
import type { Message, ModelRequest, ModelStreamPart } from 'countersign';
import { createAnthropicModel, ModelProviderError } from 'countersign/anthropic';
import {
  ANTHROPIC_API_KEY,
  type AnthropicReply,
  messageAnswer,
  startFakeAnthropic,
} from '../../support/fake-anthropic.js';
import { deleteSpec, useFake } from '../../support/model-fixtures.js';

const fakes = useFake(startFakeAnthropic);

const model = (options: Partial<Parameters<typeof createAnthropicModel>[0]> = {}) =>
  createAnthropicModel({
    model: 'claude-test',
    apiKey: ANTHROPIC_API_KEY,
    baseUrl: fakes.current.baseUrl,
    thinking: { budgetTokens: 2048 },
    maxRetries: 0,
    ...options,
  });

const thinkingBlock = {
  type: 'thinking',
  thinking: 'Two deletions: "/tmp/a" and /etc/b ⚠️ 🧹 \u2028 both now.\\n',
  signature: 'EqQBCkYIBxgCKkDxQ3l0ZXN+/9dGhpbmtpbmc=AbCdEf0123456789+/==',
};
const redactedBlock = {
  type: 'redacted_thinking',
  data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2==',
};
const toolUseA = {
  type: 'tool_use',
  id: 'toolu_01A09q90qw90lq917835lq9',
  name: 'delete_file',
  input: { path: '/tmp/a', note: 'the "first" one' },
};
const toolUseB = {
  type: 'tool_use',
  id: 'toolu_01B7x8y9z0ab12cd34ef56gh',
  name: 'delete_file',
  input: { path: '/etc/b' },
};
const answer = (): AnthropicReply =>
  messageAnswer(
    [thinkingBlock, redactedBlock, { type: 'text', text: "I'll delete both of them." }, toolUseA, toolUseB],
    {
      stop_reason: 'tool_use',
      usage: { input_tokens: 120, output_tokens: 80, cache_read_input_tokens: 100, cache_creation_input_tokens: 20 },
    },
  );
const request: ModelRequest = {
  messages: [
    { role: 'system', content: 'You manage files.' },
    { role: 'user', content: 'remove /tmp/a and /etc/b' },
  ],
  tools: [deleteSpec],
};

async function collect(parts: AsyncIterable<ModelStreamPart>): Promise<ModelStreamPart[]> {
  const all: ModelStreamPart[] = [];
  for await (const part of parts) all.push(part);
  return all;
}

describe('createAnthropicModel stream', () => {
  it('streams deltas that add up to the answer, and finishes with exactly what generate returns', async () => {
    fakes.current.answer(answer(), answer());
    const generated = await model().generate(request);
    const parts = await collect(model().stream!(request));

    const finish = parts.at(-1);
    expect(finish).toEqual({ type: 'finish', response: generated });
    const deltas = (type: ModelStreamPart['type']) =>
      parts.flatMap((part) => (part.type === type && 'delta' in part ? [part.delta] : []));
    expect(deltas('text-delta').join('')).toBe("I'll delete both of them.");
    expect(deltas('reasoning-delta').join('')).toBe(thinkingBlock.thinking);
    expect(deltas('text-delta').length).toBeGreaterThan(1);
    const args = (id: string) =>
      parts
        .flatMap((part) => (part.type === 'tool-call-delta' && part.toolCallId === id ? [part.argsDelta] : []))
        .join('');
    expect(JSON.parse(args(toolUseA.id))).toEqual(toolUseA.input);
    expect(JSON.parse(args(toolUseB.id))).toEqual(toolUseB.input);
    expect(
      parts.filter((part) => part.type === 'tool-call-delta').every((part) => part.toolName === 'delete_file'),
    ).toBe(true);

    const [plain, streamed] = fakes.current.requests;
    expect(streamed!.body).toBe(JSON.stringify({ ...JSON.parse(plain!.body), stream: true }));
    expect(streamed!.headers['accept']).toBe('text/event-stream');
  });

  it('sends a streamed turn back, after a JSON round trip, with its thinking and signature unchanged', async () => {
    fakes.current.answer(answer(), messageAnswer([{ type: 'text', text: 'Done.' }]));
    const parts = await collect(model().stream!(request));
    const finish = parts.at(-1)!;
    if (finish.type !== 'finish') throw new Error('no finish');
    const stored = JSON.parse(JSON.stringify([...request.messages, finish.response.message])) as Message[];
    const results: Message[] = [toolUseA, toolUseB].map((use) => ({
      role: 'tool',
      toolCallId: use.id,
      content: 'deleted',
    }));
    await collect(model().stream!({ messages: [...stored, ...results], tools: [deleteSpec] }));

    const sent = fakes.current.requests[1]!.json.messages[1]!;
    expect(JSON.stringify(sent)).toBe(
      JSON.stringify({
        role: 'assistant',
        content: [
          thinkingBlock,
          redactedBlock,
          { type: 'text', text: "I'll delete both of them." },
          toolUseA,
          toolUseB,
        ],
      }),
    );
  });

  it('retries a refusal before the stream begins, honouring Retry-After', async () => {
    fakes.current.answer(
      {
        status: 529,
        body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
        headers: { 'retry-after': '0' },
      },
      answer(),
    );
    const parts = await collect(model({ maxRetries: 1 }).stream!(request));
    expect(parts.at(-1)?.type).toBe('finish');
    expect(fakes.current.requests).toHaveLength(2);
  });

  it('throws a ModelProviderError, without replaying, when the stream breaks off or reports an error midway', async () => {
    for (const interruption of ['cut', 'error'] as const) {
      fakes.current.requests.length = 0;
      // A replay would find no answer scripted (a 500) and show as a second request.
      fakes.current.answer({ ...answer(), interrupt: { after: 6, with: interruption } });
      const seen: ModelStreamPart[] = [];
      const error = await (async () => {
        for await (const part of model({ maxRetries: 2 }).stream!(request)) seen.push(part);
      })().catch((caught: unknown) => caught);

      expect(error).toBeInstanceOf(ModelProviderError);
      expect((error as Error).message).not.toContain(ANTHROPIC_API_KEY);
      if (interruption === 'error') expect((error as Error).message).toContain('overloaded_error');
      expect(seen.length).toBeGreaterThan(0);
      expect(seen.some((part) => part.type === 'finish')).toBe(false);
      expect(fakes.current.requests).toHaveLength(1);
    }
  });

  it('applies the timeout to the wait for the first byte only', async () => {
    fakes.current.answer({ ...answer(), interrupt: { after: 5, with: 'hold' } });
    const parts: ModelStreamPart[] = [];
    for await (const part of model({ timeoutMs: 300 }).stream!(request)) {
      parts.push(part);
      if (parts.length === 1) {
        await delay(600);
        fakes.current.resume();
      }
    }
    expect(parts.at(-1)?.type).toBe('finish');
  });

  it('stops reading when the signal aborts midway', async () => {
    fakes.current.answer({ ...answer(), interrupt: { after: 5, with: 'hold' } });
    const controller = new AbortController();
    const reason = new Error('the run was cancelled');
    const error = await (async () => {
      for await (const part of model().stream!({ ...request, signal: controller.signal })) {
        if (part.type === 'reasoning-delta') controller.abort(reason);
      }
    })().catch((caught: unknown) => caught);
    expect(error).toBe(reason);
    fakes.current.resume();
  });
});
