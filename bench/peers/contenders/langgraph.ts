// LangGraph 1.7 with LangChain 1.5's createAgent and humanInTheLoopMiddleware: invoke() stops with an
// `__interrupt__`; the paused state lives in the checkpointer. "Stored as a string" here is what the
// checkpointer holds for the thread (every checkpoint and pending write, as LangGraph persists them),
// parsed back into an emptied MemorySaver as a fresh process would load it; approving is
// `new Command({ resume: { decisions } })`. The model is a hand-written fake chat model.
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { Command, MemorySaver } from '@langchain/langgraph';
import { createAgent, humanInTheLoopMiddleware, tool } from 'langchain';
import { z } from 'zod';
import type { Message } from 'countersign';
import { DAYS_30, expectOneRun, expiryFields, FINAL_ANSWER, later, PATH, REQUEST, runCounter, type Contender } from '../scenario.js';

/** A fake chat model: a tool call for a user message, the final answer after a tool result. */
class FakeChatModel extends BaseChatModel {
  constructor(private readonly paths: readonly string[]) {
    super({});
  }
  _llmType(): string {
    return 'fake';
  }
  override bindTools(): this {
    return this;
  }
  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const message = ToolMessage.isInstance(messages.at(-1))
      ? new AIMessage(FINAL_ANSWER)
      : new AIMessage({ content: '', tool_calls: this.paths.map((path, index) => ({ id: `call_delete_${index}`, name: 'delete_file', args: { path }, type: 'tool_call' as const })) });
    return { generations: [{ text: typeof message.content === 'string' ? message.content : '', message }] };
  }
}

function toBaseMessages(prior: readonly Message[]): BaseMessage[] {
  return prior.map((message) => {
    switch (message.role) {
      case 'system':
        return new SystemMessage(message.content);
      case 'user':
        return new HumanMessage(message.content);
      case 'assistant':
        return new AIMessage({ content: message.content, tool_calls: (message.toolCalls ?? []).map((call) => ({ id: call.id, name: call.name, args: call.args as Record<string, unknown>, type: 'tool_call' as const })) });
      case 'tool':
        return new ToolMessage({ content: message.content, tool_call_id: message.toolCallId! });
    }
  });
}

const decoder = new TextDecoder();
const encoder = new TextEncoder();
type Bytes = Uint8Array;

/** What the checkpointer holds for one thread, as a string: each serialized value as its own (JSON) text. */
function dumpThread(saver: MemorySaver, threadId: string): string {
  const storage: Record<string, Record<string, [string, string, string | undefined]>> = {};
  for (const [namespace, checkpoints] of Object.entries(saver.storage[threadId] ?? {})) {
    storage[namespace] = Object.fromEntries(Object.entries(checkpoints).map(([id, [checkpoint, metadata, parent]]) => [id, [decoder.decode(checkpoint), decoder.decode(metadata), parent]]));
  }
  const writes: Record<string, Record<string, [string, string, string, string]>> = {};
  for (const [key, entries] of Object.entries(saver.writes)) {
    if ((JSON.parse(key) as string[])[0] !== threadId) continue;
    writes[key] = Object.fromEntries(Object.entries(entries).map(([inner, [taskId, channel, value, path]]) => [inner, [taskId, channel, decoder.decode(value as Bytes), String(path ?? '')]]));
  }
  return JSON.stringify({ storage, writes });
}

/** Empties the thread in the checkpointer and loads it back from `text`. */
async function loadThread(saver: MemorySaver, threadId: string, text: string): Promise<void> {
  await saver.deleteThread(threadId);
  const { storage, writes } = JSON.parse(text) as { storage: Record<string, Record<string, [string, string, string | undefined]>>; writes: Record<string, Record<string, [string, string, string, string]>> };
  saver.storage[threadId] = Object.fromEntries(
    Object.entries(storage).map(([namespace, checkpoints]) => [namespace, Object.fromEntries(Object.entries(checkpoints).map(([id, [checkpoint, metadata, parent]]) => [id, [encoder.encode(checkpoint), encoder.encode(metadata), parent]]))]),
  ) as MemorySaver['storage'][string];
  for (const [key, entries] of Object.entries(writes)) {
    saver.writes[key] = Object.fromEntries(Object.entries(entries).map(([inner, [taskId, channel, value, path]]) => [inner, [taskId, channel, encoder.encode(value), path]])) as MemorySaver['writes'][string];
  }
}

