// The core loop: (a) what the approval gate costs per auto-approved tool call, against calling the
// tool's execute directly; (b) the full pause/resume cycle (execute, serialize, deserialize, approve,
// execute) with 0, 10, 100, 1,000 and 10,000 prior messages, against a third of the Vercel AI SDK 6's
// medians for the same cycle (1.16 ms at 0 messages, 18.5 ms at 1,000; PEERS.md); (c) the same cycle with reasoning
// parts, signatures, usage and tool-result parts against it (the richer message's cost, target within 10 %).
// Run: npx tsx bench/core.bench.ts   (or npm run bench -- core)
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { z } from 'zod';
import {
  createAgent,
  defineTool,
  deserialize,
  serialize,
  withApprovalResponse,
  type AssistantMessage,
  type Message,
  type ToolExecuteContext,
} from 'countersign';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';
import { history, historyWithParts } from './support/history.js';
import { formatDuration, measure, printTable } from './support/measure.js';

// ---------------------------------------------------------------------------------------------
// (a) Gate overhead on auto-approved calls
// ---------------------------------------------------------------------------------------------

const lookupInput = z.object({ id: z.string(), limit: z.number().int().positive() });
const lookupExecute = async (input: { id: string; limit: number }) => ({ id: input.id, rows: input.limit });

/**
 * An agent whose model asks for `calls` auto-approved lookups in one turn, then answers. The model
 * answers from prebuilt messages, so its own cost is a resolved promise.
 */
function gateAgent(calls: number, how: 'needsApproval false' | 'allow rule') {
  const lookup = defineTool({
    name: 'lookup',
    description: 'Look a record up',
    input: lookupInput,
    ...(how === 'needsApproval false' ? { needsApproval: false } : {}),
    execute: lookupExecute,
  });
  const turn = toolCallTurn(
    Array.from({ length: calls }, (_, index) => ({
      id: `call_${index}`,
      name: 'lookup',
      args: { id: `r${index}`, limit: 10 },
    })),
  );
  const final = textTurn('done');
  const model = createScriptedModel((request) => (request.messages.at(-1)?.role === 'tool' ? final : turn));
  return createAgent({
    name: `bench-gate-${how.replace(/ /g, '-')}-${calls}`,
    model,
    tools: [lookup],
    ...(how === 'allow rule'
      ? { policy: { rules: [{ id: 'lookups', tool: 'lookup', action: 'allow' as const }] } }
      : {}),
  });
}

const directCtx: ToolExecuteContext = {
  runId: 'run_direct',
  toolCallId: 'call_direct',
  idempotencyKey: 'run_direct:call_direct',
  signal: new AbortController().signal,
  messages: [],
};
const directTool = defineTool({
  name: 'lookup',
  description: 'Look a record up',
  input: lookupInput,
  needsApproval: false,
  execute: lookupExecute,
});
// The baseline: what an app without a gate does, await the tool's execute.
const direct = await measure('direct execute', () => directTool.execute({ id: 'r1', limit: 10 }, directCtx), {
  iterations: 50_000,
  warmup: 5_000,
});
const textOnly = createAgent({
  name: 'bench-text-only',
  model: createScriptedModel(() => textTurn('done')),
  tools: [],
});
const baseline = await measure('run with no tool call', () => textOnly.execute({ input: 'hi' }), { iterations: 2_000 });

