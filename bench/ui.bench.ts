// What the chat stream costs a chat turn against the run alone. One cycle: a user message → the model streams a
// 200-word answer and asks for a gated tool → the chat approves → the tool runs → the model streams 200 words again.
// "run alone": runtime.start and runtime.decide (inline), with a listener that does nothing (a runtime streams the
// model's answer only when someone listens, so this is the run making the same events). "useChat stream": the same cycle
// through createUIChatHandler's fetch handler (in process, no socket), each response read to its end. "AG-UI
// stream": the same through createAgUiHandler. Rounds alternate so drift hits every variant alike; the overhead per
// event divides the extra time by the events the run announced (deltas and commits).
// Run: npx tsx bench/ui.bench.ts
import { z } from 'zod';
import { createAgent, createMemoryStore, createRuntime, defineTool, type Runtime } from 'countersign';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';
import { createAgUiHandler, createUIChatHandler } from 'countersign/ui';
import { formatDuration, measure, printTable, type Sample } from './support/measure.js';

const ROUNDS = 5;
const ITERATIONS = 60;
const words = Array.from({ length: 200 }, (_, index) => `word${index}`).join(' ');

const model = createScriptedModel(
  ({ messages }) => (messages.at(-1)?.role === 'tool' ? textTurn(words) : toolCallTurn('pay', { cents: 1 }, words)),
  { stream: true },
);
const pay = defineTool({
  name: 'pay',
  description: 'Pay',
  input: z.object({ cents: z.number() }),
  needsApproval: true,
  execute: async () => 'ok',
});
const agent = createAgent({ name: 'bench', model, tools: [pay], decisionSecret: 'bench-secret-0123456789abcdef' });

let counter = 0;
const fresh = () => createRuntime({ agents: [agent], store: createMemoryStore() });
const identify = () => 'bench-user';

async function runAlone(runtime: Runtime): Promise<void> {
  const paused = await runtime.start('bench', { input: 'pay', sessionId: 's' });
  const request = paused.pendingApprovals[0]!;
  await runtime.decide(paused.runId, {
    approvalId: request.approvalId,
    approved: true,
    approvedBy: 'bench-user',
    ...(request.signature === undefined ? {} : { signature: request.signature }),
  });
}

const post = (url: string, body: unknown) =>
  new Request(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

async function useChatCycle(runtime: Runtime): Promise<void> {
  const chat = createUIChatHandler(runtime, { agent: 'bench', identify });
  const id = `c${counter++}`;
  const user = { id: 'u', role: 'user', parts: [{ type: 'text', text: 'pay' }] };
  await (await chat.fetch(post('http://bench/api/chat', { id, messages: [user] }))).text();
  const [pending] = (await runtime.pending()).items;
  const approval = { id: pending!.request.approvalId, approved: true, signature: pending!.request.signature };
  const assistant = {
    id: 'a',
    role: 'assistant',
    parts: [{ type: 'tool-pay', toolCallId: pending!.request.toolCallId, state: 'approval-responded', approval }],
  };
  await (await chat.fetch(post('http://bench/api/chat', { id, messages: [user, assistant] }))).text();
}

async function agUiCycle(runtime: Runtime): Promise<void> {
  const agUi = createAgUiHandler(runtime, { agent: 'bench', identify });
  const threadId = `t${counter++}`;
  const messages = [{ id: 'u', role: 'user', content: 'pay' }];
  await (await agUi.fetch(post('http://bench/api/ag-ui', { threadId, runId: 'r1', messages }))).text();
  const [pending] = (await runtime.pending()).items;
  const resume = [
    {
      interruptId: pending!.request.approvalId,
      status: 'resolved',
      payload: { approved: true },
      metadata: { signature: pending!.request.signature },
    },
  ];
  await (await agUi.fetch(post('http://bench/api/ag-ui', { threadId, runId: 'r2', messages: [], resume }))).text();
}

/** How many events one cycle announces (model deltas and committed events). */
async function eventsPerCycle(): Promise<number> {
  const runtime = fresh();
  let events = 0;
  runtime.subscribe(() => void events++);
  await runAlone(runtime);
  return events;
}

const variants = { 'run alone': runAlone, 'useChat stream': useChatCycle, 'AG-UI stream': agUiCycle } as const;
const samples = new Map<string, Sample[]>(Object.keys(variants).map((name) => [name, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, cycle] of Object.entries(variants)) {
    // A runtime per variant and round: the memory store grows with every run, and each variant gets the same.
    const runtime = fresh();
    if (name === 'run alone') runtime.subscribe(() => undefined);
    samples.get(name)!.push(await measure(name, () => cycle(runtime), { iterations: ITERATIONS, warmup: 10 }));
  }
}
const medianOf = (name: string) => {
  const medians = samples
    .get(name)!
    .map((sample) => sample.median)
    .sort((a, b) => a - b);
  return medians[Math.floor(medians.length / 2)]!;
};
const events = await eventsPerCycle();
const alone = medianOf('run alone');
printTable(
  `A chat turn with a 200-word answer, an approval and a second 200-word answer (${events} events a cycle; median of ${ROUNDS} rounds' medians)`,
  ['variant', 'cycle', 'overhead', 'per event'],
  Object.keys(variants).map((name) => {
    const time = medianOf(name);
    return [
      name,
      formatDuration(time),
      name === 'run alone' ? '' : `${(((time - alone) / alone) * 100).toFixed(1)}%`,
      name === 'run alone' ? '' : formatDuration((time - alone) / events),
    ];
  }),
);
