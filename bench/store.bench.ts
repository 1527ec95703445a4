// The runtime and its stores: the round trip on memory and on Redis, bytes
// written to Redis per decision as history grows, decisions per second with 50
// concurrent callers next to the raw Lua compare-and-set rate on the same
// connection, and the first page of pending approvals with 100 and 100,000
// runs waiting.
// Run: npx tsx bench/store.bench.ts   (REDIS_URL, else redis://127.0.0.1:6379)
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { z } from 'zod';
import {
  approveAll,
  createAgent,
  createMemoryStore,
  createRuntime,
  defineTool,
  serialize,
  type AgentSnapshot,
  type RunEvent,
  type Runtime,
  type SnapshotStore,
} from 'countersign';
import { createRedisStore, type RedisStore } from 'countersign/redis';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';
import { registerScripts } from '../src/stores/redis/scripts.js';
import { bytesSent, history } from '../test/redis/redis-harness.js';
import { formatDuration, measure, printTable } from './support/measure.js';

const redisUrl = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';
/** STORE_BENCH_ONLY=2,3 runs only those sections (numbered as below). */
const only = process.env['STORE_BENCH_ONLY']?.split(',').map(Number);
const section = (index: number) => only === undefined || only.includes(index);
const prefixes: string[] = [];
const connections: Redis[] = [];

function connect(options: { enableAutoPipelining?: boolean } = {}): Redis {
  const redis = new Redis(redisUrl, options);
  connections.push(redis);
  return redis;
}

function storeOn(redis: Redis): RedisStore {
  const prefix = `cs-bench-redis:${randomUUID().slice(0, 8)}:`;
  prefixes.push(prefix);
  return createRedisStore({ redis, prefix });
}

const agent = createAgent({
  name: 'bench-mail',
  tools: [
    defineTool({
      name: 'send_email',
      description: 'Send an email',
      input: z.object({ to: z.string() }),
      execute: ({ to }) => `sent to ${to}`,
    }),
  ],
  model: createScriptedModel(({ messages }) =>
    messages.at(-1)?.role === 'tool' ? textTurn('done') : toolCallTurn('send_email', { to: 'someone@example.com' }),
  ),
});

const paused = (prior: number) =>
  agent.execute({ input: [...history(prior), { role: 'user', content: 'email someone' }] });

const kb = (bytes: number) =>
  bytes < 10_240 ? `${bytes.toLocaleString('en-US')} B` : `${(bytes / 1024).toFixed(0)} KB`;

const decide = (runtime: Runtime, run: AgentSnapshot, mode: 'inline' | 'record') =>
  runtime.respond(
    run.runId,
    { approvalId: run.pendingApprovals[0]!.approvalId, approved: true, approvedBy: 'bench' },
    { mode },
  );

// 1. The round trip through the runtime, one caller: start to the pause, respond to completion.
if (section(1)) {
  const stores: [string, SnapshotStore][] = [
    ['memory', createMemoryStore()],
    ['redis', storeOn(connect())],
  ];
  const rows: string[][] = [];
  for (const [name, store] of stores) {
    const runtime = createRuntime({ agents: [agent], store });
    const runs: AgentSnapshot[] = [];
    const start = await measure(
      `${name} start`,
      async () => void runs.push(await runtime.start(agent.name, { input: 'email someone' })),
      { iterations: 2000, warmup: 200 },
    );
    let next = 0;
    const respond = await measure(`${name} respond`, () => decide(runtime, runs[next++]!, 'inline'), {
      iterations: 2000,
      warmup: 200,
    });
    rows.push([name, 'start → paused for approval', formatDuration(start.median), formatDuration(start.p99)]);
    rows.push([
      name,
      'respond → tool run, model called, completed',
      formatDuration(respond.median),
      formatDuration(respond.p99),
    ]);
  }
  printTable('Round trip through the runtime (one caller)', ['store', 'step', 'median', 'p99'], rows);
}

