// Run: npx tsx examples/redis-round-trip.ts   (uses REDIS_URL, else redis://127.0.0.1:6379)
// One process starts a run and goes away; another, knowing only the run id,
// finds the pending approval, decides it, and the run finishes there. A
// webhook sender retrying the same decision changes nothing.
import { Redis } from 'ioredis';
import { createRuntime } from 'countersign';
import { createRedisStore } from 'countersign/redis';
import { paymentsAgent } from './payments-agent.js';

const redisUrl = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const prefix = 'countersign-example:';

function connect() {
  const redis = new Redis(redisUrl);
  const runtime = createRuntime({
    agents: [paymentsAgent()],
    store: createRedisStore({ redis, prefix, retentionMs: 60 * 60 * 1000 }),
  });
  return { redis, runtime };
}

// Process A: the agent asks to pay, and the run pauses in Redis.
const first = connect();
const paused = await first.runtime.start('payments', { input: 'Pay acct-42 twelve dollars' });
console.log(`run ${paused.runId}: ${paused.status}`);
await first.redis.quit();

// Process B, later: it knows nothing but the store.
const second = connect();
const page = await second.runtime.pending({ agent: 'payments', limit: 100 });
const waiting = page.items.find((item) => item.runId === paused.runId)!;
console.log(`pending: ${waiting.request.description}`);
const decision = { approvalId: waiting.request.approvalId, approved: true, approvedBy: 'alice' };
const result = await second.runtime.respond(paused.runId, decision);
console.log(`decided: run is ${result.status}, answer: ${result.snapshot.output}`);
const retried = await second.runtime.respond(paused.runId, decision);
console.log(`retried delivery: duplicate=${retried.duplicate}, run is ${retried.status}`);
await second.redis.quit();
