// Run: npx tsx examples/request-approval.ts   (no network, no Redis: everything in this process)
// A script that is not an agent asks people before it acts. It serves the approval app on loopback (console at /),
// asks to deploy (retrying the ask with the same key makes no second request), waits, and deploys what was approved;
// then asks for a wire transfer that needs two people, reminds them while they wait, and gives up when it expires.
import { approvalLinkUrl, createRuntime, type RequestHandle } from 'countersign';
import { createApprovalApp, serve } from 'countersign/http';

const port = Number(process.env['PORT'] ?? 8787);
const runtime = createRuntime({
  links: { secret: 'demo-link-secret-change-me-0123456789' },
  requests: {
    policy: { rules: [{ tool: 'read_*', action: 'allow' }] },
    tools: {
      deploy: { description: 'Deploy a service to production' },
      wire: { description: 'Send a wire transfer', approvers: ['alice', 'bob', 'carol'], remindAfterMs: 2_000 },
    },
  },
});
runtime.subscribe((event) => {
  if (event.type === 'approval-reminder') console.log(`reminder ${event.reminder} sent for ${event.request.toolName}`);
});
// Expiries and reminders are applied by a sweep: here every second, in production by a worker or a cron.
const sweeper = setInterval(() => void runtime.sweepExpired(), 1_000);

// insecure: no bearer token and no webhook secret. Fine on loopback for a demo; never on a network.
const server = await serve(createApprovalApp(runtime, { insecure: true }), { port });
console.log(`approval app on ${server.url} (insecure demo mode: no authentication)`);

/** Prints a one-click approve link per person for the request's pending approval. */
async function printLinks(handle: RequestHandle, people: readonly string[]): Promise<void> {
  const state = await handle.status();
  if (state.status !== 'pending' || state.request === undefined) return;
  for (const person of people) {
    const tokens = await runtime.linkTokens(handle.id, state.request.approvalId, { approvedBy: person });
    // A token is minted for each decision the request offers (this tool offers them all).
    if (tokens.approve) console.log(`${person} approves: ${approvalLinkUrl(server.url, tokens.approve)}`);
  }
}

const ask = { tool: 'deploy', args: { service: 'billing', version: '2.4.1' }, key: 'deploy-billing-2.4.1' };
const deploy = await runtime.requestApproval(ask);
const retried = await runtime.requestApproval(ask);
console.log(`asked ${deploy.id} (a retry with the same key is the same request: ${retried.id === deploy.id})`);
console.log(`decide in the console: ${server.url}/`);
await printLinks(deploy, ['you@example.com']);
const decided = await deploy.wait();
if (decided.status === 'approved') console.log(`deploying ${JSON.stringify(decided.args)} (approved by ${decided.by})`);
else console.log(`not deploying: ${decided.status} ${decided.reason ?? ''}`);

const wire = await runtime.requestApproval({
  tool: 'wire',
  args: { to: 'acct-42', amount: 90_000 },
  approvals: 2,
  expiresInMs: Number(process.env['WIRE_EXPIRES_MS'] ?? 600_000),
  requestedBy: 'treasury-bot',
});
console.log(`asked ${wire.id}: two of alice, bob and carol must approve`);
await printLinks(wire, ['alice', 'bob']);
const wired = await wire.wait();
console.log(
  wired.status === 'approved'
    ? `wiring ${JSON.stringify(wired.args)} (approved by ${wired.by} and one more)`
    : `not wiring: ${wired.status}`,
);

// The app keeps serving (the console shows the history) until Ctrl-C.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    clearInterval(sweeper);
    void server.close().then(() => process.exit(0));
  });
}
