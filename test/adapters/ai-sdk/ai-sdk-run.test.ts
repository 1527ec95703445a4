// A whole run through the real @ai-sdk/anthropic: thinking and two tool calls, a pause for approval, the snapshot
// stored as text and read back, a denial, and the next request carrying the thinking block unchanged.
import { createAnthropic } from '@ai-sdk/anthropic';
import { tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, deserialize, serialize, withApprovalResponse } from 'countersign';
import { createAiSdkModel, fromAiSdkTools } from 'countersign/ai-sdk';
import { anthropicReply } from './anthropic-wire.js';
import { type FakeProviderApi, startFakeProviderApi } from './fake-provider-api.js';

let api: FakeProviderApi;
beforeAll(async () => {
  api = await startFakeProviderApi();
});
afterAll(() => api.close());

const SIGNATURE = 'ErUBCkYIBxgCIkB0Yx2c+q0/3JtmB9hQm8Zr3xd4qkVtb+8Y1x0T2o5mQ==';
const THINKING = 'Two deletions; /etc/hosts is a system file, so that one needs a person.';

describe('a run over createAiSdkModel and fromAiSdkTools', () => {
  it('pauses for the gated call, survives serialize and deserialize, and sends the signed thinking back unchanged with both results', async () => {
    // The model streams: each answer comes as the Messages API's server-sent events.
    api.script(
      anthropicReply({
        id: 'msg_01',
        content: [
          { type: 'thinking', thinking: THINKING, signature: SIGNATURE },
          { type: 'tool_use', id: 'toolu_tmp', name: 'delete_file', input: { path: '/tmp/cache' } },
          { type: 'tool_use', id: 'toolu_etc', name: 'delete_file', input: { path: '/etc/hosts' } },
        ],
        stopReason: 'tool_use',
        usage: { input_tokens: 80, output_tokens: 60 },
      }),
      anthropicReply({
        id: 'msg_02',
        content: [{ type: 'text', text: 'Deleted /tmp/cache; /etc/hosts was kept.' }],
        stopReason: 'end_turn',
        usage: { input_tokens: 140, output_tokens: 12 },
      }),
    );
    const deleted: string[] = [];
    const agent = createAgent({
      name: 'ai-sdk-files',
      instructions: 'You manage files.',
      model: createAiSdkModel({
        model: createAnthropic({ baseURL: api.baseURL, apiKey: 'sk-ant-test' })('claude-sonnet-4-5'),
        providerOptions: { anthropic: { thinking: { type: 'enabled', budgetTokens: 1024 } } },
        maxOutputTokens: 512,
      }),
      tools: fromAiSdkTools({
        delete_file: tool({
          description: 'Delete a file',
          inputSchema: z.object({ path: z.string() }),
          needsApproval: ({ path }) => path.startsWith('/etc/'),
          execute: async ({ path }) => {
            deleted.push(path);
            return `deleted ${path}`;
          },
        }),
      }),
    });

    const paused = await agent.execute({ input: 'Delete /tmp/cache and /etc/hosts' });
    expect(paused.status).toBe('awaitingApproval');
    expect(paused.pendingApprovals.map((request) => request.toolCallId)).toEqual(['toolu_etc']);

    const stored = deserialize(serialize(paused));
    const approvalId = stored.pendingApprovals[0]!.approvalId;
    const done = await agent.execute(
      withApprovalResponse(
        stored,
        { approvalId, approved: false, reason: 'system file', approvedBy: 'alice' },
        { agent },
      ),
    );

    expect(done.status).toBe('completed');
    expect(done.output).toBe('Deleted /tmp/cache; /etc/hosts was kept.');
    expect(deleted).toEqual(['/tmp/cache']);
    // @ai-sdk/anthropic counts a missing cache_read_input_tokens as 0 cached.
    expect(done.usage).toEqual({ inputTokens: 220, outputTokens: 72, cachedInputTokens: 0 });

    const second = api.requests[1]!;
    expect(second.body).toContain(
      `{"type":"thinking","thinking":${JSON.stringify(THINKING)},"signature":"${SIGNATURE}"}`,
    );
    const [user, assistant, results] = second.json.messages;
    expect(user).toEqual({ role: 'user', content: [{ type: 'text', text: 'Delete /tmp/cache and /etc/hosts' }] });
    expect(assistant).toEqual({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: THINKING, signature: SIGNATURE },
        { type: 'tool_use', id: 'toolu_tmp', name: 'delete_file', input: { path: '/tmp/cache' } },
        { type: 'tool_use', id: 'toolu_etc', name: 'delete_file', input: { path: '/etc/hosts' } },
      ],
    });
    // Both results in one user turn, as Anthropic requires; the denial is told in the core's words.
    const toolMessages = done.messages.filter((entry) => entry.role === 'tool');
    expect(results).toEqual({
      role: 'user',
      content: toolMessages.map((entry) => ({
        type: 'tool_result',
        tool_use_id: entry.toolCallId,
        content: entry.content,
      })),
    });
    expect(results.content.map((block: { tool_use_id: string }) => block.tool_use_id)).toEqual([
      'toolu_tmp',
      'toolu_etc',
    ]);
    expect(toolMessages.map((entry) => entry.parts?.[0])).toMatchObject([{ outcome: 'ok' }, { outcome: 'denied' }]);
    expect(second.json.system).toEqual([{ type: 'text', text: 'You manage files.' }]);
  });
});
