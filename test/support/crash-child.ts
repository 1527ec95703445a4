// A process that decides one approval and freezes at a chosen step boundary,
// so the crash test can SIGKILL it there. It writes `BOUNDARY <name>` to
// stdout synchronously, then blocks its event loop until it is killed.
import { writeSync } from 'node:fs';
import { Redis } from 'ioredis';
import { createRuntime } from 'countersign';
import { createRedisStore } from 'countersign/redis';
import { crashAgent, type Boundary } from './crash-agent.js';

const env = process.env as Record<string, string>;
const boundary = env['BOUNDARY'] as Boundary;
const freeze = (name: Boundary) => {
  if (name !== boundary) return;
  writeSync(1, `BOUNDARY ${name}\n`);
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60_000);
};

const redis = new Redis(env['REDIS_URL']!);
const agent = crashAgent({
  redis,
  prefix: env['PREFIX']!,
  idempotent: env['IDEMPOTENT'] === '1',
  leaseMs: 60_000,
  freeze,
});
const runtime = createRuntime({ agents: [agent], store: createRedisStore({ redis, prefix: env['PREFIX']! }) });
runtime.subscribe((event) => {
  if (event.type === 'approval-resolved') freeze('decided');
});
await runtime.respond(env['RUN_ID']!, { approvalId: env['APPROVAL_ID']!, approved: true, approvedBy: 'alice' });
writeSync(1, 'FINISHED\n');
await redis.quit();
