// Policy decision time with 1,000 rules, and the cost of redaction plus warnings on a 10 KB argument object.
// Run: npx tsx bench/policy.bench.ts
import { z } from 'zod';
import { defineTool, presentArgs, type PolicyRule } from 'countersign';
import { compileRules } from '../src/policy/policy.js';
import { formatDuration, measure, printTable } from './support/measure.js';

const tool = defineTool({ name: 'prefix_777_x', description: 'bench', input: z.object({}), execute: () => 'ok' });
const ctx = {
  runId: 'run',
  toolCallId: 'call',
  messages: [],
  tool: { name: tool.name, description: tool.description },
};

function ruleList(kind: 'exact' | 'glob' | 'mixed' | 'when'): PolicyRule[] {
  return Array.from({ length: 1000 }, (_, index): PolicyRule => {
    const glob = kind === 'exact' || (kind === 'mixed' && index % 2 === 0) ? `tool_${index}` : `prefix_${index}_*`;
    return kind === 'when'
      ? { id: `r${index}`, tool: glob, action: 'allow', when: (args: { n?: number }) => (args.n ?? 0) > index }
      : { id: `r${index}`, tool: glob, action: index % 3 === 0 ? 'ask' : 'allow' };
  });
}

const rows: string[][] = [];
for (const kind of ['exact', 'glob', 'mixed', 'when'] as const) {
  const rules = compileRules(ruleList(kind));
  for (const toolName of ['tool_998', 'prefix_777_x', 'no_match_at_all']) {
    const target = { toolName, connector: undefined, args: {}, ctx };
    const sample = await measure(`${kind} ${toolName}`, () => rules.strongest(target), {
      iterations: 20_000,
      warmup: 2_000,
    });
    rows.push([kind, toolName, formatDuration(sample.median), formatDuration(sample.p99)]);
  }
}
printTable(
  'Policy decision with 1,000 rules (target: under 20 µs median)',
  ['rules', 'tool called', 'median', 'p99'],
  rows,
);

function tenKilobytes(): Record<string, unknown> {
  const records = Array.from({ length: 85 }, (_, index) => ({
    id: index,
    name: `customer ${index}`,
    email: `person${index}@example.com`,
    apiKey: `sk-${index}-abcdefghijklmnop`,
    note: index === 7 ? 'pay \u202Eusd' : 'regular note text',
  }));
  return { batch: 'nightly', records, password: 'hunter2' };
}
const args = tenKilobytes();
const size = JSON.stringify(args).length;
const present = await measure('presentArgs 10 KB', () => presentArgs(args), { iterations: 5_000 });
printTable(
  `Redaction plus warnings on a ${(size / 1024).toFixed(1)} KB argument object`,
  ['operation', 'median', 'p99'],
  [['presentArgs (redact, escape, warn)', formatDuration(present.median), formatDuration(present.p99)]],
);
