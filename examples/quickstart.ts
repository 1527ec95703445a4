// Run: npm run example
// An agent asks to delete a file; the run pauses for a person, the snapshot
// travels as a string, a person approves, and the run finishes.
import { z } from 'zod';
import { createAgent, defineTool, deserialize, serialize, withApprovalResponse } from 'countersign';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';

const files = new Set(['/tmp/report.txt', '/tmp/notes.txt']);

const deleteFile = defineTool({
  name: 'delete_file',
  description: 'Delete a file',
  input: z.object({ path: z.string() }),
  needsApproval: true,
  approvalPrompt: (input) => `Delete ${input.path}?`,
  execute: async ({ path }) => ({ deleted: files.delete(path), path }),
});

// A scripted model stands in for a real provider, so this runs offline.
const model = createScriptedModel([
  toolCallTurn('delete_file', { path: '/tmp/report.txt' }),
  textTurn('Deleted /tmp/report.txt.'),
]);

const agent = createAgent({ name: 'files', model, tools: [deleteFile], approvalTtlMs: 60 * 60 * 1000 });

const paused = await agent.execute({ input: 'Please remove /tmp/report.txt' });
const request = paused.pendingApprovals[0]!;
console.log(`status: ${paused.status} (${paused.stopReason})`);
console.log(`approval requested: ${request.description} [${request.toolName} ${JSON.stringify(request.args)}]`);

const stored = serialize(paused); // a string: put it in a database, a queue, a URL-safe store
const next = withApprovalResponse(
  deserialize(stored),
  {
    approvalId: request.approvalId,
    approved: true,
    approvedBy: 'alice',
  },
  { agent },
);

const done = await agent.execute(next);
console.log(`status: ${done.status} (${done.stopReason})`);
console.log(`answer: ${done.output}`);
console.log(`files left: ${[...files].join(', ')}`);
