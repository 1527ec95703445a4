// The runtime on its stores: round-trip latency on memory and Redis, bytes
// written to Redis per decision as history grows, decisions per second with 50
// concurrent callers against the raw Lua compare-and-set rate, and the first
// page of pending approvals with 100 and 100,000 runs waiting.
// Run: npx tsx bench/store.bench.ts   (REDIS_URL, else redis://127.0.0.1:6379)
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { z } from 'zod';
import { createAgent, createMemoryStore, createRuntime, defineTool, type AgentSnapshot, type Message, type Runtime, type SnapshotStore } from 'countersign';
import { createRedisStore } from 'countersign/redis';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';
import { formatDuration, measure, printTable } from './support/measure.js';

const redisUrl = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const prefix = `cs-bench:${randomUUID().slice(0, 8)}:`;
const redis = new Redis(redisUrl);

const agent = createAgent({
  name: 'bench-payments',
  tools: [defineTool({ name: 'send_payment', description: 'Send a payment', input: z.object({ to: z.string() }), execute: ({ to }) => `paid ${to}` })],
  model: createScriptedModel(({ messages }) => (messages.at(-1)?.role === 'tool' ? textTurn('paid') : toolCallTurn('send_payment', { to: 'acct-1' }))),
});

/** Earlier conversation of `count` messages, about 250 bytes each. */
function history(count: number): Message[] {
  return Array.from({ length: count }, (_, index): Message => ({
    role: index % 2 === 0 ? 'user' : 'assistant',
    content: `message ${index}: ${'lorem ipsum dolor sit amet '.repeat(9)}`,
  }));
}

const decide = (runtime: Runtime, run: AgentSnapshot, mode: 'inline' | 'record' = 'inline') =>
  runtime.respond(run.runId, { approvalId: run.pendingApprovals[0]!.approvalId, approved: true, approvedBy: 'bench' }, { mode });

/** Counts the bytes of every command argument sent on `connection` while `body` runs. */
async function bytesSent(connection: Redis, body: () => Promise<unknown>): Promise<number> {
  const target = connection as unknown as { sendCommand: (command: { args: unknown[] }, ...rest: unknown[]) => unknown };
  const original = target.sendCommand;
  let bytes = 0;
  target.sendCommand = function (this: unknown, command, ...rest) {
    for (const arg of command.args) bytes += Buffer.isBuffer(arg) ? arg.length : Buffer.byteLength(String(arg));
    return original.call(this, command, ...rest);
  };
  try {
    await body();
  } finally {
    target.sendCommand = original;
  }
  return bytes;
}

async function cleanUp(): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 5000);
    cursor = next;
    if (keys.length > 0) await redis.unlink(...keys);
  } while (cursor !== '0');
}

// 1. Round trip: start to pause, respond to completion.
const stores: [string, SnapshotStore][] = [
  ['memory', createMemoryStore()],
  ['redis', createRedisStore({ redis, prefix })],
];
const latencyRows: string[][] = [];
for (const [name, store] of stores) {
  const runtime = createRuntime({ agents: [agent], store });
  let paused: AgentSnapshot[] = [];
  const start = await measure(`${name} start`, async () => void paused.push(await runtime.start(agent.name, { input: 'pay acct-1' })), { iterations: 2000, warmup: 200 });
  let next = 0;
  const respond = await measure(`${name} respond`, () => decide(runtime, paused[next++]!), { iterations: 2000, warmup: 200 });
  paused = [];
  latencyRows.push([name, 'start → paused', formatDuration(start.median), formatDuration(start.p99)]);
  latencyRows.push([name, 'respond → completed', formatDuration(respond.median), formatDuration(respond.p99)]);
}
printTable('Round trip through the runtime (one caller)', ['store', 'step', 'median', 'p99'], latencyRows);

// 2. Bytes written per decision as the history grows.
const bytesRows: (string | number)[][] = [];
const redisRuntime = createRuntime({ agents: [agent], store: createRedisStore({ redis, prefix }) });
for (const prior of [10, 100, 1000]) {
  const runs = await Promise.all(Array.from({ length: 5 }, () => redisRuntime.start(agent.name, { input: [...history(prior), { role: 'user', content: 'pay acct-1' }] })));
  const recordBytes = await bytesSent(redis, () => decide(redisRuntime, runs[0]!, 'record'));
  const resumeBytes = await bytesSent(redis, () => redisRuntime.resume(runs[0]!.runId));
  const fullBytes = await bytesSent(redis, () => decide(redisRuntime, runs[1]!));
  const stored = Buffer.byteLength(JSON.stringify(runs[2]!.messages));
  bytesRows.push([prior, `${(stored / 1024).toFixed(0)} KB`, recordBytes, resumeBytes, fullBytes]);
}
printTable('Bytes sent to Redis per decision (target: flat as history grows)', ['prior messages', 'history size', 'record the decision', 'resume to completion', 'respond (both)'], bytesRows);

