// Run: npm run demo   (no network, no Redis: everything in this process)
// Serves the approval app on loopback, starts a run that waits for a person,
// and prints a one-click link and a curl command to decide it. Open the link
// in a browser: the page shows what will run; its button approves. Ctrl-C stops.
import { createMemoryStore, createRuntime } from 'countersign';
import { createApprovalApp, serve } from 'countersign/http';
import { paymentsAgent } from './payments-agent.js';

const port = Number(process.env['PORT'] ?? 8787);
const baseUrl = `http://127.0.0.1:${port}`;
const runtime = createRuntime({
  agents: [paymentsAgent()],
  store: createMemoryStore(),
  links: { secret: 'demo-link-secret-change-me-0123456789', baseUrl },
});
runtime.subscribe((event) => {
  if (event.type === 'approval-resolved') console.log(`decided: ${event.entry.decision} by ${event.entry.by ?? event.entry.source}`);
  if (event.type === 'run-completed') console.log(`run ${event.runId} completed: ${event.output}`);
});

// insecure: no bearer token and no webhook secret. Fine on loopback for a demo; never on a network.
const server = await serve(createApprovalApp(runtime, { insecure: true }), { port });
console.log(`approval app on ${server.url} (insecure demo mode: no authentication)`);

const paused = await runtime.start('payments', { input: 'Pay acct-42 twelve dollars' });
const request = paused.pendingApprovals[0]!;
const links = await runtime.approvalLinks(paused.runId, request.approvalId, { approvedBy: 'you@example.com' });
console.log(`run ${paused.runId} waits: ${request.description}`);
console.log(`approve in a browser: ${links.approve}`);
console.log(`deny in a browser:    ${links.deny}`);
console.log(`your inbox:           ${(await runtime.inboxLink('you@example.com')).url}`);
console.log(`or: curl -X POST ${server.url}/runs/${paused.runId}/approvals/${request.approvalId} -H 'content-type: application/json' -d '{"approved":true,"approvedBy":"you"}'`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void server.close().then(() => process.exit(0)));
}
