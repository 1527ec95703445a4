// Run: npx tsx examples/design-card.ts
// The design card's example (shared/DESIGN.md, "Public API"), as written: a decision is data applied to data, so
// `withApprovalResponse(snapshot, response)` needs no agent for an agent without a decisionSecret. Only the model,
// which the card leaves to the reader, is added: a scripted one, so this runs offline.
import { z } from 'zod';
import { createAgent, defineTool, withApprovalResponse, serialize, deserialize, StopReason } from 'countersign';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';

const model = createScriptedModel([toolCallTurn('delete_file', { path: '/tmp/x' }), textTurn('Removed /tmp/x.')]);
const removed: string[] = [];

const deleteFile = defineTool({
  name: 'delete_file',
  description: 'Delete a file',
  input: z.object({ path: z.string() }),
  needsApproval: true,
  approvalPrompt: (input) => `Delete ${input.path}?`,
  execute: async (input, ctx) => {
    removed.push(`${input.path} (${ctx.idempotencyKey})`);
    return { deleted: input.path };
  },
});

const agent = createAgent({ name: 'files', model, tools: [deleteFile] });

const snap = await agent.execute({ input: 'remove /tmp/x' });
console.log(
  `status: ${snap.status}, stopReason: ${snap.stopReason === StopReason.AwaitingApproval ? 'awaiting_approval' : snap.stopReason}`,
);
console.log(`pending: ${snap.pendingApprovals.map((request) => request.description).join(', ')}`);
const text = serialize(snap); // string, safe to store anywhere
const again = deserialize(text); // validated, frozen
const next = withApprovalResponse(again, {
  approvalId: again.pendingApprovals[0]!.approvalId,
  approved: true, // or false, with reason
  approvedBy: 'alice',
});
const done = await agent.execute(next); // runs the tool, then the model
console.log(`status: ${done.status}`);
console.log(`removed: ${removed.join(', ')}`);
