// createOpenAIResponsesModel's stream against the fake Responses API streaming as OpenAI does: deltas that add up to
// the answer, a finish equal to what generate returns, reasoning sent back unchanged, an error event midway.
import { describe, expect, it } from 'vitest';
import type { Message, ModelRequest, ModelStreamPart } from 'countersign';
import { createOpenAIResponsesModel, ModelProviderError } from 'countersign/openai';
import { OPENAI_KEY, type ScriptedAnswer, startFakeResponses } from '../support/fake-openai-responses.js';
import { deleteSpec, useFake } from '../support/model-fixtures.js';
import { callItem, messageItem, reasoningItemOf } from '../support/responses-items.js';

const fakes = useFake(startFakeResponses);
const reasoningItem = reasoningItemOf('**Clearing files**\n\nThe user wants both "files" gone ⚠️.');

const answer: ScriptedAnswer = {
  output: [reasoningItem, messageItem('Deleting both files now.'), callItem(1, '/tmp/a'), callItem(2, '/tmp/b')],
  usage: {
    input_tokens: 1200,
    input_tokens_details: { cached_tokens: 1024 },
    output_tokens: 180,
    output_tokens_details: { reasoning_tokens: 128 },
    total_tokens: 1380,
  },
};
const request: ModelRequest = {
  messages: [
    { role: 'system', content: 'You manage files.' },
    { role: 'user', content: 'Clear /tmp/a and /tmp/b' },
  ],
  tools: [deleteSpec],
};
const model = () =>
  createOpenAIResponsesModel({
    model: 'gpt-5-mini',
    apiKey: OPENAI_KEY,
    baseUrl: fakes.current.baseUrl,
    reasoning: { effort: 'low', summary: 'auto' },
    maxRetries: 1,
  });

async function collect(parts: AsyncIterable<ModelStreamPart>): Promise<ModelStreamPart[]> {
  const all: ModelStreamPart[] = [];
  for await (const part of parts) all.push(part);
  return all;
}

describe('createOpenAIResponsesModel stream', () => {
  it('streams deltas that add up to the answer, and finishes with what generate returns for it', async () => {
    fakes.current.script(answer, answer);
    const generated = await model().generate(request);
    const parts = await collect(model().stream!(request));

    // Two responses, two ids: the rest is the same field by field.
    const streamedId = { openai: { responseId: 'resp_0002' } };
    expect(parts.at(-1)).toStrictEqual({
      type: 'finish',
      response: { ...generated, message: { ...generated.message, providerMetadata: streamedId } },
    });
    const deltas = (type: ModelStreamPart['type']) =>
      parts.flatMap((part) => (part.type === type && 'delta' in part ? [part.delta] : []));
    expect(deltas('text-delta').join('')).toBe('Deleting both files now.');
    expect(deltas('reasoning-delta').join('')).toBe(reasoningItem.summary.map((summary) => summary.text).join(''));
    for (const n of [1, 2]) {
      const call = callItem(n, `/tmp/${n === 1 ? 'a' : 'b'}`);
      const pieces = parts.filter((part) => part.type === 'tool-call-delta' && part.toolCallId === call.call_id);
      expect(pieces.map((part) => (part.type === 'tool-call-delta' ? part.argsDelta : '')).join('')).toBe(
        call.arguments,
      );
      expect(pieces.every((part) => part.type === 'tool-call-delta' && part.toolName === 'delete_file')).toBe(true);
    }
    const [plain, streamed] = fakes.current.requests;
    expect(streamed!.raw).toBe(JSON.stringify({ ...plain!.json, stream: true }));
  });

  it('sends a streamed turn back, after a JSON round trip, with its reasoning item and ids unchanged', async () => {
    fakes.current.script(answer, { output: [messageItem('Deleting both files now.')] });
    const finish = (await collect(model().stream!(request))).at(-1)!;
    if (finish.type !== 'finish') throw new Error('no finish');
    const stored = JSON.parse(JSON.stringify([...request.messages, finish.response.message])) as Message[];
    const results: Message[] = [1, 2].map((n) => ({ role: 'tool', toolCallId: `call_Ab${n}xYz`, content: 'deleted' }));
    await collect(model().stream!({ messages: [...stored, ...results], tools: [deleteSpec] }));

    const input = fakes.current.requests[1]!.json['input'] as Record<string, unknown>[];
    expect(JSON.stringify(input[1])).toBe(
      JSON.stringify({
        type: 'reasoning',
        id: reasoningItem.id,
        summary: reasoningItem.summary,
        encrypted_content: reasoningItem.encrypted_content,
      }),
    );
    expect(input.filter((item) => item['type'] === 'function_call').map((item) => item['id'])).toEqual([
      'fc_68c1f0a2b3c4d5e1',
      'fc_68c1f0a2b3c4d5e2',
    ]);
  });

  it('throws a ModelProviderError, without replaying, for an error event midway', async () => {
    fakes.current.script({ ...answer, streamErrorAfter: 8 });
    const seen: ModelStreamPart[] = [];
    const error = await (async () => {
      for await (const part of model().stream!(request)) seen.push(part);
    })().catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(ModelProviderError);
    expect((error as Error).message).toContain('server_error');
    expect((error as Error).message).not.toContain(OPENAI_KEY);
    expect(seen.length).toBeGreaterThan(0);
    expect(fakes.current.requests).toHaveLength(1);
  });
});
