// What decision receipts cost: one run started, paused for a person and approved to completion (memory store),
// without receipts and with them (one Ed25519 signature per decision, made in the ledger), and what checking an
// exported audit costs per entry (`verifyAudit`, one Ed25519 verification each).
// Run: npx tsx bench/receipts.bench.ts
import { generateKeyPairSync } from 'node:crypto';
import { createRuntime, verifyAudit, type Runtime } from 'countersign';
import { runView } from 'countersign/http';
import { countingAgent } from '../test/support/runtime-harness.js';
import { formatDuration, measure, printTable } from './support/measure.js';

const ITERATIONS = 1000;
const decisionSecret = 'bench-secret-0123456789abcdef';

async function decidedRun(runtime: Runtime): Promise<string> {
  const paused = await runtime.start('payer', { input: 'pay' });
  const request = paused.pendingApprovals[0]!;
  await runtime.respond(paused.runId, {
    approvalId: request.approvalId,
    approved: true,
    approvedBy: 'ana',
    signature: request.signature!,
  });
  return paused.runId;
}

const agent = countingAgent({ name: 'payer', decisionSecret }).agent;
const plain = createRuntime({ agents: [agent] });
const signing = createRuntime({ agents: [agent], receipts: { privateKey: generateKeyPairSync('ed25519').privateKey } });
const runIds: string[] = [];
const samples = [
  await measure('start, pause, approve, complete: no receipts', () => decidedRun(plain), { iterations: ITERATIONS }),
  await measure('start, pause, approve, complete: with receipts', async () => runIds.push(await decidedRun(signing)), {
    iterations: ITERATIONS,
  }),
  // Again after the signing runs: the first measure also pays for warming the JIT up.
  await measure('start, pause, approve, complete: no receipts, again', () => decidedRun(plain), {
    iterations: ITERATIONS,
  }),
];
const exported = JSON.parse(
  JSON.stringify(await Promise.all(runIds.slice(0, 100).map(async (id) => runView(await signing.get(id))))),
);
const verified = verifyAudit(exported, signing.receiptKeys);
if (!verified.ok || verified.entries !== 100)
  throw new Error('the export did not verify: the numbers measure something else');
samples.push(
  await measure('verifyAudit of 100 runs (100 entries)', () => verifyAudit(exported, signing.receiptKeys), {
    iterations: 100,
  }),
);
printTable(
  `Receipts (${ITERATIONS} runs each, after a warm-up; verification 100 times)`,
  ['what', 'median', 'p99'],
  samples.map((sample) => [sample.name, formatDuration(sample.median), formatDuration(sample.p99)]),
);
