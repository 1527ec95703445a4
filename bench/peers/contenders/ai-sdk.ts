// The Vercel AI SDK 6: generateText with a tool that has `needsApproval: true`. The paused state is the
// message list (the app stores it; the SDK keeps none); approving appends a `tool-approval-response`, and
// the next generateText runs the approved call before it calls the model. The model is a hand-written
// LanguageModelV3 (ai/test's mock records every call, which would grow the heap over a run).
import type { LanguageModelV3, LanguageModelV3GenerateResult } from '@ai-sdk/provider';
import { generateText, stepCountIs, tool, type ModelMessage, type ToolSet } from 'ai';
import { z } from 'zod';
import type { Message } from 'countersign';
import { DAYS_30, expectOneRun, expiryFields, FINAL_ANSWER, later, PATH, REQUEST, runCounter, type Contender } from '../scenario.js';
import { toolNames } from './messages.js';

const usage = { inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 0, text: 0, reasoning: 0 } };

/** A fake model: a tool call for a user message, the final answer after a tool result. */
function fakeModel(paths: readonly string[] = [PATH]): LanguageModelV3 {
  const call: LanguageModelV3GenerateResult = {
    content: paths.map((path, index) => ({ type: 'tool-call', toolCallId: `call_delete_${index}`, toolName: 'delete_file', input: JSON.stringify({ path }) })),
    finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
    usage,
    warnings: [],
  };
  const answer: LanguageModelV3GenerateResult = { content: [{ type: 'text', text: FINAL_ANSWER }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] };
  return {
    specificationVersion: 'v3',
    provider: 'fake',
    modelId: 'fake',
    supportedUrls: {},
    doGenerate: async (options) => (options.prompt.at(-1)?.role === 'tool' ? answer : call),
    doStream: async () => {
      throw new Error('not used');
    },
  };
}

function toModelMessages(prior: readonly Message[]): ModelMessage[] {
  const names = toolNames(prior);
  return prior.map((message): ModelMessage => {
    switch (message.role) {
      case 'system':
        return { role: 'system', content: message.content };
      case 'user':
        return { role: 'user', content: message.content };
      case 'assistant':
        return {
          role: 'assistant',
          content: [
            ...(message.content ? [{ type: 'text' as const, text: message.content }] : []),
            ...(message.toolCalls ?? []).map((call) => ({ type: 'tool-call' as const, toolCallId: call.id, toolName: call.name, input: call.args })),
          ],
        };
      case 'tool':
        return {
          role: 'tool',
          content: [{ type: 'tool-result', toolCallId: message.toolCallId!, toolName: names.get(message.toolCallId!)!, output: { type: 'text', value: message.content } }],
        };
    }
  });
}

function setup(paths?: readonly string[]) {
  const counter = runCounter();
  const tools: ToolSet = {
    delete_file: tool({ description: 'Delete a file', inputSchema: z.object({ path: z.string() }), needsApproval: true, execute: async () => counter.run() }),
  };
  const model = fakeModel(paths);
  const generate = (messages: ModelMessage[]) => generateText({ model, tools, messages, stopWhen: stepCountIs(5), allowSystemInMessages: true });
  return { counter, generate };
}

const input = (prior: ModelMessage[] = []): ModelMessage[] => [...prior, { role: 'user', content: REQUEST }];

/** The approval requests in a stored message list. */
function approvalIds(messages: readonly ModelMessage[]): string[] {
  const last = messages.at(-1);
  if (last?.role !== 'assistant' || typeof last.content === 'string') return [];
  return last.content.flatMap((part) => (part.type === 'tool-approval-request' ? [part.approvalId] : []));
}

const respond = (messages: ModelMessage[], ids: readonly string[], approved = true): ModelMessage[] => [
  ...messages,
  { role: 'tool', content: ids.map((approvalId) => ({ type: 'tool-approval-response' as const, approvalId, approved })) },
];

/** Runs to the approval request and returns the stored message list. */
async function pause(generate: ReturnType<typeof setup>['generate'], messages: ModelMessage[]): Promise<string> {
  const result = await generate(messages);
  return JSON.stringify([...messages, ...result.response.messages]);
}

export const aiSdk: Contender = {
  name: 'Vercel AI SDK 6',

  prepare(prior) {
    const { counter, generate } = setup();
    const messages = input(toModelMessages(prior));
    return async (lap) => {
      const result = await generate(messages);
      if (result.content.every((part) => part.type !== 'tool-approval-request')) throw new Error('AI SDK: no approval request');
      lap();
      const text = JSON.stringify([...messages, ...result.response.messages]);
      lap();
      const loaded = JSON.parse(text) as ModelMessage[];
      lap();
      const approved = respond(loaded, approvalIds(loaded));
      lap();
      const done = await generate(approved);
      lap();
      if (done.text !== FINAL_ANSWER) throw new Error(`AI SDK: the cycle ended with "${done.text}"`);
      expectOneRun('AI SDK', counter.take());
      return Buffer.byteLength(text);
    };
  },

  async duplicateApproval() {
    const { counter, generate } = setup();
    const text = await pause(generate, input());
    const approved = respond(JSON.parse(text) as ModelMessage[], approvalIds(JSON.parse(text) as ModelMessage[]));
    await generate(approved);
    await generate(approved);
    return `the same approved messages resumed twice: ran ${counter.take()}x, no error`;
  },

  async partialAnswer() {
    const { counter, generate } = setup(['/tmp/a.csv', '/tmp/b.csv']);
    const stored = JSON.parse(await pause(generate, input())) as ModelMessage[];
    const ids = approvalIds(stored);
    let outcome = 'completed';
    try {
      const done = await generate(respond(stored, ids.slice(0, 1)));
      outcome = `finished: "${done.text}"`;
    } catch (error) {
      outcome = `threw ${(error as Error).name}`;
    }
    return `one of two approved, resumed: ran ${counter.take()}x, then ${outcome} (the approved call's result is not returned)`;
  },

  async expiredApproval() {
    const { counter, generate } = setup();
    const text = await pause(generate, input());
    const stored = JSON.parse(text) as ModelMessage[];
    await later(DAYS_30, () => generate(respond(stored, approvalIds(stored))));
    const fields = expiryFields(text);
    return `no expiry in the approval request (expiry-like fields: ${fields.length ? fields.join(', ') : 'none'}); approved 30 days later: ran ${counter.take()}x`;
  },
};
