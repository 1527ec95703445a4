// The agent of the crash test: its tool's effect is an INCR in Redis, so the
// test counts executions across processes that were killed.
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { createAgent, defineTool, type Agent } from 'countersign';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';

/** Where a process is frozen for the kill: after the decision commit, during the tool, after the tool's effect before its commit, during the model call. */
export type Boundary = 'decided' | 'tool' | 'after-tool' | 'model';

export const executionsKey = (prefix: string, runId: string) => `${prefix}executions:{${runId}}`;

export function crashAgent(options: {
  redis: Redis;
  prefix: string;
  idempotent: boolean;
  leaseMs: number;
  freeze?: (at: Boundary) => void;
}): Agent {
  const freeze = options.freeze ?? (() => {});
  const tool = defineTool({
    name: 'send_payment',
    description: 'Send a payment',
    input: z.object({ to: z.string() }),
    idempotent: options.idempotent,
    execute: async ({ to }, ctx) => {
      freeze('tool');
      await options.redis.rpush(executionsKey(options.prefix, ctx.runId), ctx.idempotencyKey);
      freeze('after-tool');
      return `paid ${to}`;
    },
  });
  return createAgent({
    name: `crash-${options.idempotent ? 'idempotent' : 'plain'}`,
    tools: [tool],
    leaseMs: options.leaseMs,
    model: createScriptedModel(({ messages }) => {
      if (messages.at(-1)?.role !== 'tool') return toolCallTurn('send_payment', { to: 'acct-1' });
      freeze('model');
      return textTurn('paid');
    }),
  });
}
