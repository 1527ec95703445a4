// countersign on Anthropic's Messages API with extended thinking: the run pauses for a gated tool call, is stored
// as a string, and resumes after the approval; the signed thinking goes back to Claude unchanged, as it requires.
// Reads ANTHROPIC_API_KEY and, when set, ANTHROPIC_BASE_URL (the API's origin, as Anthropic's SDK reads it).
// Run: ANTHROPIC_API_KEY=sk-ant-... npm run example:anthropic
import { z } from 'zod';
import { createAgent, defineTool, deserialize, serialize, withApprovalResponse } from 'countersign';
import { createAnthropicModel } from 'countersign/anthropic';

const accounts = new Map([['acct-42', 120_00]]);

const refund = defineTool({
  name: 'refund',
  description: 'Refund an amount in cents to an account',
  input: z.object({ account: z.string(), cents: z.number().int().positive() }),
  needsApproval: true,
  approvalPrompt: ({ account, cents }) => `Refund $${(cents / 100).toFixed(2)} to ${account}?`,
  execute: async ({ account, cents }) => {
    accounts.set(account, (accounts.get(account) ?? 0) + cents);
    return { refunded: cents, account };
  },
});

const baseUrl = process.env['ANTHROPIC_BASE_URL'];
const agent = createAgent({
  name: 'refunds',
  instructions: 'You handle refunds. Use the refund tool; amounts are in cents.',
  model: createAnthropicModel({
    model: 'claude-sonnet-4-5',
    apiKey: process.env['ANTHROPIC_API_KEY'] ?? '',
    ...(baseUrl ? { baseUrl } : {}),
    thinking: { budgetTokens: 2048 },
  }),
  tools: [refund],
});

const paused = await agent.execute({ input: 'Refund $12.00 to acct-42, the order never arrived.' });
const request = paused.pendingApprovals[0]!;
console.log(`status: ${paused.status}`);
console.log(`approval requested: ${request.description}`);
const thinking = paused.messages
  .flatMap((message) => (message.role === 'assistant' ? (message.parts ?? []) : []))
  .find((part) => part.type === 'reasoning');
console.log(`thought: ${thinking?.type === 'reasoning' ? thinking.text : '(none)'}`);

// Stored as a string (a database row, a queue message), read back later, possibly by another process.
const stored = serialize(paused);
console.log(`stored: ${stored.length} characters`);
const done = await agent.execute(
  withApprovalResponse(
    deserialize(stored),
    { approvalId: request.approvalId, approved: true, approvedBy: 'alice' },
    { agent },
  ),
);
console.log(`status: ${done.status}`);
console.log(`answer: ${done.output}`);
console.log(`acct-42 balance: $${((accounts.get('acct-42') ?? 0) / 100).toFixed(2)}`);