// 2. Bytes per commit.
if (section(2)) {
  const redis = connect();
  const store = storeOn(redis);
  const rows: string[][] = [];
  for (const prior of [10, 100, 1000]) {
    const run = await paused(prior);
    await store.create(run);
    const decided = approveAll(run, 'bench', { agent });
    const resolved: RunEvent = {
      type: 'approval-resolved',
      runId: run.runId,
      agentName: run.agentName,
      entry: decided.audit[0]!,
    };
    const decision = await bytesSent(redis, () => store.commit(decided, run.version, [resolved]));
    const done = await agent.execute(decided);
    const completed: RunEvent = {
      type: 'run-completed',
      runId: run.runId,
      agentName: run.agentName,
      output: done.output ?? '',
    };
    const resume = await bytesSent(redis, () => store.commit(done, decided.version, [completed]));
    rows.push([prior.toLocaleString('en-US'), kb(serialize(done).length), kb(decision), kb(resume)]);
  }
  printTable(
    'Bytes sent to Redis per commit (every command argument, events and index updates included; target: flat)',
    ['prior messages', 'whole snapshot (serialize)', 'decision commit', 'resume commit (+2 messages)'],
    rows,
  );
}

// 3. Compare-and-set and decision rates on one connection.
if (section(3)) {
  const redis = connect();
  const store = storeOn(redis);
  const scripts = registerScripts(redis);
  const template = await paused(10);
  const runs = 200;
  const created: AgentSnapshot[] = [];
  for (let index = 0; index < runs; index++) {
    const run = { ...template, runId: `run_${randomUUID()}` };
    await store.create(run);
    created.push(run);
  }
  const heads = new Map(created.map((run) => [run.runId, JSON.stringify({ json: { ...run, messages: undefined } })]));
  const versions = new Map(created.map((run) => [run.runId, run.version]));

  // The bare script: version check, head write, TTL on four keys; no events, no index change.
  const indexes = new Map<string, string>();
  for (const run of created) indexes.set(run.runId, (await redis.hget(store.keys.head(run.runId), 'x')) ?? '');
  const rawCommit = async (run: AgentSnapshot) => {
    const version = versions.get(run.runId)!;
    const reply = (await scripts.countersignWriteRun(
      ...store.keys.run(run.runId),
      version,
      version + 1,
      run.messages.length,
      0,
      heads.get(run.runId)!,
      indexes.get(run.runId)!,
      0,
      `field:${version + 1}`,
      '',
      0,
      0,
      0,
      'inline',
      store.keys.prefix,
      '',
      // Nothing folded in: no resume job, no remembered key.
      '',
      run.runId,
      '',
      '',
      '',
      '',
    )) as number[];
    if (reply[0] !== 1) throw new Error(`raw commit refused: ${reply.join(',')}`);
    versions.set(run.runId, version + 1);
  };

  const storeCommit = (withEvent: boolean) => async (run: AgentSnapshot) => {
    const version = versions.get(run.runId)!;
    const next = { ...run, version: version + 1 };
    const event: RunEvent = {
      type: 'approval-requested',
      runId: run.runId,
      agentName: run.agentName,
      request: run.pendingApprovals[0]!,
    };
    await store.commit(next, version, withEvent ? [event] : []);
    versions.set(run.runId, version + 1);
  };

  /** Commits per second with `inFlight` commits outstanding on the one connection, each on its own run, and this process's CPU per commit. */
  const rate = async (commit: (run: AgentSnapshot) => Promise<void>, inFlight: number, total: number) => {
    let issued = 0;
    const cpu = process.cpuUsage();
    const started = performance.now();
    await Promise.all(
      created.slice(0, inFlight).map(async (run) => {
        while (issued < total) {
          issued++;
          await commit(run);
        }
      }),
    );
    const used = process.cpuUsage(cpu);
    return { perSecond: total / ((performance.now() - started) / 1000), cpu: (used.user + used.system) / total };
  };
  const micros = (value: number) => `${Math.round(value)} µs`;

  const rows: string[][] = [];
  let rawRate = 0;
  for (const [name, commit] of [
    ['raw Lua compare-and-set (EVALSHA)', rawCommit],
    ['store.commit, no events', storeCommit(false)],
    ['store.commit, one event (one script: CAS, XADD, index diff)', storeCommit(true)],
  ] as const) {
    await rate(commit, 50, 2_000); // warm-up
    const one = await measure(name, () => commit(created[0]!), { iterations: 2_000, warmup: 200 });
    const fifty = await rate(commit, 50, 40_000);
    if (commit === rawCommit) rawRate = fifty.perSecond;
    rows.push([
      name,
      formatDuration(one.median),
      formatDuration(one.p99),
      Math.round(fifty.perSecond).toLocaleString('en-US'),
      micros(fifty.cpu),
      `${Math.round((fifty.perSecond / rawRate) * 100)}%`,
    ]);
  }

  // Decisions through runtime.respond, each on its own paused run, on this connection and on one that auto-pipelines.
  for (const [label, connection] of [
    ['', redis],
    [', enableAutoPipelining', connect({ enableAutoPipelining: true })],
  ] as const) {
    const runtime = createRuntime({ agents: [agent], store: storeOn(connection) });
    for (const mode of ['record', 'inline'] as const) {
      const runs: AgentSnapshot[] = [];
      for (let filled = 0; filled < 6_000; filled += 200)
        runs.push(
          ...(await Promise.all(
            Array.from({ length: 200 }, () => runtime.start(agent.name, { input: 'email someone' })),
          )),
        );
      let next = 0;
      const one = await measure(`respond ${mode}`, () => decide(runtime, runs[next++]!, mode), {
        iterations: 1_000,
        warmup: 100,
      });
      const total = runs.length - next;
      const cpu = process.cpuUsage();
      const started = performance.now();
      await Promise.all(
        Array.from({ length: 50 }, async () => {
          while (next < runs.length) await decide(runtime, runs[next++]!, mode);
        }),
      );
      const fifty = total / ((performance.now() - started) / 1000);
      const used = process.cpuUsage(cpu);
      const what = mode === 'record' ? 'decide, compare-and-set' : 'decide, run the tool, call the model, complete';
      rows.push([
        `runtime.respond, mode ${mode} (${what})${label}`,
        formatDuration(one.median),
        formatDuration(one.p99),
        Math.round(fifty).toLocaleString('en-US'),
        micros((used.user + used.system) / total),
        `${Math.round((fifty / rawRate) * 100)}%`,
      ]);
    }
  }
  printTable(
    'Commits and decisions on one connection, 50 concurrent callers (target: decisions at least half the raw rate)',
    ['operation', 'median, 1 in flight', 'p99', 'per second, 50 in flight', 'CPU per op (this process)', 'of raw CAS'],
    rows,
  );
}

