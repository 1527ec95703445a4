// The AI SDK's own mock model (`MockLanguageModelV3` from `ai/test`), as a new user writes a first test with it:
// a mock with doGenerate only (its doStream throws 'Not implemented') answers through doGenerate, a mock with
// doStream streams, and an AI SDK tool's object result reaches the model as a `json` output.
import type {
  LanguageModelV3CallOptions,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamPart,
} from '@ai-sdk/provider';
import { tool } from 'ai';
import { convertArrayToReadableStream, MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { approveAll, createAgent, type RunEvent } from 'countersign';
import { createAiSdkModel, fromAiSdkTools } from 'countersign/ai-sdk';

const usage = {
  inputTokens: { total: 5, noCache: 5, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 3, text: 3, reasoning: undefined },
};

const callTurn: LanguageModelV3GenerateResult = {
  content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'lookup_user', input: JSON.stringify({ id: 7 }) }],
  finishReason: { unified: 'tool-calls', raw: 'tool_use' },
  usage,
  warnings: [],
};
const textTurn = (text: string): LanguageModelV3GenerateResult => ({
  content: [{ type: 'text', text }],
  finishReason: { unified: 'stop', raw: 'stop' },
  usage,
  warnings: [],
});

const lookupUser = tool({
  description: 'Look a user up',
  inputSchema: z.object({ id: z.number() }),
  execute: async ({ id }) => ({ id, name: 'Ada', roles: ['admin'] }),
});

/** The tool message of the prompt the model was given on its second call. */
const toolMessageOf = (options: LanguageModelV3CallOptions | undefined) =>
  options?.prompt.find((message) => message.role === 'tool');

describe('createAiSdkModel with the AI SDK MockLanguageModelV3', () => {
  it('runs a gated AI SDK tool with a mock that only has doGenerate, and sends the object result back as a json output', async () => {
    const mock = new MockLanguageModelV3({ doGenerate: [callTurn, textTurn('Ada is an admin.')] });
    const agent = createAgent({
      name: 'mock-generate',
      model: createAiSdkModel({ model: mock }),
      tools: fromAiSdkTools({ lookup_user: lookupUser }),
    });

    const paused = await agent.execute({ input: 'Who is user 7?' });
    expect(paused.status).toBe('awaitingApproval');
    const done = await agent.execute(approveAll(paused, 'alice', { agent }));

    expect(done.status).toBe('completed');
    expect(done.output).toBe('Ada is an admin.');
    expect(mock.doGenerateCalls).toHaveLength(2);
    expect(toolMessageOf(mock.doGenerateCalls[1])).toEqual({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'c1',
          toolName: 'lookup_user',
          output: { type: 'json', value: { id: 7, name: 'Ada', roles: ['admin'] } },
        },
      ],
    });
  });

  it('keeps a string result as a text output', async () => {
    const mock = new MockLanguageModelV3({ doGenerate: [callTurn, textTurn('Found.')] });
    const tools = fromAiSdkTools({
      lookup_user: tool({
        description: 'Look a user up',
        inputSchema: z.object({ id: z.number() }),
        needsApproval: false,
        execute: async () => 'Ada',
      }),
    });
    const done = await createAgent({ name: 'mock-text', model: createAiSdkModel({ model: mock }), tools }).execute({
      input: 'Who is user 7?',
    });

    expect(done.output).toBe('Found.');
    expect(toolMessageOf(mock.doGenerateCalls[1])?.content[0]).toMatchObject({
      output: { type: 'text', value: 'Ada' },
    });
  });

  it('streams with a mock that has doStream, announcing its deltas', async () => {
    const parts: LanguageModelV3StreamPart[] = [
      { type: 'text-start', id: 't1' },
      { type: 'text-delta', id: 't1', delta: 'Hel' },
      { type: 'text-delta', id: 't1', delta: 'lo.' },
      { type: 'text-end', id: 't1' },
      { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
    ];
    const mock = new MockLanguageModelV3({ doStream: { stream: convertArrayToReadableStream(parts) } });
    const deltas: string[] = [];
    const onEvent = (event: RunEvent) => {
      if (event.type === 'model-delta') deltas.push(event.delta);
    };
    const done = await createAgent({
      name: 'mock-stream',
      model: createAiSdkModel({ model: mock }),
      tools: [],
      onEvent,
    }).execute({ input: 'Hi' });

    expect(done.output).toBe('Hello.');
    expect(deltas).toEqual(['Hel', 'lo.']);
    expect(mock.doGenerateCalls).toHaveLength(0);
  });
});
