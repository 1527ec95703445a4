// An agent on the Anthropic model pauses for approval with thinking in its history, is stored, and resumes:
// the request after the pause carries the thinking exactly as the API signed it and every result of the turn
// in one user turn, errors and denials flagged. The model streams (it has `stream`): the text and thinking reach
// onEvent piece by piece as they come.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createAgent,
  defineTool,
  deserialize,
  serialize,
  withApprovalResponse,
  type ModelDeltaEvent,
} from 'countersign';
import { createAnthropicModel } from 'countersign/anthropic';
import {
  ANTHROPIC_API_KEY,
  type FakeAnthropic,
  messageAnswer,
  startFakeAnthropic,
} from '../../support/fake-anthropic.js';

let fake: FakeAnthropic;
beforeAll(async () => {
  fake = await startFakeAnthropic();
});
afterAll(() => fake.close());

const thinkingBlock = {
  type: 'thinking',
  thinking: 'Read /a first; deleting needs a person; wipe can go now.',
  signature: 'ErUBCkYIBxgCIkB0aGlua2luZw==sig',
};
const redactedBlock = { type: 'redacted_thinking', data: 'EmwKAhgBEgyRedactedThinkingData+/==' };
const calls = [
  { type: 'tool_use', id: 'toolu_read', name: 'read_file', input: { path: '/a' } },
  { type: 'tool_use', id: 'toolu_delete', name: 'delete_file', input: { path: '/a' } },
  { type: 'tool_use', id: 'toolu_wipe', name: 'wipe', input: {} },
];

describe('createAnthropicModel in a run', () => {
  it('streams, then resumes after a stored pause with the thinking unchanged and all tool results in one user turn', async () => {
    fake.answer(
      messageAnswer([thinkingBlock, redactedBlock, { type: 'text', text: 'Reading, then deleting.' }, ...calls], {
        stop_reason: 'tool_use',
        usage: { input_tokens: 200, output_tokens: 90 },
      }),
      messageAnswer([{ type: 'text', text: 'I read /a; deleting it was refused and the wipe failed.' }], {
        usage: { input_tokens: 400, output_tokens: 20 },
      }),
    );
    const deltas: ModelDeltaEvent[] = [];
    const agent = createAgent({
      name: 'anthropic-run',
      onEvent: (event) => {
        if (event.type === 'model-delta') deltas.push(event);
      },
      instructions: 'You manage files.',
      model: createAnthropicModel({
        model: 'claude-test',
        apiKey: ANTHROPIC_API_KEY,
        baseUrl: fake.baseUrl,
        thinking: { budgetTokens: 1024 },
      }),
      tools: [
        defineTool({
          name: 'read_file',
          description: 'Read',
          input: z.object({ path: z.string() }),
          needsApproval: false,
          execute: async () => ({ size: 3 }),
        }),
        defineTool({
          name: 'delete_file',
          description: 'Delete',
          input: z.object({ path: z.string() }),
          needsApproval: true,
          execute: async () => 'deleted',
        }),
        defineTool({
          name: 'wipe',
          description: 'Wipe',
          input: z.object({}),
          needsApproval: false,
          execute: async () => Promise.reject(new Error('disk busy')),
        }),
      ],
    });

    const paused = deserialize(serialize(await agent.execute({ input: 'remove /a' })));
    expect(paused.status).toBe('awaitingApproval');
    const streamed = (kind: ModelDeltaEvent['kind'], turn: number) =>
      deltas.filter((event) => event.kind === kind && event.turn === turn).map((event) => event.delta);
    expect(streamed('reasoning', 1).length).toBeGreaterThan(1);
    expect(streamed('reasoning', 1).join('')).toBe(thinkingBlock.thinking);
    expect(streamed('text', 1).join('')).toBe('Reading, then deleting.');
    // A tool call's deltas say how much of its arguments came, never the arguments.
    const argsChars = (id: string) =>
      deltas.filter((event) => event.toolCallId === id).reduce((sum, event) => sum + (event.argsChars ?? 0), 0);
    expect(argsChars('toolu_read')).toBe(JSON.stringify(calls[0]!.input).length);
    const approvalId = paused.pendingApprovals[0]!.approvalId;
    const denied = deserialize(
      serialize(withApprovalResponse(paused, { approvalId, approved: false, reason: 'keep it' }, { agent })),
    );
    const done = await agent.execute(denied);

    expect(done.status).toBe('completed');
    expect(done.output).toBe('I read /a; deleting it was refused and the wipe failed.');
    expect(streamed('text', 2).join('')).toBe(done.output);
    expect(fake.requests.map((request) => request.json['stream'])).toEqual([true, true]);
    expect(done.usage).toEqual({ inputTokens: 600, outputTokens: 110, cachedInputTokens: 0 });
    const [assistantTurn, resultsTurn] = fake.requests[1]!.json.messages.slice(1);
    expect(JSON.stringify(assistantTurn)).toBe(
      JSON.stringify({
        role: 'assistant',
        content: [thinkingBlock, redactedBlock, { type: 'text', text: 'Reading, then deleting.' }, ...calls],
      }),
    );
    expect(resultsTurn!.role).toBe('user');
    expect(resultsTurn!.content.map((block) => [block['type'], block['tool_use_id'], block['is_error']])).toEqual([
      ['tool_result', 'toolu_read', undefined],
      ['tool_result', 'toolu_delete', true],
      ['tool_result', 'toolu_wipe', true],
    ]);
    expect(resultsTurn!.content[1]!['content']).toContain('keep it');
    expect(resultsTurn!.content[2]!['content']).toContain('disk busy');
    expect(fake.requests).toHaveLength(2);
  });
});
