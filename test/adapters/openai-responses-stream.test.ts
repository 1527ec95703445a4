// createOpenAIResponsesModel's stream against the fake Responses API streaming as OpenAI does: deltas that add up to
// the answer, a finish equal to what generate returns, reasoning sent back unchanged, an error event midway.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Message, ModelRequest, ModelStreamPart, ToolSpec } from 'countersign';
import { createOpenAIResponsesModel, ModelProviderError } from 'countersign/openai';
import { type FakeResponses, OPENAI_KEY, type ScriptedAnswer, startFakeResponses } from '../support/fake-openai-responses.js';

let fake: FakeResponses;
beforeAll(async () => {
  fake = await startFakeResponses();
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.requests.length = 0;
});

const deleteSpec: ToolSpec = {
  name: 'delete_file',
  description: 'Delete a file',
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
};
const reasoningItem = {
  id: 'rs_68c1f0a2b3c4d5e6',
  type: 'reasoning',
  summary: [
    { type: 'summary_text', text: '**Clearing files**\n\nThe user wants both "files" gone ⚠️.' },
    { type: 'summary_text', text: 'Delete them in parallel.' },
  ],
  encrypted_content: 'gAAAAABowPEq3Jz-7yN0k1E4_encrypted+reasoning/blob==',
};
const callItem = (n: number, path: string) => ({
  id: `fc_68c1f0a2b3c4d5e${n}`,
  type: 'function_call',
  status: 'completed',
  arguments: JSON.stringify({ path }),
  call_id: `call_Ab${n}xYz`,
  name: 'delete_file',
});
const messageItem = {
  id: 'msg_68c1f0a2b3c4d5f0',
  type: 'message',
  status: 'completed',
  role: 'assistant',
  content: [{ type: 'output_text', annotations: [], logprobs: [], text: 'Deleting both files now.' }],
};
const answer: ScriptedAnswer = {
  output: [reasoningItem, messageItem, callItem(1, '/tmp/a'), callItem(2, '/tmp/b')],
  usage: { input_tokens: 1200, input_tokens_details: { cached_tokens: 1024 }, output_tokens: 180, output_tokens_details: { reasoning_tokens: 128 }, total_tokens: 1380 },
};
const request: ModelRequest = {
  messages: [
    { role: 'system', content: 'You manage files.' },
    { role: 'user', content: 'Clear /tmp/a and /tmp/b' },
  ],
  tools: [deleteSpec],
};
const model = () => createOpenAIResponsesModel({ model: 'gpt-5-mini', apiKey: OPENAI_KEY, baseUrl: fake.baseUrl, reasoning: { effort: 'low', summary: 'auto' }, maxRetries: 1 });

async function collect(parts: AsyncIterable<ModelStreamPart>): Promise<ModelStreamPart[]> {
  const all: ModelStreamPart[] = [];
  for await (const part of parts) all.push(part);
  return all;
}

describe('createOpenAIResponsesModel stream', () => {
  it('streams deltas that add up to the answer, and finishes with what generate returns for it', async () => {
    fake.script(answer, answer);
    const generated = await model().generate(request);
    const parts = await collect(model().stream!(request));

    // Two responses, two ids: the rest is the same field by field.
    const streamedId = { openai: { responseId: 'resp_0002' } };
    expect(parts.at(-1)).toStrictEqual({ type: 'finish', response: { ...generated, message: { ...generated.message, providerMetadata: streamedId } } });
    const deltas = (type: ModelStreamPart['type']) => parts.flatMap((part) => (part.type === type && 'delta' in part ? [part.delta] : []));
    expect(deltas('text-delta').join('')).toBe('Deleting both files now.');
    expect(deltas('reasoning-delta').join('')).toBe(reasoningItem.summary.map((summary) => summary.text).join(''));
    for (const n of [1, 2]) {
      const call = callItem(n, `/tmp/${n === 1 ? 'a' : 'b'}`);
      const pieces = parts.filter((part) => part.type === 'tool-call-delta' && part.toolCallId === call.call_id);
      expect(pieces.map((part) => (part.type === 'tool-call-delta' ? part.argsDelta : '')).join('')).toBe(call.arguments);
      expect(pieces.every((part) => part.type === 'tool-call-delta' && part.toolName === 'delete_file')).toBe(true);
    }
    const [plain, streamed] = fake.requests;
    expect(streamed!.raw).toBe(JSON.stringify({ ...plain!.json, stream: true }));
  });

  it('sends a streamed turn back, after a JSON round trip, with its reasoning item and ids unchanged', async () => {
    fake.script(answer, { output: [messageItem] });
    const finish = (await collect(model().stream!(request))).at(-1)!;
    if (finish.type !== 'finish') throw new Error('no finish');
    const stored = JSON.parse(JSON.stringify([...request.messages, finish.response.message])) as Message[];
    const results: Message[] = [1, 2].map((n) => ({ role: 'tool', toolCallId: `call_Ab${n}xYz`, content: 'deleted' }));
    await collect(model().stream!({ messages: [...stored, ...results], tools: [deleteSpec] }));

    const input = fake.requests[1]!.json['input'] as Record<string, unknown>[];
    expect(JSON.stringify(input[1])).toBe(
      JSON.stringify({ type: 'reasoning', id: reasoningItem.id, summary: reasoningItem.summary, encrypted_content: reasoningItem.encrypted_content }),
    );
    expect(input.filter((item) => item['type'] === 'function_call').map((item) => item['id'])).toEqual(['fc_68c1f0a2b3c4d5e1', 'fc_68c1f0a2b3c4d5e2']);
  });

  it('throws a ModelProviderError, without replaying, for an error event midway', async () => {
    fake.script({ ...answer, streamErrorAfter: 8 });
    const seen: ModelStreamPart[] = [];
    const error = await (async () => {
      for await (const part of model().stream!(request)) seen.push(part);
    })().catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(ModelProviderError);
    expect((error as Error).message).toContain('server_error');
    expect((error as Error).message).not.toContain(OPENAI_KEY);
    expect(seen.length).toBeGreaterThan(0);
    expect(fake.requests).toHaveLength(1);
  });
});
