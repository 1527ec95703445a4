// Message parts, provider metadata and usage: what a provider needs back after a pause survives the snapshot byte for
// byte, tool results say how each call ended, and the run sums what its model calls used.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  defineTool,
  deserialize,
  serialize,
  withApprovalResponse,
  type AssistantMessage,
  type Model,
  type ModelResponse,
} from 'countersign';
import { testAgent } from '../support/test-kit.js';

const thinking: AssistantMessage = {
  role: 'assistant',
  content: 'I will read it, then delete it.',
  parts: [
    {
      type: 'reasoning',
      text: 'The user wants the draft gone; check it first.',
      signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds',
      providerMetadata: { anthropic: { cacheControl: { type: 'ephemeral' } } },
    },
    {
      type: 'reasoning',
      text: '',
      encryptedContent: 'gAAAAABn-redacted==',
      providerMetadata: { anthropic: { redacted: true } },
    },
    { type: 'text', text: 'I will read it, then delete it.' },
  ],
  toolCalls: [
    { id: 'toolu_read', name: 'read_file', args: { path: '/a' }, providerMetadata: { openai: { itemId: 'fc_1' } } },
    { id: 'toolu_delete', name: 'delete_file', args: { path: '/a' } },
    { id: 'toolu_wipe', name: 'wipe', args: {} },
  ],
  providerMetadata: { anthropic: { responseId: 'msg_01' } },
};

function agentWith(answers: ModelResponse[]) {
  let call = 0;
  const model: Model = { generate: async () => answers[call++]! };
  const tools = [
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
  ];
  return testAgent({ model, tools });
}

describe('message parts, provider metadata and usage', () => {
  it('keeps reasoning, signatures, encrypted content and provider metadata byte for byte across a pause', async () => {
    const agent = agentWith([
      {
        message: thinking,
        usage: { inputTokens: 120, outputTokens: 40, reasoningTokens: 25 },
        finishReason: 'tool-calls',
      },
    ]);
    const paused = await agent.execute({ input: 'remove /a' });
    expect(paused.status).toBe('awaitingApproval');
    const stored = deserialize(serialize(paused));
    const assistant = stored.messages.find((message) => message.role === 'assistant')!;
    expect(assistant).toEqual({
      ...thinking,
      usage: { inputTokens: 120, outputTokens: 40, reasoningTokens: 25 },
      finishReason: 'tool-calls',
    });
    // What goes back to the provider, byte for byte.
    expect(JSON.stringify(assistant.parts)).toBe(JSON.stringify(thinking.parts));
    expect(JSON.stringify(assistant.toolCalls)).toBe(JSON.stringify(thinking.toolCalls));
    expect(JSON.stringify(assistant.providerMetadata)).toBe(JSON.stringify(thinking.providerMetadata));
    expect(stored.usage).toEqual({ inputTokens: 120, outputTokens: 40, reasoningTokens: 25 });
  });

  it('gives each tool result a part saying how the call ended (ok, error, denied) and sums usage over model calls', async () => {
    const agent = agentWith([
      { message: thinking, usage: { inputTokens: 100, outputTokens: 40, cachedInputTokens: 80 } },
      {
        message: { role: 'assistant', content: 'Done.' },
        usage: { inputTokens: 150, outputTokens: 5 },
        finishReason: 'stop',
      },
    ]);
    const paused = await agent.execute({ input: 'remove /a' });
    const approvalId = paused.pendingApprovals[0]!.approvalId;
    const done = await agent.execute(
      deserialize(
        serialize(withApprovalResponse(paused, { approvalId, approved: false, reason: 'keep it' }, { agent })),
      ),
    );
    expect(done.status).toBe('completed');
    const results = done.messages.filter((message) => message.role === 'tool');
    expect(results.map((message) => message.parts)).toEqual([
      [{ type: 'tool-result', toolCallId: 'toolu_read', toolName: 'read_file', outcome: 'ok' }],
      [{ type: 'tool-result', toolCallId: 'toolu_delete', toolName: 'delete_file', outcome: 'denied' }],
      [{ type: 'tool-result', toolCallId: 'toolu_wipe', toolName: 'wipe', outcome: 'error' }],
    ]);
    expect(done.usage).toEqual({ inputTokens: 250, outputTokens: 45, cachedInputTokens: 80 });
    expect(done.messages.at(-1)).toMatchObject({ usage: { inputTokens: 150, outputTokens: 5 }, finishReason: 'stop' });
  });

  it('fails the run, naming the field, when a model answers with a part it cannot keep', async () => {
    const agent = agentWith([
      { message: { role: 'assistant', content: 'x', parts: [{ type: 'file', mediaType: 'image/png' } as never] } },
    ]);
    const failed = await agent.execute({ input: 'go' });
    expect(failed.error).toMatchObject({
      code: 'invalid_model_response',
      message: expect.stringContaining('either data (base64) or a url'),
    });
  });

  it('takes a history with parts, and refuses a stored message whose part has no known type', async () => {
    const agent = agentWith([{ message: { role: 'assistant', content: 'A cat.' } }]);
    const done = await agent.execute({
      input: [
        {
          role: 'user',
          content: 'What is in this picture?',
          parts: [
            { type: 'text', text: 'What is in this picture?' },
            { type: 'file', mediaType: 'image/png', url: 'https://example.com/cat.png' },
          ],
        },
      ],
    });
    expect(done.messages[0]!.parts).toHaveLength(2);
    const text = serialize(done).replace('"type":"file"', '"type":"hologram"');
    expect(() => deserialize(text)).toThrow(/parts\[1\]\.type must be text, reasoning, file or tool-result/);
  });
});
