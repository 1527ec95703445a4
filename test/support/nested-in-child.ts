// Run by test/redis/nested-agents-redis.test.ts in a fresh Node process: with nothing but the Redis URL, the key
// prefix and the run id, it re-creates the agents, decides the sub-agent's pending call through its runtime (which
// loads the parent run from Redis and resumes it), and prints one JSON line of what happened here.
import { Redis } from 'ioredis';
import { createRuntime } from 'countersign';
import { createRedisStore } from 'countersign/redis';
import { deployer, lead, type RunLog } from './nested-agents.js';

const redis = new Redis(process.env['REDIS_URL']!);
const log: RunLog = [];
const runtime = createRuntime({
  agents: [lead([deployer(log)])],
  store: createRedisStore({ redis, prefix: process.env['PREFIX']! }),
});
const runId = process.env['RUN_ID']!;
const paused = await runtime.get(runId);
const request = paused.pendingApprovals[0]!;
const { status, snapshot } = await runtime.respond(runId, {
  approvalId: request.approvalId,
  approved: true,
  approvedBy: 'child-approver',
  signature: request.signature!,
});
process.stdout.write(
  `${JSON.stringify({ pid: process.pid, status, output: snapshot.output, ran: log, path: request.path })}\n`,
);
await redis.quit();