const gateRows: string[][] = [];
const gateSummary: string[] = [];
for (const how of ['needsApproval false', 'allow rule'] as const) {
  const oneAgent = gateAgent(1, how);
  const one = await measure(`${how} 1 call`, () => oneAgent.execute({ input: 'go' }), { iterations: 2_000 });
  gateRows.push([
    how,
    '1',
    formatDuration(one.median),
    formatDuration(one.p99),
    '(fixed cost of a tool turn, incl. a 2nd model call)',
    formatDuration(one.median - baseline.median),
  ]);
  for (const calls of [11, 101, 1001]) {
    const agent = gateAgent(calls, how);
    const sample = await measure(`${how} ${calls} calls`, () => agent.execute({ input: 'go' }), {
      iterations: calls > 500 ? 15 : calls > 50 ? 300 : 1_000,
      warmup: calls > 500 ? 3 : 50,
    });
    // The marginal cost of one more call in the same turn: model calls and per-run costs cancel out.
    const perCall = (sample.median - one.median) / (calls - 1);
    gateRows.push([
      how,
      String(calls),
      formatDuration(sample.median),
      formatDuration(sample.p99),
      formatDuration(perCall),
      formatDuration(perCall - direct.median),
    ]);
    if (calls === 11) gateSummary.push(`${how}: ${formatDuration(perCall - direct.median)}`);
  }
}
printTable(
  'Gate overhead on auto-approved calls (target: at most 15 µs median per call, flat from 1 to 1,001 calls)',
  [
    'approved by',
    'calls in the turn',
    'run median',
    'run p99',
    'per extra call (marginal)',
    'overhead per call vs direct',
  ],
  gateRows,
);
process.stdout.write(
  `\nDirect execute: ${formatDuration(direct.median)} median. A run with no tool call (one model call): ${formatDuration(baseline.median)} median.\n` +
    'Per extra call = (run with N calls - run with 1 call) / (N - 1): what one more auto-approved call in a turn costs ' +
    '(input validation, policy, audit entry, two pure state steps, result), with the model calls and per-run costs cancelled out. ' +
    'Overhead = that minus the direct execute. The row with 1 call shows the fixed cost of a tool turn instead ' +
    '(its last column: run with 1 call - run with no call, which includes the second model call).\n' +
    `Overhead per call at 11 calls: ${gateSummary.join('; ')}.\n`,
);

// ---------------------------------------------------------------------------------------------
// (b) Full cycle at 10, 100 and 1,000 prior messages
// ---------------------------------------------------------------------------------------------

/** A third of the AI SDK 6's median cycle, where PEERS.md measured it. */
const TARGET_MS: Record<number, number> = { 0: 1.16 / 3, 1000: 18.5 / 3 };

const refund = defineTool({
  name: 'issue_refund',
  description: 'Refund an order',
  input: z.object({ orderId: z.string(), amountCents: z.number().int().positive() }),
  needsApproval: true,
  approvalPrompt: (input) => `Refund ${input.amountCents / 100} EUR on order ${input.orderId}?`,
  execute: async (input) => ({ refunded: true, orderId: input.orderId }),
});
const askTurn = toolCallTurn(
  [{ id: 'call_refund', name: 'issue_refund', args: { orderId: '10042', amountCents: 4_500 } }],
  undefined,
  'I will refund it.',
);
const doneTurn = textTurn('Refunded 45 EUR on order 10042.');
const cycleAgent = createAgent({
  name: 'bench-cycle',
  model: createScriptedModel((request) => (request.messages.at(-1)?.role === 'tool' ? doneTurn : askTurn)),
  tools: [refund],
});

function target(count: number, median: number): string {
  const goal = TARGET_MS[count];
  return goal === undefined ? '' : `${formatDuration(goal)} (${median < goal ? 'met' : 'missed'})`;
}

function quantile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length - 1) * p))]!;
}

const phases = ['execute (pause)', 'serialize', 'deserialize', 'approve', 'execute (resume)'] as const;
const cycleRows: string[][] = [];
const phaseRows: string[][] = [];
for (const count of [0, 10, 100, 1_000, 10_000]) {
  const input = count === 0 ? 'Please refund order 10042.' : history(count);
  const iterations = count >= 10_000 ? 40 : count >= 1_000 ? 300 : 1_000;
  const totals: number[] = [];
  const byPhase: number[][] = phases.map(() => []);
  let size = 0;
  const warmup = count >= 10_000 ? 5 : 50;
  for (let iteration = 0; iteration < iterations + warmup; iteration++) {
    const t0 = performance.now();
    const paused = await cycleAgent.execute({ input });
    const t1 = performance.now();
    const text = serialize(paused);
    const t2 = performance.now();
    const loaded = deserialize(text);
    const t3 = performance.now();
    const approved = withApprovalResponse(
      loaded,
      { approvalId: loaded.pendingApprovals[0]!.approvalId, approved: true, approvedBy: 'bench' },
      { agent: cycleAgent },
    );
    const t4 = performance.now();
    const done = await cycleAgent.execute(approved);
    const t5 = performance.now();
    if (done.status !== 'completed') throw new Error(`cycle ended ${done.status}`);
    if (iteration < warmup) continue;
    size = Buffer.byteLength(text);
    totals.push(t5 - t0);
    for (const [index, duration] of [t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4].entries())
      byPhase[index]!.push(duration);
  }
  totals.sort((a, b) => a - b);
  for (const list of byPhase) list.sort((a, b) => a - b);
  const median = quantile(totals, 0.5);
  cycleRows.push([
    count.toLocaleString('en-US'),
    `${(size / 1024).toFixed(1)} KB`,
    formatDuration(median),
    formatDuration(quantile(totals, 0.99)),
    target(count, median),
  ]);
  phaseRows.push([count.toLocaleString('en-US'), ...byPhase.map((list) => formatDuration(quantile(list, 0.5)))]);
}
printTable(
  'Full cycle: execute, serialize, deserialize, approve, execute (target: a third of the AI SDK 6: 0.39 ms at 0 messages, 6.17 ms at 1,000)',
  ['prior messages', 'serialized size', 'median', 'p99', 'target'],
  cycleRows,
);
printTable('Where the cycle goes (medians per phase)', ['prior messages', ...phases], phaseRows);

