// What a session grant costs a run, and what it saves: one run (one tool call, then an answer) executed from the start,
// in a session whose grant covers the call, against the same run with nothing to look up (a rule allows the call),
// and the run that stops to ask a person. Memory grant store, then Redis (its own connection, on loopback): a covered
// call lists the session's and the agent's grants once per turn and spends a use with one script call.
// Run: npx tsx bench/grants.bench.ts   (REDIS_URL, else redis://127.0.0.1:6379)
import { Redis } from 'ioredis';
import { z } from 'zod';
import { createMemoryGrantStore, defineTool, withApprovalResponse, type GrantStore } from 'countersign';
import { createRedisGrantStore } from 'countersign/redis';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';
import { testAgent } from '../test/support/test-kit.js';
import { formatDuration, measure, printTable } from './support/measure.js';

const ITERATIONS = 1000;
const redisUrl = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const prefix = `cs-bench-grants:${process.pid}:`;
const decisionSecret = 'bench-secret-0123456789abcdef';

const deploy = defineTool({
  name: 'deploy',
  description: 'Deploy',
  input: z.object({ env: z.string() }),
  needsApproval: true,
  execute: async ({ env }) => `deployed ${env}`,
});
const model = createScriptedModel((request) =>
  request.messages.at(-1)?.role === 'tool' ? textTurn('done') : toolCallTurn('deploy', { env: 'staging' }),
);

/** An agent on `grantStore`, with a session grant for deploy made the way a person makes one (a decision with scope session). */
async function agentWithGrant(grantStore: GrantStore, session: string) {
  const agent = testAgent({ name: 'bench-grants', decisionSecret, tools: [deploy], model, grantStore });
  const paused = await agent.execute({ input: 'deploy', sessionId: session });
  const request = paused.pendingApprovals[0]!;
  await agent.execute(
    withApprovalResponse(
      paused,
      {
        approvalId: request.approvalId,
        approved: true,
        approvedBy: 'alice',
        scope: 'session',
        signature: request.signature!,
      },
      { agent },
    ),
  );
  return agent;
}

const redis = new Redis(redisUrl);
try {
  const allowed = testAgent({
    name: 'bench-allowed',
    decisionSecret,
    tools: [deploy],
    model,
    policy: { rules: [{ tool: 'deploy', action: 'allow' }] },
  });
  const asking = testAgent({ name: 'bench-asking', decisionSecret, tools: [deploy], model });
  const inMemory = await agentWithGrant(createMemoryGrantStore(), 'chat-memory');
  const inRedis = await agentWithGrant(createRedisGrantStore({ redis, prefix }), 'chat-redis');
  const samples = [
    await measure(
      'allowed by a rule (no grant read)',
      () => allowed.execute({ input: 'deploy', sessionId: 'chat-none' }),
      { iterations: ITERATIONS },
    ),
    await measure(
      'asked: stops for a person (memory grant store, none matches)',
      () => asking.execute({ input: 'deploy', sessionId: 'chat-none' }),
      { iterations: ITERATIONS },
    ),
    await measure(
      'covered by a session grant, memory grant store',
      () => inMemory.execute({ input: 'deploy', sessionId: 'chat-memory' }),
      { iterations: ITERATIONS },
    ),
    await measure(
      'covered by a session grant, Redis grant store',
      () => inRedis.execute({ input: 'deploy', sessionId: 'chat-redis' }),
      { iterations: ITERATIONS },
    ),
  ];
  const last = await inRedis.execute({ input: 'deploy', sessionId: 'chat-redis' });
  if (last.status !== 'completed' || last.audit.at(-1)?.source !== 'grant')
    throw new Error('the Redis grant did not cover the call: the numbers above measure something else');
  printTable(
    `One run executed from the start (${ITERATIONS} each, after a warm-up)`,
    ['run', 'median', 'p99'],
    samples.map((sample) => [sample.name, formatDuration(sample.median), formatDuration(sample.p99)]),
  );
} finally {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
}
