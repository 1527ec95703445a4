// Sub-agents (agentAsTool): the full pause/resume cycle (execute, serialize, deserialize, approve, execute) when the
// call that needs a person is a sub-agent's, one and two delegations deep, against the same call made by the agent
// itself (goal: a nested cycle within 1.5 times the flat one), and what the nested pause adds to the stored snapshot.
// Run: npx tsx bench/nested.bench.ts   (or npm run bench -- nested)
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { z } from 'zod';
import {
  type Agent,
  agentAsTool,
  createAgent,
  defineTool,
  deserialize,
  serialize,
  withApprovalResponse,
} from 'countersign';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';
import { formatDuration, percentile, printTable } from './support/measure.js';

const SECRET = 'bench-nested-secret-0123456789abcdef';

/** A model that asks for `name(args)` once, then answers with the result. */
function asksOnce(name: string, args: unknown) {
  const call = toolCallTurn([{ id: `call_${name}`, name, args }]);
  return createScriptedModel((request) =>
    request.messages.at(-1)?.role === 'tool' ? textTurn(request.messages.at(-1)!.content) : call,
  );
}

const deploy = defineTool({
  name: 'deploy',
  description: 'Deploy a version',
  input: z.object({ version: z.string() }),
  needsApproval: true,
  execute: async ({ version }) => `deployed ${version}`,
});

function deployer(name: string, secret?: string): Agent {
  return createAgent({
    name,
    model: asksOnce('deploy', { version: '1.4' }),
    tools: [deploy],
    ...(secret === undefined ? {} : { decisionSecret: secret }),
  });
}

/** An agent that delegates to `child` once. */
function delegating(name: string, child: Agent): Agent {
  return createAgent({
    name,
    model: asksOnce(child.name, { task: 'ship 1.4' }),
    tools: [agentAsTool(child)],
    decisionSecret: SECRET,
  });
}

/** The lead's own turn without nesting: the same model calls, with a plain tool in place of the sub-agent. */
const plainLead = createAgent({
  name: 'plain-lead',
  model: asksOnce('handoff', { task: 'ship 1.4' }),
  tools: [
    defineTool({
      name: 'handoff',
      description: 'Hand a task over',
      input: z.object({ task: z.string() }),
      needsApproval: false,
      execute: async () => 'deployed 1.4',
    }),
  ],
  decisionSecret: SECRET,
});

const shapes: Record<string, Agent> = {
  'flat (the agent calls deploy)': deployer('flat', SECRET),
  'one level (lead › deployer)': delegating('lead', deployer('deployer')),
  'two levels (lead › coder › deployer)': delegating('lead2', delegating('coder', deployer('deployer2'))),
};

/** One cycle; the time it took and the size of the stored pause. */
async function cycle(agent: Agent): Promise<{ readonly ms: number; readonly bytes: number }> {
  const started = performance.now();
  const paused = await agent.execute({ input: 'ship 1.4' });
  const text = serialize(paused);
  const loaded = deserialize(text);
  const request = loaded.pendingApprovals[0]!;
  const approved = withApprovalResponse(
    loaded,
    { approvalId: request.approvalId, approved: true, approvedBy: 'ana', signature: request.signature! },
    { agent },
  );
  const done = await agent.execute(approved);
  const ms = performance.now() - started;
  if (done.status !== 'completed') throw new Error(`cycle ended ${done.status}`);
  return { ms, bytes: Buffer.byteLength(text) };
}

/** The same work as one level of nesting, done flat: the deployer's own cycle, then the lead's turn with a plain tool. */
async function sameWorkFlat(): Promise<{ readonly ms: number; readonly bytes: number }> {
  const { ms, bytes } = await cycle(shapes['flat (the agent calls deploy)']!);
  const started = performance.now();
  const done = await plainLead.execute({ input: 'ship 1.4' });
  if (done.status !== 'completed') throw new Error(`the plain lead ended ${done.status}`);
  return { ms: ms + performance.now() - started, bytes };
}

const SAME_WORK = 'the two agents’ work without nesting (deployer cycle + lead turn)';
const runs: [string, () => Promise<{ readonly ms: number; readonly bytes: number }>][] = [
  ...Object.entries(shapes).map(([name, agent]) => [name, () => cycle(agent)] as [string, typeof sameWorkFlat]),
  [SAME_WORK, sameWorkFlat],
];
const ITERATIONS = 2000;
const times = new Map<string, number[]>(runs.map(([name]) => [name, []]));
const sizes = new Map<string, number>();
for (let round = 0; round < 200; round++) for (const [, run] of runs) await run();
// Alternated cycle by cycle, so every shape sees the same machine state.
for (let round = 0; round < ITERATIONS; round++) {
  for (const [name, run] of runs) {
    const { ms, bytes } = await run();
    times.get(name)!.push(ms);
    sizes.set(name, bytes);
  }
}

const flat = percentile(
  [...times.get('flat (the agent calls deploy)')!].sort((a, b) => a - b),
  0.5,
);
printTable(
  'Pause and resume of a sub-agent’s call against the same call made by the agent itself (goal: within 1.5 times)',
  ['shape', 'median', 'p99', 'vs flat', 'stored pause'],
  runs.map(([name]) => {
    const sorted = [...times.get(name)!].sort((a, b) => a - b);
    const median = percentile(sorted, 0.5);
    return [
      name,
      formatDuration(median),
      formatDuration(percentile(sorted, 0.99)),
      `${(median / flat).toFixed(2)}×`,
      name === SAME_WORK ? '(the deployer’s)' : `${sizes.get(name)} bytes`,
    ];
  }),
);
process.stdout.write(
  `\nEach cycle: execute to the pause, serialize, deserialize, approve with withApprovalResponse, execute to the end; the models are scripted (no network), and every agent signs with a decision secret. A nested cycle runs two agents' loops (four model calls, two evaluations) where the flat one runs one (two model calls): the last row is that same work without nesting, so the difference between it and one level is what nesting itself costs. ${ITERATIONS} cycles per shape, alternated. ${process.version}, ${process.platform}/${process.arch}, load ${loadavg()[0]!.toFixed(2)}.\n`,
);