// ---------------------------------------------------------------------------------------------
// (c) The richer message: the same cycle with reasoning parts, signatures, usage and tool-result parts
// ---------------------------------------------------------------------------------------------

const reasoningAskTurn: AssistantMessage = {
  ...askTurn,
  parts: [
    {
      type: 'reasoning',
      text: 'A refund of 45 EUR on order 10042: this needs a person.',
      signature: 'EqQBCgIYAhIMbenchSignature0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJ',
    },
  ],
};
const partsAgent = createAgent({
  name: 'bench-cycle-parts',
  model: {
    generate: async (request) =>
      request.messages.at(-1)?.role === 'tool'
        ? { message: doneTurn, usage: { inputTokens: 1300, outputTokens: 12 }, finishReason: 'stop' }
        : {
            message: reasoningAskTurn,
            usage: { inputTokens: 1200, outputTokens: 80, reasoningTokens: 40 },
            finishReason: 'tool-calls',
          },
  },
  tools: [refund],
});

async function cycleOnce(agent: typeof cycleAgent, input: string | Message[]): Promise<number> {
  const started = performance.now();
  const paused = await agent.execute({ input });
  const loaded = deserialize(serialize(paused));
  const approved = withApprovalResponse(
    loaded,
    { approvalId: loaded.pendingApprovals[0]!.approvalId, approved: true, approvedBy: 'bench' },
    { agent },
  );
  const done = await agent.execute(approved);
  if (done.status !== 'completed') throw new Error(`cycle ended ${done.status}`);
  return performance.now() - started;
}

const partsRows: string[][] = [];
for (const count of [0, 1_000]) {
  const plainInput = count === 0 ? 'Please refund order 10042.' : history(count);
  const partsInput = count === 0 ? 'Please refund order 10042.' : historyWithParts(count);
  const iterations = count >= 1_000 ? 300 : 1_000;
  const plain: number[] = [];
  const rich: number[] = [];
  // Alternated cycle by cycle, so both see the same machine state.
  for (let iteration = 0; iteration < iterations + 50; iteration++) {
    const a = await cycleOnce(cycleAgent, plainInput);
    const b = await cycleOnce(partsAgent, partsInput);
    if (iteration < 50) continue;
    plain.push(a);
    rich.push(b);
  }
  plain.sort((x, y) => x - y);
  rich.sort((x, y) => x - y);
  const [plainMedian, richMedian] = [quantile(plain, 0.5), quantile(rich, 0.5)];
  partsRows.push([
    count.toLocaleString('en-US'),
    formatDuration(plainMedian),
    formatDuration(richMedian),
    `${(((richMedian - plainMedian) / plainMedian) * 100).toFixed(1)} %`,
    `${(Buffer.byteLength(serialize(await partsAgent.execute({ input: partsInput }))) / 1024).toFixed(1)} KB`,
  ]);
}
printTable(
  'The richer message: the full cycle with reasoning parts, signatures, usage and tool-result parts in the history and the new turn (target: within 10 %)',
  ['prior messages', 'plain (median)', 'with parts (median)', 'difference', 'serialized with parts'],
  partsRows,
);
process.stdout.write(
  `\nThe model is scripted (no network); each cycle makes two model calls and runs one approved tool. ${process.version}, ${process.platform}/${process.arch}, ` +
    `load average ${loadavg()
      .map((value) => value.toFixed(2))
      .join(' ')} (other work on the machine shows in the p99 columns).\n`,
);
