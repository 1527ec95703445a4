// Run: npx tsx examples/web-fetch-allowlist.ts
// Seed 000's web fetch with a domain allowlist: fetch_url runs without asking
// for an allowed domain and asks for any other; approving a fetch allows that
// one call, while add_domain (always asked) widens the allowlist for good. The
// pages come from a loopback server, never from the internet.
import {
  createAgent,
  withApprovalResponse,
  type AgentSnapshot,
  type AssistantMessage,
  type ModelRequest,
} from 'countersign';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';
import { startDemoSites } from './demo-sites.js';
import { webFetchTools } from './web-fetch-tools.js';

const sites = await startDemoSites({
  'docs.example.com/intro': 'Welcome to the docs.',
  'blog.example.org/latest': 'Release notes: v2 is out.',
});
const allowlist = new Set(['docs.example.com']);

// What the model asks for, turn by turn.
const script = [
  toolCallTurn('fetch_url', { url: 'https://docs.example.com/intro' }),
  toolCallTurn('fetch_url', { url: 'https://blog.example.org/latest' }),
  toolCallTurn('add_domain', { domain: 'blog.example.org' }),
  toolCallTurn('fetch_url', { url: 'https://blog.example.org/latest' }),
  textTurn('Read the intro and the latest release notes.'),
];
const model = createScriptedModel(
  ({ messages }: ModelRequest): AssistantMessage =>
    script[messages.filter((message) => message.role === 'assistant').length]!,
);
const agent = createAgent({ name: 'web', model, tools: webFetchTools(allowlist, sites.fetchPage) });

/** Approves what the run waits for, printing each request, until it stops for another reason. */
async function approveUntilDone(first: AgentSnapshot): Promise<AgentSnapshot> {
  let snapshot = first;
  while (snapshot.status === 'awaitingApproval') {
    const request = snapshot.pendingApprovals[0]!;
    console.log(`asks: ${request.toolName} ${JSON.stringify(request.args)}: ${request.reason}`);
    snapshot = await agent.execute(
      withApprovalResponse(
        snapshot,
        { approvalId: request.approvalId, approved: true, approvedBy: 'alice' },
        { agent },
      ),
    );
  }
  return snapshot;
}

const done = await approveUntilDone(await agent.execute({ input: 'Read the docs intro and the latest blog post' }));
for (const entry of done.audit)
  console.log(
    `${entry.toolName}: ${entry.decision} (${entry.source === 'human' ? `asked, by ${entry.by}` : 'no need to ask'})`,
  );
for (const message of done.messages) if (message.role === 'tool') console.log(`result: ${message.content}`);
console.log(`allowlist: ${[...allowlist].join(', ')}`);
console.log(`answer: ${done.output}`);
await sites.close();
