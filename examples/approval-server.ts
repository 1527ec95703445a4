// Run: npm run demo   (no network, no Redis: everything in this process)
// Serves the approval app on loopback, starts a run that waits for a person,
// and prints a one-click link and a curl command to decide it. Open the link
// in a browser: the page shows what will run; its button approves. Ctrl-C stops.
import { approvalLinkUrl, createMemoryStore, createRuntime, inboxUrl } from 'countersign';
import { createApprovalApp, serve } from 'countersign/http';
import { paymentsAgent } from './payments-agent.js';

const port = Number(process.env['PORT'] ?? 8787);
const runtime = createRuntime({
  agents: [paymentsAgent()],
  store: createMemoryStore(),
  links: { secret: 'demo-link-secret-change-me-0123456789' },
});
runtime.subscribe((event) => {
  if (event.type === 'approval-resolved')
    console.log(`decided: ${event.entry.decision} by ${event.entry.by ?? event.entry.source}`);
  if (event.type === 'run-completed') console.log(`run ${event.runId} completed: ${event.output}`);
});

// insecure: no bearer token and no webhook secret. Fine on loopback for a demo; never on a network.
const server = await serve(createApprovalApp(runtime, { insecure: true }), { port });
console.log(`approval app on ${server.url} (insecure demo mode: no authentication)`);

const paused = await runtime.start('payments', { input: 'Pay acct-42 twelve dollars' });
const request = paused.pendingApprovals[0]!;
// The runtime mints tokens; the app serves them under /links/ and /inbox/, so URLs start from where it listens.
const tokens = await runtime.linkTokens(paused.runId, request.approvalId, { approvedBy: 'you@example.com' });
console.log(`run ${paused.runId} waits: ${request.description}`);
// A token is minted for each decision the request offers (this tool offers them all).
const links = { 'approve in a browser: ': tokens.approve, 'deny in a browser:    ': tokens.deny };
for (const [label, token] of Object.entries(links))
  if (token) console.log(`${label}${approvalLinkUrl(server.url, token)}`);
console.log(`your inbox:           ${inboxUrl(server.url, (await runtime.inboxToken('you@example.com')).token)}`);
console.log(
  `or: curl -X POST ${server.url}/runs/${paused.runId}/approvals/${request.approvalId} -H 'content-type: application/json' -d '{"approved":true,"approvedBy":"you"}'`,
);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void server.close().then(() => process.exit(0)));
}
