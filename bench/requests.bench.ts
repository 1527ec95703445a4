// What a request from a caller outside the agent loop costs (runtime.requestApproval): asking (recorded and
// announced), a decision seen by a waiting handle in the same process (woken by the runtime's event), and on Redis a
// decision recorded by another runtime seen by the waiter (no shared event: it looks again, 100 ms growing to 1 s).
// Run: npx tsx bench/requests.bench.ts   (REDIS_URL, else redis://127.0.0.1:6379)
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { createRuntime, type Runtime } from 'countersign';
import { createRedisStore } from 'countersign/redis';
import { percentileRow, printTable } from './support/measure.js';

const RUNS = 300;
const CROSS_RUNS = 40;
const redisUrl = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const prefix = `cs-bench-requests:${process.pid}:`;

/** Asks, then decides in `decider` and measures until the asker's handle has the decision. */
async function roundTrips(asker: Runtime, decider: Runtime, runs: number, warmup: number) {
  const ask: number[] = [];
  const seen: number[] = [];
  for (let index = 0; index < runs + warmup; index++) {
    const started = performance.now();
    const handle = await asker.requestApproval({ tool: 'deploy', args: { service: 'billing', build: index } });
    const asked = performance.now();
    const state = await handle.status();
    if (state.status !== 'pending' || state.request === undefined) throw new Error('expected a pending request');
    const waiting = handle.wait();
    const deciding = performance.now();
    await decider.respond(handle.id, { approvalId: state.request.approvalId, approved: true, approvedBy: 'alice' });
    await waiting;
    const done = performance.now();
    if (index < warmup) continue;
    ask.push(asked - started);
    seen.push(done - deciding);
  }
  return { ask, seen };
}

const memory = createRuntime({});
const local = await roundTrips(memory, memory, RUNS, 30);

const [one, two] = [new Redis(redisUrl), new Redis(redisUrl)];
const onRedis = (redis: Redis) => createRuntime({ store: createRedisStore({ redis, prefix }) });
const [asker, decider] = [onRedis(one), onRedis(two)];
const sameProcess = await roundTrips(asker, asker, RUNS, 30);
const crossProcess = await roundTrips(asker, decider, CROSS_RUNS, 5);

printTable(
  'Requests from outside the agent loop (requestApproval)',
  ['measure', 'median', 'p99', 'max', 'samples'],
  [
    percentileRow('memory: requestApproval (recorded, announced)', local.ask),
    percentileRow('memory: respond called → wait() resolved', local.seen),
    percentileRow('Redis: requestApproval (recorded, announced)', sameProcess.ask),
    percentileRow('Redis, one runtime: respond called → wait() resolved', sameProcess.seen),
    percentileRow('Redis, another runtime decides → wait() resolved', crossProcess.seen),
  ],
);

const keys = await one.keys(`${prefix}*`);
if (keys.length > 0) await one.unlink(...keys);
await Promise.all([one.quit(), two.quit()]);
