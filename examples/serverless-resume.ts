// Run: npx tsx examples/serverless-resume.ts   (uses REDIS_URL, else redis://127.0.0.1:6379)
// `handler` is a serverless function: a fresh process per request that holds
// nothing but the Redis URL. It rehydrates the run from Redis, applies the
// decision exactly once, runs the approved call and answers. Run directly,
// this file starts a run and then invokes the handler in newly spawned
// processes, the way a platform would.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { createRuntime } from 'countersign';
import { createRedisStore } from 'countersign/redis';
import { paymentsAgent } from './payments-agent.js';

const redisUrl = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const prefix = 'countersign-example:';

/** POST { runId, approvalId, approved, approvedBy } → { status, duplicate, output }. */
export async function handler(request: Request): Promise<Response> {
  const redis = new Redis(redisUrl);
  try {
    const runtime = createRuntime({
      agents: [paymentsAgent()],
      store: createRedisStore({ redis, prefix, retentionMs: 60 * 60 * 1000 }),
    });
    const { runId, ...decision } = (await request.json()) as {
      runId: string;
      approvalId: string;
      approved: boolean;
      approvedBy: string;
    };
    const result = await runtime.respond(runId, decision);
    return Response.json({ status: result.status, duplicate: result.duplicate, output: result.snapshot.output });
  } catch (error) {
    return Response.json({ error: (error as Error).message }, { status: 400 });
  } finally {
    await redis.quit();
  }
}

const self = fileURLToPath(import.meta.url);
if (process.argv[2] === '--invoke') {
  // One invocation: the request body comes in argv, the response goes to stdout.
  const response = await handler(
    new Request('http://function.local/', { method: 'POST', body: process.argv[3] ?? '' }),
  );
  process.stdout.write(`${response.status} ${await response.text()}\n`);
} else if (process.argv[1] === self) {
  const redis = new Redis(redisUrl);
  const runtime = createRuntime({
    agents: [paymentsAgent()],
    store: createRedisStore({ redis, prefix, retentionMs: 60 * 60 * 1000 }),
  });
  const paused = await runtime.start('payments', { input: 'Pay acct-42 twelve dollars' });
  await redis.quit();
  console.log(`[pid ${process.pid}] run ${paused.runId} is ${paused.status}`);
  const body = JSON.stringify({
    runId: paused.runId,
    approvalId: paused.pendingApprovals[0]!.approvalId,
    approved: true,
    approvedBy: 'alice',
  });
  for (const attempt of ['first delivery', 'retried delivery']) {
    const output = execFileSync(process.execPath, ['--import', 'tsx', self, '--invoke', body], { encoding: 'utf8' });
    console.log(`${attempt} (fresh process):\n${output.trimEnd()}`);
  }
}
