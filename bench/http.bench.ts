// Signed decisions per second over HTTP, with the Redis store, at 50 concurrent clients, beside a signed no-op
// handler (the same signature check and body read, no store) served the same way and measured in the same run.
// Each request decides a distinct pending approval with a Standard Webhooks signature: recorded and enqueued for a
// worker (the approval app in resumeMode 'enqueue', on a plain and on an auto-pipelining connection), or inline (the
// approved tool runs and the model answers before the reply). Beside every rate, the server process's CPU time per
// answered request (process.cpuUsage over the load): steadier than a rate on shared cores.
// The servers run in a child process (this file with --serve) so the load generator does not share their event loop.
// Run: npx tsx bench/http.bench.ts   (REDIS_URL, else redis://127.0.0.1:6379; HTTP_BENCH_SECONDS, default 10;
// HTTP_BENCH_PROFILE=<dir> for a CPU profile of the servers)
import { fork, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { formatDuration, printTable } from './support/measure.js';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const CONNECTIONS = 50;
const SECONDS = Number(process.env['HTTP_BENCH_SECONDS'] ?? 10);
const redisUrl = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';

/** The approval app on Redis: `enqueue` records and queues the resume, `pipelined` the same on an auto-pipelining connection, `inline` resumes before answering. */
type StoreKind = 'enqueue' | 'pipelined' | 'inline';
type FromParent =
  | { type: 'seed'; store: StoreKind; count: number }
  | { type: 'check'; store: StoreKind; runIds: string[] }
  | { type: 'cpu' }
  | { type: 'stop' };
type FromChild =
  | { type: 'ready'; urls: Record<StoreKind | 'noop', string> }
  | { type: 'seeded'; pairs: [runId: string, approvalId: string][] }
  | { type: 'checked'; statuses: Record<string, number>; pending: number }
  | { type: 'cpu'; micros: number }
  | { type: 'stopped'; keysDeleted: number };

// ---------------------------------------------------------------------------------------------------------------
// The child: the approval app on the Redis store, and the trivial handler, each on a free loopback port.

async function serveRole(): Promise<void> {
  const [
    { Hono },
    { Redis },
    { z },
    countersign,
    { createRedisStore, createRedisResumeQueue },
    http,
    { verifyWebhook },
    testing,
  ] = await Promise.all([
    import('hono'),
    import('ioredis'),
    import('zod'),
    import('countersign'),
    import('countersign/redis'),
    import('countersign/http'),
    import('countersign/webhooks'),
    import('countersign/testing'),
  ]);
  const send = (message: FromChild) => process.send!(message);
  const prefix = `cs-bench-http:${randomUUID().slice(0, 8)}:`;
  const redis = new Redis(redisUrl);
  const autoPipelined = new Redis(redisUrl, { enableAutoPipelining: true });
  const tool = countersign.defineTool({
    name: 'send_payment',
    description: 'Send a payment',
    input: z.object({ to: z.string(), cents: z.number().int() }),
    needsApproval: true,
    execute: ({ to }) => `paid ${to}`,
  });
  const model = testing.createScriptedModel(({ messages }) =>
    messages.at(-1)?.role === 'tool'
      ? testing.textTurn('paid')
      : testing.toolCallTurn('send_payment', { to: 'acct-1', cents: 100 }),
  );
  const agent = countersign.createAgent({ name: 'bench-payments', model, tools: [tool] });
  const onRedis = (connection: InstanceType<typeof Redis>) =>
    countersign.createRuntime({
      agents: [agent],
      store: createRedisStore({ redis: connection, prefix }),
      queue: createRedisResumeQueue({ redis: connection, prefix }),
    });
  const runtimes = { enqueue: onRedis(redis), pipelined: onRedis(autoPipelined), inline: onRedis(redis) };
  // The floor of any signed decision: read the body, check the signature, answer; no store.
  const noop = new Hono().post('/runs/:runId/approvals/:approvalId', async (c) => {
    const raw = await c.req.text();
    const headers = {
      id: c.req.header('webhook-id'),
      timestamp: c.req.header('webhook-timestamp'),
      signature: c.req.header('webhook-signature'),
    };
    if (verifyWebhook([SECRET], headers, raw, Math.floor(Date.now() / 1000)) !== undefined)
      return c.json({ error: 'bad signature' }, 401);
    return c.json({ ok: true });
  });
  const options = { webhookSecret: SECRET, bearerToken: `bench-${randomUUID()}` };
  const servers = {
    enqueue: await http.serve(http.createApprovalApp(runtimes.enqueue, { ...options, resumeMode: 'enqueue' }), {
      port: 0,
    }),
    pipelined: await http.serve(http.createApprovalApp(runtimes.pipelined, { ...options, resumeMode: 'enqueue' }), {
      port: 0,
    }),
    inline: await http.serve(http.createApprovalApp(runtimes.inline, options), { port: 0 }),
    noop: await http.serve(noop, { port: 0 }),
  };

  process.on('message', async (message: FromParent) => {
    if (message.type === 'seed') {
      const runtime = runtimes[message.store];
      const pairs: [string, string][] = [];
      let next = 0;
      // As many starts in flight as there will be clients, so seeding takes seconds, not minutes.
      await Promise.all(
        Array.from({ length: CONNECTIONS }, async () => {
          while (next < message.count) {
            next += 1;
            const run = await runtime.start(agent.name, { input: 'pay acct-1' });
            pairs.push([run.runId, run.pendingApprovals[0]!.approvalId]);
          }
        }),
      );
      send({ type: 'seeded', pairs });
    } else if (message.type === 'check') {
      const statuses: Record<string, number> = {};
      for (const runId of message.runIds) {
        const status = (await runtimes[message.store].store.load(runId))?.status ?? 'missing';
        statuses[status] = (statuses[status] ?? 0) + 1;
      }
      send({
        type: 'checked',
        statuses,
        pending: (await runtimes[message.store].store.listPending({ limit: 500 })).items.length,
      });
    } else if (message.type === 'cpu') {
      const { user, system } = process.cpuUsage();
      send({ type: 'cpu', micros: user + system });
    } else {
      await Promise.all(Object.values(servers).map((server) => server.close()));
      let keysDeleted = 0;
      let cursor = '0';
      do {
        const [after, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
        cursor = after;
        if (keys.length > 0) keysDeleted += await redis.unlink(...keys);
      } while (cursor !== '0');
      await Promise.all([redis.quit(), autoPipelined.quit()]);
      send({ type: 'stopped', keysDeleted });
      process.disconnect();
    }
  });
  send({
    type: 'ready',
    urls: {
      enqueue: servers.enqueue.url,
      pipelined: servers.pipelined.url,
      inline: servers.inline.url,
      noop: servers.noop.url,
    },
  });
}

// ---------------------------------------------------------------------------------------------------------------
// The parent: seeds runs, signs one request per run, drives the load with autocannon.

interface AutocannonRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string;
}
interface AutocannonOptions {
  url: string;
  connections: number;
  duration?: number;
  amount?: number;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  requests?: { setupRequest?: (request: AutocannonRequest) => AutocannonRequest }[];
}
interface AutocannonResult {
  requests: { total: number };
  latency: { p50: number; p99: number };
  errors: number;
  timeouts: number;
  non2xx: number;
  '2xx': number;
  start: Date;
  finish: Date;
}
interface AutocannonInstance extends PromiseLike<AutocannonResult> {
  stop(): void;
}
const autocannon = createRequire(import.meta.url)('autocannon') as (options: AutocannonOptions) => AutocannonInstance;

interface Measurement {
  readonly requests: number;
  readonly answered: number;
  readonly rate: number;
  readonly p50: number;
  readonly p99: number;
  readonly failures: number;
}

/** Runs autocannon for at most `seconds` (or until `amount` requests are answered). */
async function load(options: AutocannonOptions, seconds: number): Promise<Measurement> {
  const instance = autocannon(options);
  const timer = setTimeout(() => instance.stop(), seconds * 1000);
  const result = await instance;
  clearTimeout(timer);
  const elapsed = (result.finish.getTime() - result.start.getTime()) / 1000;
  return {
    requests: result.requests.total,
    answered: result['2xx'],
    rate: result['2xx'] / elapsed,
    p50: result.latency.p50,
    p99: result.latency.p99,
    failures: result.errors + result.timeouts + result.non2xx,
  };
}

async function measureRole(): Promise<void> {
  const [{ signWebhook }] = await Promise.all([import('countersign/webhooks')]);
  // HTTP_BENCH_PROFILE=<dir> writes a CPU profile of the server process there, to see where a decision's time goes.
  const profile = process.env['HTTP_BENCH_PROFILE'];
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), ['--serve'], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    execArgv: [...process.execArgv, ...(profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : [])],
  });
  const replies: FromChild[] = [];
  const waiters: (() => void)[] = [];
  child.on('message', (message: FromChild) => {
    replies.push(message);
    for (const wake of waiters.splice(0)) wake();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const reply = async <T extends FromChild['type']>(type: T): Promise<Extract<FromChild, { type: T }>> => {
    for (;;) {
      const index = replies.findIndex((message) => message.type === type);
      if (index !== -1) return replies.splice(index, 1)[0] as Extract<FromChild, { type: T }>;
      const woken = new Promise<void>((resolve) => waiters.push(resolve));
      const code = await Promise.race([woken.then(() => undefined), exited]);
      if (code !== undefined) throw new Error(`The bench server exited (code ${code}) before it answered ${type}.`);
    }
  };
  const ask = <T extends FromChild['type']>(message: FromParent, type: T) => {
    child.send(message);
    return reply(type);
  };

  try {
    const { urls } = await reply('ready');

    /** Seeds `count` paused runs and signs one decision for each: a distinct approval per request. */
    const signedDecisions = async (store: StoreKind, count: number) => {
      const { pairs } = await ask({ type: 'seed', store, count }, 'seeded');
      const now = Math.floor(Date.now() / 1000);
      const requests = pairs.map(([runId, approvalId], index): AutocannonRequest => {
        // A signed body names its target: the signature covers the body, not the path.
        const body = JSON.stringify({ runId, approvalId, approved: true, approvedBy: 'bench' });
        return {
          method: 'POST',
          path: `/runs/${runId}/approvals/${approvalId}`,
          headers: {
            'content-type': 'application/json',
            ...signWebhook(SECRET, `msg_bench_${index}_${randomUUID()}`, now, body),
          },
          body,
        };
      });
      return { pairs, requests };
    };
    /** The load, and the server's CPU time per answered request during it. */
    const withCpu = async (run: () => Promise<Measurement>) => {
      const before = (await ask({ type: 'cpu' }, 'cpu')).micros;
      const measured = await run();
      const after = (await ask({ type: 'cpu' }, 'cpu')).micros;
      return { measured, cpuPerRequest: (after - before) / Math.max(measured.answered, 1) };
    };
    const decide = async (store: StoreKind, count: number, seconds: number) => {
      const { pairs, requests } = await signedDecisions(store, count);
      let next = 0;
      // autocannon builds a connection's next request ahead of sending it; keep a margin so none repeats.
      const amount = Math.max(CONNECTIONS, requests.length - 2 * CONNECTIONS);
      const { measured, cpuPerRequest } = await withCpu(() =>
        load(
          {
            url: urls[store],
            connections: CONNECTIONS,
            amount,
            requests: [{ setupRequest: (request) => ({ ...request, ...(requests[next++] ?? requests.at(-1)!) }) }],
          },
          seconds,
        ),
      );
      // Every decided run must have completed (or, record-only, be ready to resume): the rate counts decisions that landed.
      const sample = pairs.slice(0, Math.min(next, pairs.length, 2_000)).map(([runId]) => runId);
      const { statuses } = await ask({ type: 'check', store, runIds: sample }, 'checked');
      return { measured, cpuPerRequest, statuses, checked: sample.length };
    };
    /** The signed no-op: every request signed like a decision (distinct ids), to a path of the same shape. */
    const signedNoop = async (seconds: number) => {
      const now = Math.floor(Date.now() / 1000);
      const requests = Array.from({ length: 100_000 }, (_, index): AutocannonRequest => {
        const runId = `run_${index}`;
        const body = JSON.stringify({ runId, approvalId: `apr_${index}`, approved: true, approvedBy: 'bench' });
        return {
          method: 'POST',
          path: `/runs/${runId}/approvals/apr_${index}`,
          headers: { 'content-type': 'application/json', ...signWebhook(SECRET, `msg_noop_${index}`, now, body) },
          body,
        };
      });
      let next = 0;
      return withCpu(() =>
        load(
          {
            url: urls.noop,
            connections: CONNECTIONS,
            duration: seconds + 1,
            requests: [{ setupRequest: (request) => ({ ...request, ...requests[next++ % requests.length]! }) }],
          },
          seconds,
        ),
      );
    };
    /** Enough runs for `SECONDS` at the warm-up rate, with a margin; bounded so seeding stays short. */
    const poolFor = (rate: number) => Math.ceil(Math.min(80_000, Math.max(2_000, rate * SECONDS * 1.3)));

    // Warm every server (JIT, Redis scripts, connection pools), and size the decision pools from the warm-up rates.
    await signedNoop(2);
    const kinds = ['enqueue', 'pipelined', 'inline'] as const;
    const warm: Record<string, number> = {};
    for (const kind of kinds) warm[kind] = (await decide(kind, 1_500, 3)).measured.rate;

    // Alternated, twice: the no-op before each decision row, so each ratio compares neighbours in time.
    const results: {
      kind: StoreKind;
      noop: Awaited<ReturnType<typeof signedNoop>>;
      decided: Awaited<ReturnType<typeof decide>>;
    }[] = [];
    for (let round = 0; round < 2; round++) {
      for (const kind of kinds)
        results.push({
          kind,
          noop: await signedNoop(SECONDS),
          decided: await decide(kind, poolFor(warm[kind]!), SECONDS),
        });
    }

    // Under heavy load a latency reaches seconds; formatDuration would print 1.53e+3 ms.
    const latency = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : formatDuration(ms));
    const rate = (value: number) => `${Math.round(value).toLocaleString('en-US')}/s`;
    const cpu = (micros: number) => `${Math.round(micros)} µs`;
    const label: Record<StoreKind, string> = {
      enqueue: 'signed decision, Redis, recorded and enqueued (202)',
      pipelined: 'same, enableAutoPipelining connection',
      inline: 'signed decision, Redis, inline (tool and model run, 200)',
    };
    const rows = results.flatMap(({ kind, noop, decided }) => [
      [
        'signed no-op (signature check and body read, no store)',
        rate(noop.measured.rate),
        cpu(noop.cpuPerRequest),
        latency(noop.measured.p50),
        latency(noop.measured.p99),
        '1.00',
        String(noop.measured.failures),
      ],
      [
        label[kind],
        rate(decided.measured.rate),
        cpu(decided.cpuPerRequest),
        latency(decided.measured.p50),
        latency(decided.measured.p99),
        (decided.measured.rate / noop.measured.rate).toFixed(2),
        String(decided.measured.failures),
      ],
    ]);
    printTable(
      `Signed decisions over HTTP, ${CONNECTIONS} concurrent clients, ~${SECONDS} s each, alternated with the no-op, two rounds (targets: enqueued ≤ 150 µs CPU and ≥ 0.45 of the no-op; inline ≤ 600 µs CPU)`,
      ['handler', 'rate', 'server CPU per request', 'p50', 'p99', 'ratio to no-op', 'failed'],
      rows,
    );
    const statuses = results
      .map(({ kind, decided }) => `${kind} ${JSON.stringify(decided.statuses)} of ${decided.checked}`)
      .join(', ');
    process.stdout.write(
      `\nDecided runs read back: ${statuses}. Load average ${loadavg()
        .map((value) => value.toFixed(1))
        .join(' ')} on ${availableParallelism()} cores.\n`,
    );
  } finally {
    if (child.connected) {
      const { keysDeleted } = await ask({ type: 'stop' }, 'stopped');
      process.stdout.write(`Deleted ${keysDeleted.toLocaleString('en-US')} bench keys from Redis.\n`);
    }
    await exited;
  }
}

// Last, so every declaration above is initialized before either role runs.
if (process.argv.includes('--serve')) await serveRole();
else await measureRole();
