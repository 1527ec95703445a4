// countersign over the AI SDK: @ai-sdk/anthropic streams each answer (its text printed as it arrives), an AI SDK
// tool with `needsApproval` pauses the run, the stored run is approved and finishes.
// Reads ANTHROPIC_API_KEY and, when set, ANTHROPIC_BASE_URL as @ai-sdk/anthropic does (with the /v1 path).
// Run: ANTHROPIC_API_KEY=sk-ant-... npm run example:ai-sdk
import { anthropic } from '@ai-sdk/anthropic';
import { tool } from 'ai';
import { z } from 'zod';
import { createAgent, deserialize, serialize, withApprovalResponse } from 'countersign';
import { createAiSdkModel, fromAiSdkTools } from 'countersign/ai-sdk';

const files = new Set(['/tmp/report.txt', '/tmp/notes.txt']);

const agent = createAgent({
  name: 'ai-sdk-files',
  instructions: 'You manage files. Delete a file with delete_file; list them with list_files.',
  model: createAiSdkModel({ model: anthropic('claude-sonnet-4-5'), maxOutputTokens: 1024 }),
  tools: fromAiSdkTools({
    list_files: tool({
      description: 'List the files',
      inputSchema: z.object({}),
      needsApproval: false,
      execute: async () => [...files],
    }),
    delete_file: tool({
      description: 'Delete a file',
      inputSchema: z.object({ path: z.string() }),
      needsApproval: true,
      execute: async ({ path }) => ({ deleted: files.delete(path), path }),
    }),
  }),
  onEvent: (event) => {
    if (event.type === 'model-delta' && event.kind === 'text') process.stdout.write(event.delta);
  },
});

const paused = await agent.execute({ input: 'Please remove /tmp/report.txt' });
console.log(`\nstatus: ${paused.status}`);
const request = paused.pendingApprovals[0]!;
console.log(`approval requested: ${request.toolName} ${JSON.stringify(request.args)}`);

// The paused run is a string: keep it anywhere, resume it in another process.
const stored = serialize(paused);
const done = await agent.execute(
  withApprovalResponse(
    deserialize(stored),
    { approvalId: request.approvalId, approved: true, approvedBy: 'alice' },
    { agent },
  ),
);
console.log(`\nstatus: ${done.status}`);
console.log(`answer: ${done.output}`);
console.log(`files left: ${[...files].join(', ')}`);
console.log(`tokens: ${done.usage?.inputTokens} in, ${done.usage?.outputTokens} out`);