interface AgentState {
  readonly messages: BaseMessage[];
  readonly __interrupt__?: { value?: unknown }[];
}

interface HitlAgent {
  invoke(input: { messages: BaseMessage[] } | Command, config: { configurable: { thread_id: string } }): Promise<AgentState>;
}

function setup(paths: readonly string[] = [PATH]) {
  const counter = runCounter();
  const deleteFile = tool(async () => JSON.stringify(counter.run()), { name: 'delete_file', description: 'Delete a file', schema: z.object({ path: z.string() }) });
  const checkpointer = new MemorySaver();
  // LangChain's types do not hold under our exactOptionalPropertyTypes (the middleware's config is
  // inferred as never); the calls are as documented, typed here by what the bench uses.
  const agent = (createAgent as (params: unknown) => HitlAgent)({
    model: new FakeChatModel(paths),
    tools: [deleteFile],
    middleware: [(humanInTheLoopMiddleware as (config: unknown) => unknown)({ interruptOn: { delete_file: true } })],
    checkpointer,
  });
  let threads = 0;
  const thread = () => ({ configurable: { thread_id: `thread_${String(++threads).padStart(9, '0')}` } });
  const approveAll = (count: number) => new Command({ resume: { decisions: Array.from({ length: count }, () => ({ type: 'approve' as const })) } });
  return { agent, checkpointer, counter, thread, approveAll };
}

const input = (prior: BaseMessage[] = []) => ({ messages: [...prior, new HumanMessage(REQUEST)] });
const pendingActions = (state: AgentState) =>
  ((state.__interrupt__?.[0]?.value as { actionRequests?: unknown[] } | undefined)?.actionRequests ?? []).length;
const lastText = (state: AgentState) => state.messages.at(-1)?.content;

export const langgraph: Contender = {
  name: 'LangGraph 1.7 + LangChain HITL',

  prepare(prior) {
    const { agent, checkpointer, counter, thread, approveAll } = setup();
    const start = input(toBaseMessages(prior));
    return async (lap) => {
      const config = thread();
      const id = config.configurable.thread_id;
      const paused = await agent.invoke(start, config);
      if (pendingActions(paused) !== 1) throw new Error('LangGraph: no approval request');
      lap();
      const text = dumpThread(checkpointer, id);
      lap();
      await loadThread(checkpointer, id, text);
      lap();
      const approved = approveAll(1);
      lap();
      const done = await agent.invoke(approved, config);
      lap();
      if (lastText(done) !== FINAL_ANSWER) throw new Error(`LangGraph: the cycle ended with ${String(lastText(done))}`);
      expectOneRun('LangGraph', counter.take());
      await checkpointer.deleteThread(id);
      return Buffer.byteLength(text);
    };
  },

  async duplicateApproval() {
    const { agent, checkpointer, counter, thread, approveAll } = setup();
    const config = thread();
    await agent.invoke(input(), config);
    const text = dumpThread(checkpointer, config.configurable.thread_id);
    for (let index = 0; index < 2; index++) {
      await loadThread(checkpointer, config.configurable.thread_id, text);
      await agent.invoke(approveAll(1), config);
    }
    return `the same paused checkpoint approved and resumed twice: ran ${counter.take()}x, no error`;
  },

  async partialAnswer() {
    const { agent, counter, thread, approveAll } = setup(['/tmp/a.csv', '/tmp/b.csv']);
    const config = thread();
    await agent.invoke(input(), config);
    let outcome: string;
    try {
      const result = await agent.invoke(approveAll(1), config);
      outcome = `${pendingActions(result)} pending, last message ${JSON.stringify(lastText(result))}`;
    } catch (error) {
      outcome = `threw ${(error as Error).name}: ${(error as Error).message.slice(0, 90)}`;
    }
    return `one decision for two pending calls: ran ${counter.take()}x, ${outcome}`;
  },

  async expiredApproval() {
    const { agent, checkpointer, counter, thread, approveAll } = setup();
    const config = thread();
    await agent.invoke(input(), config);
    const text = dumpThread(checkpointer, config.configurable.thread_id);
    await later(DAYS_30, async () => {
      await loadThread(checkpointer, config.configurable.thread_id, text);
      await agent.invoke(approveAll(1), config);
    });
    const fields = expiryFields(text);
    return `no expiry in the interrupt (expiry-like fields: ${fields.length ? fields.join(', ') : 'none'}); approved 30 days later: ran ${counter.take()}x`;
  },
};
