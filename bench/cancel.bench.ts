// How long a cross-process cancel takes to reach a running tool on Redis: two runtimes, each with its own agent
// object and its own connection (one event loop here, so no scheduling between processes is counted), the tool
// waits on its signal, the other runtime calls cancel. Also what listening costs the first execution that starts it.
// Run: npx tsx bench/cancel.bench.ts   (REDIS_URL, else redis://127.0.0.1:6379)
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { z } from 'zod';
import { type CancelSignal, createRuntime, defineTool } from 'countersign';
import { createRedisStore } from 'countersign/redis';
import { createScriptedModel, toolCallTurn } from 'countersign/testing';
import { testAgent } from '../test/support/test-kit.js';
import { percentileRow, printTable } from './support/measure.js';

const RUNS = 300;
const redisUrl = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const prefix = `cs-bench-cancel:${process.pid}:`;

/** A "process": its own agent (same name) whose tool reports when it starts and when its signal fires. */
function processOn(redis: Redis, cancels?: (inner: CancelSignal) => CancelSignal) {
  const hooks = { started: (_runId: string) => {}, aborted: () => {} };
  const tool = defineTool({
    name: 'long_job',
    description: 'Waits for its signal',
    input: z.object({}),
    needsApproval: false,
    execute: (_input, ctx) =>
      new Promise((resolve) => {
        ctx.signal.addEventListener('abort', () => {
          hooks.aborted();
          resolve('stopped');
        });
        hooks.started(ctx.runId);
      }),
  });
  const agent = testAgent({
    name: 'bench-cancel',
    decisionSecret: 'bench-secret-0123456789abcdef',
    tools: [tool],
    model: createScriptedModel(() => toolCallTurn('long_job', {})),
  });
  const store = createRedisStore({ redis, prefix });
  return {
    hooks,
    runtime: createRuntime({ agents: [agent], store: cancels ? { ...store, cancels: cancels(store.cancels) } : store }),
  };
}

const [workerRedis, otherRedis] = [new Redis(redisUrl), new Redis(redisUrl)];
let publishedAt = 0;
const worker = processOn(workerRedis);
const other = processOn(otherRedis, (inner) => ({
  listen: (listener) => inner.listen(listener),
  publish: (notice) => {
    publishedAt = performance.now();
    return inner.publish(notice);
  },
}));

const endToEnd: number[] = [];
const delivery: number[] = [];
for (let index = 0; index < RUNS + 30; index++) {
  const runId = new Promise<string>((resolve) => (worker.hooks.started = resolve));
  const execution = worker.runtime.start('bench-cancel', { input: 'go' });
  const id = await runId;
  const fired = new Promise<number>((resolve) => (worker.hooks.aborted = () => resolve(performance.now())));
  const started = performance.now();
  await other.runtime.cancel(id, 'bench');
  const at = await fired;
  await execution;
  if (index < 30) continue;
  endToEnd.push(at - started);
  delivery.push(at - publishedAt);
}

// What the first execution pays when nothing else executes in its runtime: a connection and a SUBSCRIBE.
const listenStore = createRedisStore({ redis: workerRedis, prefix });
const listenTimes: number[] = [];
for (let index = 0; index < 100; index++) {
  const started = performance.now();
  const stop = await listenStore.cancels.listen(() => {});
  listenTimes.push(performance.now() - started);
  stop();
}

printTable(
  'Cross-process cancel on Redis (loopback)',
  ['measure', 'median', 'p99', 'max', 'samples'],
  [
    percentileRow('runtime.cancel called → tool signal fired', endToEnd),
    percentileRow('PUBLISH sent → tool signal fired', delivery),
    percentileRow('listen from idle (connect + SUBSCRIBE)', listenTimes),
  ],
);

const keys = await workerRedis.keys(`${prefix}*`);
if (keys.length > 0) await workerRedis.unlink(...keys);
await Promise.all([workerRedis.quit(), otherRedis.quit()]);
