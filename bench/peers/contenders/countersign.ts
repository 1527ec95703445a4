// countersign itself, as users run it: the built library (dist/, `npm run build`, which `npm run bench:peers`
// runs first), plain JavaScript like every peer's package, not the sources through tsx (whose esbuild
// keepNames wraps every named closure in a `__name` call users never pay). execute, serialize, deserialize,
// withApprovalResponse, execute; the probes also use the runtime with the memory store.
import { z } from 'zod';
import {
  createAgent,
  createRuntime,
  defineTool,
  deserialize,
  serialize,
  withApprovalResponse,
  type Agent,
  type AgentSnapshot,
  type AssistantMessage,
  type Message,
  type Model,
} from '../../../dist/index.js';
import { DAYS_30, expectOneRun, expiryFields, FINAL_ANSWER, PATH, REQUEST, runCounter, type Contender } from '../scenario.js';

const ask = (paths: readonly string[]): AssistantMessage => ({
  role: 'assistant',
  content: '',
  toolCalls: paths.map((path, index) => ({ id: `call_delete_${index}`, name: 'delete_file', args: { path } })),
});
const answer: AssistantMessage = { role: 'assistant', content: FINAL_ANSWER };

/** A fake model: a tool call for a user message, the final answer after a tool result. */
function fakeModel(paths: readonly string[] = [PATH]): Model {
  const turn = ask(paths);
  return { generate: async ({ messages }) => ({ message: messages.at(-1)?.role === 'tool' ? answer : turn }) };
}

function setup(options: { paths?: readonly string[]; clock?: () => number; approvalTtlMs?: number } = {}) {
  const counter = runCounter();
  const deleteFile = defineTool({
    name: 'delete_file',
    description: 'Delete a file',
    input: z.object({ path: z.string() }),
    needsApproval: true,
    execute: async () => counter.run(),
  });
  const agent = createAgent({
    name: 'files',
    model: fakeModel(options.paths),
    tools: [deleteFile],
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.approvalTtlMs ? { approvalTtlMs: options.approvalTtlMs } : {}),
  });
  return { agent, counter };
}

const input = (prior: readonly Message[] = []): Message[] => [...prior, { role: 'user', content: REQUEST }];
const approve = (agent: Agent, snapshot: AgentSnapshot, index = 0) =>
  withApprovalResponse(snapshot, { approvalId: snapshot.pendingApprovals[index]!.approvalId, approved: true, approvedBy: 'bench' }, { agent });

export const countersign: Contender = {
  name: 'countersign',

  prepare(prior) {
    const { agent, counter } = setup();
    const messages = input(prior);
    return async (lap) => {
      const paused = await agent.execute({ input: messages });
      lap();
      const text = serialize(paused);
      lap();
      const loaded = deserialize(text);
      lap();
      const approved = approve(agent, loaded);
      lap();
      const done = await agent.execute(approved);
      lap();
      if (done.status !== 'completed') throw new Error(`countersign: the cycle ended ${done.status}`);
      expectOneRun('countersign', counter.take());
      return Buffer.byteLength(text);
    };
  },

  async duplicateApproval() {
    const { agent, counter } = setup();
    const text = serialize(await agent.execute({ input: input() }));
    const approved = approve(agent, deserialize(text));
    const first = await agent.execute(approved);
    const second = await agent.execute(approved);
    const bare = counter.take();
    const runtime = createRuntime({ agents: [agent] });
    const paused = await runtime.start('files', { input: input() });
    const response = { approvalId: paused.pendingApprovals[0]!.approvalId, approved: true, approvedBy: 'bench' };
    await runtime.respond(paused.runId, response);
    const again = await runtime.respond(paused.runId, response);
    return (
      `agent.execute on the same approved snapshot twice (no store): ran ${bare}x (${first.status}, ${second.status}); ` +
      `runtime.respond twice (memory store, compare-and-set): ran ${counter.take()}x, second answered duplicate: ${again.duplicate}`
    );
  },

  async partialAnswer() {
    const { agent, counter } = setup({ paths: ['/tmp/a.csv', '/tmp/b.csv'] });
    const paused = await agent.execute({ input: input() });
    const half = await agent.execute(approve(agent, paused, 0));
    const ranHalf = counter.take();
    const rest = withApprovalResponse(half, { approvalId: paused.pendingApprovals[1]!.approvalId, approved: false, reason: 'keep it', approvedBy: 'bench' }, { agent });
    const done = await agent.execute(rest);
    const tool = done.messages.filter((message) => message.role === 'tool').length;
    return (
      `one of two approved, resumed: ${half.status}, ${half.pendingApprovals.length} pending, ran ${ranHalf}x (no error); ` +
      `the other denied, resumed: ${done.status}, ran ${counter.take()}x, ${tool} tool results (the denial reaches the model)`
    );
  },

  async expiredApproval() {
    let offset = 0;
    const { agent, counter } = setup({ clock: () => Date.now() + offset, approvalTtlMs: 15 * 60_000 });
    const paused = await agent.execute({ input: input() });
    const text = serialize(paused);
    offset = DAYS_30;
    let refused = 'accepted';
    try {
      approve(agent, deserialize(text));
    } catch (error) {
      refused = `refused with ${(error as Error).name}`;
    }
    const done = await agent.execute(deserialize(text));
    return (
      `approvalTtlMs gives each request expiresAt (fields: ${expiryFields(text).join(', ')}); ` +
      `an approval 30 days later: ${refused}; resuming the expired run: ${done.status}, ran ${counter.take()}x (onExpire 'deny': the model reads the denial)`
    );
  },
};
