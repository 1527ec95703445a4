// The agent shared by test/core/cross-process.test.ts and the child process it spawns: both sides
// build it from this one definition, as two deployments of the same app would.
import { z } from 'zod';
import { createAgent, defineTool, type Agent } from 'countersign';
import { createScriptedModel, lastToolResults, textTurn, toolCallTurn } from 'countersign/testing';

export interface CrossProcessLog {
  readonly executions: { pid: number; input: unknown; toolCallId: string; idempotencyKey: string }[];
}

export function crossProcessAgent(log: CrossProcessLog): Agent {
  const sendInvoice = defineTool({
    name: 'send_invoice',
    description: 'Email an invoice to a customer',
    input: z.object({ customer: z.string(), amountCents: z.number().int().positive() }),
    approvalPrompt: (input) => `Send an invoice of ${input.amountCents} cents to ${input.customer}?`,
    execute: async (input, ctx) => {
      log.executions.push({ pid: process.pid, input, toolCallId: ctx.toolCallId, idempotencyKey: ctx.idempotencyKey });
      return { sent: true, to: input.customer };
    },
  });
  return createAgent({
    name: 'cross-process-invoices',
    // Answers from the conversation, not from a position in a list: a resumed process starts with a fresh model.
    model: createScriptedModel((request) =>
      request.messages.at(-1)?.role === 'tool'
        ? textTurn(`Result: ${JSON.stringify(lastToolResults(request.messages))}`)
        : toolCallTurn([{ id: 'call_invoice', name: 'send_invoice', args: { customer: 'ACME', amountCents: 12_500 } }]),
    ),
    tools: [sendInvoice],
  });
}
