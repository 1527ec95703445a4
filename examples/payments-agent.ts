// The agent the Redis and serverless examples share: every process that may
// resume a run builds the same agent (same name, same tools), as a deployed
// service would.
import { z } from 'zod';
import { createAgent, defineTool, type Agent } from 'countersign';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';

const sendPayment = defineTool({
  name: 'send_payment',
  description: 'Send money to an account',
  input: z.object({ to: z.string(), cents: z.number().int().positive() }),
  needsApproval: true,
  approvalPrompt: ({ to, cents }) => `Pay $${(cents / 100).toFixed(2)} to ${to}?`,
  execute: ({ to, cents }, ctx) => {
    // A real tool would pass ctx.idempotencyKey to the payment provider.
    console.log(
      `[pid ${process.pid}] sent $${(cents / 100).toFixed(2)} to ${to} (idempotency key ${ctx.idempotencyKey})`,
    );
    return { sent: true, to, cents };
  },
});

/** The payments agent; a scripted model stands in for a real provider, so the examples run offline. */
export function paymentsAgent(): Agent {
  return createAgent({
    name: 'payments',
    tools: [sendPayment],
    approvalTtlMs: 24 * 60 * 60 * 1000,
    model: createScriptedModel(({ messages }) =>
      messages.at(-1)?.role === 'tool'
        ? textTurn('Paid acct-42 $12.00.')
        : toolCallTurn('send_payment', { to: 'acct-42', cents: 1200 }),
    ),
  });
}
