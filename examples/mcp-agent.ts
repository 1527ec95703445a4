// Run: npm run example:mcp
// An agent gets its tools from an MCP server (the test fixture, started over stdio). The server's delete_file asks
// a person, its read_file runs without asking; the run pauses on the delete, is approved, and finishes.
import { fileURLToPath } from 'node:url';
import { annotationBadges, createAgent, withApprovalResponse } from 'countersign';
import { connectMcpServer } from 'countersign/mcp';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';

const server = fileURLToPath(new URL('../test/fixtures/mcp-server.ts', import.meta.url));

const files = await connectMcpServer({
  name: 'files',
  command: process.execPath,
  args: ['--import', 'tsx', server],
  toolNames: ['read_file', 'delete_file'],
  requireApproval: ['delete_file'],
});
console.log(`connected to ${files.name}: ${files.status}, tools ${files.tools.map((tool) => tool.name).join(', ')}`);

// A scripted model stands in for a real provider, so this runs offline.
const model = createScriptedModel([
  toolCallTurn('read_file', { path: '/tmp/report.txt' }),
  toolCallTurn('delete_file', { path: '/tmp/report.txt' }),
  textTurn('Read and deleted /tmp/report.txt.'),
]);
const agent = createAgent({ name: 'clerk', model, tools: [files] });

const paused = await agent.execute({ input: 'Read /tmp/report.txt, then delete it' });
const request = paused.pendingApprovals[0]!;
console.log(`status: ${paused.status}`);
console.log(
  `approval requested: ${request.toolName} ${JSON.stringify(request.args)} through ${request.connector} [${annotationBadges(request.annotations).join(', ')}]`,
);

const done = await agent.execute(
  withApprovalResponse(paused, { approvalId: request.approvalId, approved: true, approvedBy: 'alice' }, { agent }),
);
for (const message of done.messages.filter((item) => item.role === 'tool'))
  console.log(`tool said: ${message.content}`);
console.log(`status: ${done.status}, answer: ${done.output}`);
await files.close();