// 3. Decisions per second, 50 concurrent callers, against the raw Lua compare-and-set rate on the same server.
const CALLERS = 50;
const casKey = `${prefix}cas`;
redis.defineCommand('benchCas', {
  numberOfKeys: 1,
  lua: "local v = tonumber(redis.call('GET', KEYS[1]) or '0') if v ~= tonumber(ARGV[1]) then return 0 end redis.call('SET', KEYS[1], ARGV[2]) return 1",
});
const cas = redis as unknown as { benchCas: (key: string, expected: number, next: number) => Promise<number> };
async function rate(total: number, body: (index: number) => Promise<unknown>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CALLERS }, async () => {
      while (next < total) await body(next++);
    }),
  );
  return total / ((performance.now() - started) / 1000);
}
const casRate = await rate(60_000, async (index) => {
  // Each caller keeps its own counter, so every compare-and-set succeeds.
  const key = `${casKey}:${index % CALLERS}`;
  const current = Number((await redis.get(key)) ?? 0);
  return cas.benchCas(key, current, current + 1);
});
const rawCasRate = await rate(60_000, (index) => cas.benchCas(`${casKey}:raw`, index, index));
const decisionRows: string[][] = [];
for (const mode of ['record', 'inline'] as const) {
  const runs: AgentSnapshot[] = [];
  for (let index = 0; index < 4000; index += 100) {
    runs.push(...(await Promise.all(Array.from({ length: 100 }, () => redisRuntime.start(agent.name, { input: 'pay acct-1' })))));
  }
  const decisions = await rate(runs.length, (index) => decide(redisRuntime, runs[index]!, mode));
  decisionRows.push([`decisions, mode ${mode}${mode === 'inline' ? ' (decide, run the tool, call the model, complete)' : ' (load + compare-and-set)'}`, decisions.toFixed(0), `${((decisions / rawCasRate) * 100).toFixed(0)}%`]);
}
decisionRows.unshift(['raw Lua compare-and-set (one EVALSHA, no read)', rawCasRate.toFixed(0), '100%'], ['read + Lua compare-and-set (GET then EVALSHA)', casRate.toFixed(0), `${((casRate / rawCasRate) * 100).toFixed(0)}%`]);
printTable(`Throughput with ${CALLERS} concurrent callers on one connection (target: decisions at least half the raw rate)`, ['operation', 'per second', 'of raw CAS'], decisionRows);

// 4. First page of pending approvals with 100 and 100,000 runs waiting.
const listRows: string[][] = [];
const template = await redisRuntime.start(agent.name, { input: 'pay acct-1' });
const listStore = createRedisStore({ redis, prefix: `${prefix}list:` });
let waiting = 0;
for (const target of [100, 100_000]) {
  while (waiting < target) {
    const batch = Math.min(500, target - waiting);
    await Promise.all(
      Array.from({ length: batch }, (_, index) => {
        const runId = `run_${waiting + index}`;
        const request = { ...template.pendingApprovals[0]!, approvalId: `apr_${waiting + index}`, expiresAt: 1_800_000_000_000 + ((waiting + index) * 7919) % 1_000_000 };
        return listStore.create({ ...template, runId, pendingApprovals: [request], toolCalls: template.toolCalls.map((record) => ({ ...record, approvalId: request.approvalId })) });
      }),
    );
    waiting += batch;
  }
  const first = await measure(`list ${target}`, () => listStore.listPending({ limit: 50 }), { iterations: 500, warmup: 50 });
  const agentPage = await measure(`list ${target} agent`, () => listStore.listPending({ limit: 50, agent: agent.name }), { iterations: 500, warmup: 50 });
  listRows.push([target.toLocaleString('en-US'), formatDuration(first.median), formatDuration(first.p99), formatDuration(agentPage.median)]);
}
printTable('First page (50) of pending approvals (target: the same at 100,000 as at 100)', ['runs waiting', 'median', 'p99', 'median, filtered by agent'], listRows);

await cleanUp();
await redis.quit();
