// Run by test/redis/cross-process-cancel.test.ts in a fresh Node process: starts a run on Redis whose tool waits for
// its AbortSignal, and prints one line per step: STARTED <runId>, ABORTED <reason>, DONE <status> <version>.
import { Redis } from 'ioredis';
import { z } from 'zod';
import { createAgent, createRuntime, defineTool } from 'countersign';
import { createRedisStore } from 'countersign/redis';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';

const redis = new Redis(process.env['REDIS_URL']!);
const tool = defineTool({
  name: 'long_job',
  description: 'Waits for its signal',
  input: z.object({}),
  needsApproval: false,
  execute: (_input, ctx) =>
    new Promise((resolve) => {
      ctx.signal.addEventListener('abort', () => {
        process.stdout.write(`ABORTED ${String(ctx.signal.reason)}\n`);
        resolve('finished anyway');
      });
      process.stdout.write(`STARTED ${ctx.runId}\n`);
    }),
});
const agent = createAgent({
  name: process.env['AGENT_NAME']!,
  decisionSecret: process.env['DECISION_SECRET']!,
  model: createScriptedModel([toolCallTurn('long_job', {}), textTurn('never reached')]),
  tools: [tool],
});
const runtime = createRuntime({ agents: [agent], store: createRedisStore({ redis, prefix: process.env['PREFIX']! }) });
const done = await runtime.start(agent.name, { input: 'go' });
process.stdout.write(`DONE ${done.status} ${done.version}\n`);
await redis.quit();
