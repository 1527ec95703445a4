// `npm run bench:peers`: the approve-and-resume scenario (scenario.ts) on countersign and its peers,
// alternated round by round in one process (each round in another order), at 0, 10, 100 and 1,000 prior
// messages; then what each does on a duplicated approval, a partial answer and an expired approval.
// Options: --sizes 0,10,100,1000  --budget-ms 20000 (per history length)  --skip-probes
// Run: npm run bench:peers   (installs bench/peers' own dependencies first when needed)
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { history } from '../support/history.js';
import { formatDuration, percentile, printTable } from '../support/measure.js';
import { aiSdk } from './contenders/ai-sdk.js';
import { countersign } from './contenders/countersign.js';
import { langgraph } from './contenders/langgraph.js';
import { openaiAgents } from './contenders/openai-agents.js';
import { STEPS, type Contender } from './scenario.js';

const { values: options } = parseArgs({
  options: { sizes: { type: 'string', default: '0,10,100,1000' }, 'budget-ms': { type: 'string', default: '20000' }, 'skip-probes': { type: 'boolean', default: false } },
});
const sizes = options.sizes.split(',').map(Number);
const budgetMs = Number(options['budget-ms']);
const MIN_ROUNDS = 30;
const MAX_ROUNDS = 2_000;

const contenders: readonly Contender[] = [countersign, aiSdk, openaiAgents, langgraph];
const peers = contenders.slice(1);

/** Every order of `items`. */
const permutations = (items: readonly number[]): number[][] =>
  items.length <= 1 ? [[...items]] : items.flatMap((item, index) => permutations(items.filter((_, other) => other !== index)).map((rest) => [item, ...rest]));
// Round r runs the systems in the r-th of all their orders, so each follows each of the others equally often: a system pays
// for the garbage and cold caches its predecessor leaves (a plain rotation always put countersign right after LangGraph).
const orders = permutations(contenders.map((_, index) => index));

interface Samples {
  readonly totals: number[];
  readonly steps: number[][];
  bytes: number;
}

const load = () => loadavg().map((value) => value.toFixed(2)).join(' ');
const version = (name: string) => (JSON.parse(readFileSync(new URL(`node_modules/${name}/package.json`, import.meta.url), 'utf8')) as { version: string }).version;
const count = (value: number) => value.toLocaleString('en-US');
const kb = (bytes: number) => (bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 / 1024).toFixed(2)} MB`);
const sorted = (list: readonly number[]) => [...list].sort((a, b) => a - b);
const medianOf = (list: readonly number[]) => percentile(sorted(list), 0.5);
const cell = (list: readonly number[]) => {
  const ordered = sorted(list);
  return `${formatDuration(percentile(ordered, 0.5))} (p99 ${formatDuration(percentile(ordered, 0.99))})`;
};

process.stdout.write(
  `Machine: ${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, ${process.version} ${process.platform}/${process.arch}; load average at start ${load()}.\n` +
    `Peers: ai ${version('ai')}, @openai/agents ${version('@openai/agents')}, @langchain/langgraph ${version('@langchain/langgraph')}, langchain ${version('langchain')}, @langchain/core ${version('@langchain/core')}, zod ${version('zod')} (the library's own version); countersign from ../../dist (built by npm run build, as users run it).\n` +
    `Round robin: each round runs one cycle of every system, in the next of all their ${orders.length} orders; ${budgetMs / 1000} s per history length (${MIN_ROUNDS} to ${count(MAX_ROUNDS)} rounds) after a 3 s warm-up of all four at 10 messages and a few warm-up rounds per length.\n`,
);

// A first pass warms every system up (JIT, module caches) so the first history length measured is not
// also the first one run.
const warmupCycles = contenders.map((contender) => contender.prepare(history(10)));
for (const started = performance.now(); performance.now() - started < 3_000; ) {
  for (const cycle of warmupCycles) await cycle(() => {});
}

const results = new Map<number, Map<Contender, Samples>>();
const rounds = new Map<number, number>();
for (const size of sizes) {
  const prior = history(size);
  const cycles = contenders.map((contender) => ({ contender, cycle: contender.prepare(prior), samples: { totals: [], steps: STEPS.map(() => []), bytes: 0 } as Samples }));
  const warmup = size >= 1_000 ? 5 : 20;
  const started = performance.now();
  let round = 0;
  for (; round < warmup + MAX_ROUNDS; round++) {
    if (round >= warmup + MIN_ROUNDS && performance.now() - started > budgetMs) break;
    for (let turn = 0; turn < cycles.length; turn++) {
      const { cycle, samples } = cycles[orders[round % orders.length]![turn]!]!;
      const laps: number[] = [];
      const t0 = performance.now();
      let last = t0;
      const bytes = await cycle(() => {
        const now = performance.now();
        laps.push(now - last);
        last = now;
      });
      if (round < warmup) continue;
      samples.totals.push(last - t0);
      laps.forEach((duration, step) => samples.steps[step]!.push(duration));
      samples.bytes = bytes;
    }
  }
  rounds.set(size, round - warmup);
  results.set(size, new Map(cycles.map(({ contender, samples }) => [contender, samples])));
  process.stdout.write(`${count(size)} prior messages: ${count(round - warmup)} rounds, load average ${load()}\n`);
}

const samplesOf = (size: number, contender: Contender) => results.get(size)!.get(contender)!;

printTable(
  'Full cycle: run to the approval request, store as a string, parse back, approve, resume to the end (median, p99)',
  ['prior messages', 'rounds', ...contenders.map((contender) => contender.name), 'fastest peer / countersign'],
  sizes.map((size) => {
    const ours = medianOf(samplesOf(size, countersign).totals);
    const fastest = Math.min(...peers.map((peer) => medianOf(samplesOf(size, peer).totals)));
    return [count(size), count(rounds.get(size)!), ...contenders.map((contender) => cell(samplesOf(size, contender).totals)), `${(fastest / ours).toFixed(1)}x`];
  }),
);
printTable(
  'Bytes stored per pause',
  ['prior messages', ...contenders.map((contender) => contender.name)],
  sizes.map((size) => [count(size), ...contenders.map((contender) => kb(samplesOf(size, contender).bytes))]),
);
for (const size of sizes) {
  printTable(
    `Steps at ${count(size)} prior messages (median, p99)`,
    ['system', ...STEPS],
    contenders.map((contender) => [contender.name, ...samplesOf(size, contender).steps.map(cell)]),
  );
}
process.stdout.write(`\nLoad average at the end of the timings: ${load()}.\n`);

if (!options['skip-probes']) {
  const rows: string[][] = [];
  for (const contender of contenders) {
    rows.push([contender.name, await contender.duplicateApproval(), await contender.partialAnswer(), await contender.expiredApproval()]);
  }
  printTable(
    'What each does, found by running it (one tool call needs approval; the tool counts its runs)',
    ['system', 'duplicated approval: the same approved state resumed twice', 'partial answer: two pending, one answered', 'expired approval: is there expiry?'],
    rows,
  );
}