// 4. First page of pending approvals with 100 and 100,000 runs waiting.
if (section(4)) {
  const redis = connect();
  const rows: string[][] = [];
  const template = await paused(2);
  const request = template.pendingApprovals[0]!;
  for (const waiting of [100, 100_000]) {
    const store = storeOn(redis);
    const base = Date.now() + 3_600_000;
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: 500 }, async () => {
        while (next < waiting) {
          const index = next++;
          const runId = `run_${randomUUID()}`;
          const agentName = `agent-${index % 10}`;
          const sessionId = `session-${index % 1000}`;
          await store.create({
            ...template,
            runId,
            agentName,
            sessionId,
            pendingApprovals: [{ ...request, approvalId: `apr_${randomUUID()}`, expiresAt: base + index }],
          });
        }
      }),
    );
    const fill = performance.now() - started;
    const first = await measure(`first page, ${waiting}`, () => store.listPending({ limit: 50 }), {
      iterations: 500,
      warmup: 50,
    });
    const agentPage = await measure(
      `agent page, ${waiting}`,
      () => store.listPending({ limit: 50, agent: 'agent-3' }),
      { iterations: 500, warmup: 50 },
    );
    const sessionPage = await measure(
      `session page, ${waiting}`,
      () => store.listPending({ limit: 50, sessionId: 'session-3' }),
      { iterations: 500, warmup: 50 },
    );
    const expired = await measure(`expired, ${waiting}`, () => store.expiredRuns(base + 49, 100), {
      iterations: 500,
      warmup: 50,
    });
    rows.push([
      waiting.toLocaleString('en-US'),
      formatDuration(first.median),
      formatDuration(first.p99),
      formatDuration(agentPage.median),
      formatDuration(sessionPage.median),
      formatDuration(expired.median),
      `${Math.round(waiting / (fill / 1000)).toLocaleString('en-US')}/s`,
    ]);
  }
  printTable(
    'First page of pending approvals (limit 50; target: the same with 100 and 100,000 waiting)',
    [
      'runs waiting',
      'listPending median',
      'p99',
      'one agent of 10, median',
      'one session of 1,000, median',
      'expiredRuns (50 due), median',
      'store.create rate while filling (500 in flight)',
    ],
    rows,
  );
}

// Clean up: only this bench's keys (never FLUSHALL, the server may be shared).
{
  const redis = connections[0]!;
  for (const prefix of prefixes) {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 5000);
      cursor = next;
      if (keys.length > 0) await redis.unlink(...keys);
    } while (cursor !== '0');
  }
  for (const connection of connections) connection.disconnect();
}
