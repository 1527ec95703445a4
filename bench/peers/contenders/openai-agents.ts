// The OpenAI Agents SDK 0.14 (the last release that runs on Node 20): run() with a tool that has
// `needsApproval: true` stops with `interruptions`; the paused state is `result.state.toString()`,
// parsed back with `RunState.fromString(agent, text)`, approved with `state.approve(item)` (in place)
// and resumed with `run(agent, state)`. The model is a fake `Model`; tracing is off (no network).
import { Agent, run, RunState, setTracingDisabled, tool, Usage, type AgentInputItem, type Model, type ModelResponse } from '@openai/agents';
import { z } from 'zod';
import type { Message } from 'countersign';
import { DAYS_30, expectOneRun, expiryFields, FINAL_ANSWER, later, PATH, REQUEST, runCounter, type Contender } from '../scenario.js';
import { toolNames } from './messages.js';

setTracingDisabled(true);

/** A fake model: a tool call for a user message, the final answer after a tool result. */
function fakeModel(paths: readonly string[] = [PATH]): Model {
  const call = (): ModelResponse => ({
    usage: new Usage(),
    output: paths.map((path, index) => ({ type: 'function_call', callId: `call_delete_${index}`, name: 'delete_file', arguments: JSON.stringify({ path }), status: 'completed' })),
  });
  const answer = (): ModelResponse => ({
    usage: new Usage(),
    output: [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: FINAL_ANSWER }] }],
  });
  return {
    getResponse: async (request) => (typeof request.input !== 'string' && request.input.at(-1)?.type === 'function_call_result' ? answer() : call()),
    getStreamedResponse: () => {
      throw new Error('not used');
    },
  };
}

function toInputItems(prior: readonly Message[]): AgentInputItem[] {
  const names = toolNames(prior);
  return prior.flatMap((message): AgentInputItem[] => {
    switch (message.role) {
      case 'system':
        return [{ type: 'message', role: 'system', content: message.content }];
      case 'user':
        return [{ type: 'message', role: 'user', content: message.content }];
      case 'assistant':
        return [
          ...(message.content ? [{ type: 'message' as const, role: 'assistant' as const, status: 'completed' as const, content: [{ type: 'output_text' as const, text: message.content }] }] : []),
          ...(message.toolCalls ?? []).map((call) => ({ type: 'function_call' as const, callId: call.id, name: call.name, arguments: JSON.stringify(call.args), status: 'completed' as const })),
        ];
      case 'tool':
        return [{ type: 'function_call_result', callId: message.toolCallId!, name: names.get(message.toolCallId!)!, status: 'completed', output: { type: 'text', text: message.content } }];
    }
  });
}

function setup(paths?: readonly string[]) {
  const counter = runCounter();
  const deleteFile = tool({ name: 'delete_file', description: 'Delete a file', parameters: z.object({ path: z.string() }), needsApproval: true, execute: async () => counter.run() });
  const agent = new Agent({ name: 'files', instructions: 'You manage files.', model: fakeModel(paths), tools: [deleteFile] });
  return { agent, counter };
}

const input = (prior: AgentInputItem[] = []): AgentInputItem[] => [...prior, { type: 'message', role: 'user', content: REQUEST }];

async function pause(agent: Agent, items: AgentInputItem[]): Promise<string> {
  return (await run(agent, items)).state.toString();
}

export const openaiAgents: Contender = {
  name: 'OpenAI Agents SDK 0.14',

  prepare(prior) {
    const { agent, counter } = setup();
    const items = input(toInputItems(prior));
    return async (lap) => {
      const result = await run(agent, items);
      if (result.interruptions.length !== 1) throw new Error('OpenAI Agents: no approval request');
      lap();
      const text = result.state.toString();
      lap();
      const state = await RunState.fromString(agent, text);
      lap();
      for (const item of state.getInterruptions()) state.approve(item);
      lap();
      const done = await run(agent, state);
      lap();
      if (done.finalOutput !== FINAL_ANSWER) throw new Error(`OpenAI Agents: the cycle ended with ${String(done.finalOutput)}`);
      expectOneRun('OpenAI Agents', counter.take());
      return Buffer.byteLength(text);
    };
  },

  async duplicateApproval() {
    const { agent, counter } = setup();
    const text = await pause(agent, input());
    const state = await RunState.fromString(agent, text);
    for (const item of state.getInterruptions()) state.approve(item);
    const approved = state.toString();
    await run(agent, await RunState.fromString(agent, approved));
    await run(agent, await RunState.fromString(agent, approved));
    return `the same approved state resumed twice: ran ${counter.take()}x, no error`;
  },

  async partialAnswer() {
    const { agent, counter } = setup(['/tmp/a.csv', '/tmp/b.csv']);
    const state = await RunState.fromString(agent, await pause(agent, input()));
    state.approve(state.getInterruptions()[0]!);
    const half = await run(agent, state);
    const ranHalf = counter.take();
    if (half.interruptions.length === 0) return `one of two approved, resumed: ran ${ranHalf}x, ended: ${String(half.finalOutput)}`;
    const rest = await RunState.fromString(agent, half.state.toString());
    for (const item of rest.getInterruptions()) rest.approve(item);
    const done = await run(agent, rest);
    return (
      `one of two approved, resumed: ran ${ranHalf}x, stops again with ${half.interruptions.length} pending (no error); ` +
      `the other approved, resumed: ran ${counter.take()}x more, ${done.interruptions.length === 0 ? 'completed' : 'still pending'}`
    );
  },

  async expiredApproval() {
    const { agent, counter } = setup();
    const text = await pause(agent, input());
    await later(DAYS_30, async () => {
      const state = await RunState.fromString(agent, text);
      for (const item of state.getInterruptions()) state.approve(item);
      await run(agent, state);
    });
    const fields = expiryFields(text);
    return `no expiry in the approval item (expiry-like fields: ${fields.length ? fields.join(', ') : 'none'}); approved 30 days later: ran ${counter.take()}x`;
  },
};
