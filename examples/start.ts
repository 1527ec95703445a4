// Run: npm start          the approval app with a demo agent and one run waiting for you
//      npm start -- --once the whole round trip unattended (approve over HTTP, see it complete), then exit
// Environment: PORT (default 3000), COUNTERSIGN_TOKEN (the sign-in token; one is generated when unset),
// REDIS_URL (keep runs in Redis instead of this process's memory).
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryStore, createRuntime, type SnapshotStore } from 'countersign';
import { createApprovalApp, serve, type ServeHandle } from 'countersign/http';
import { demoAgent, demoInput, demoPages } from './demo-agent.js';
import { startDemoSites } from './demo-sites.js';

const once = process.argv.includes('--once');
const port = Number(process.env['PORT'] ?? 3000);
const token = process.env['COUNTERSIGN_TOKEN'] ?? randomBytes(24).toString('base64url');

async function storeFor(
  redisUrl: string | undefined,
): Promise<{ store: SnapshotStore; close: () => Promise<unknown> }> {
  if (redisUrl === undefined) return { store: createMemoryStore(), close: async () => {} };
  // Loaded only when asked for: the memory store needs no Redis client.
  const [{ Redis }, { createRedisStore }] = await Promise.all([import('ioredis'), import('countersign/redis')]);
  const redis = new Redis(redisUrl);
  return { store: createRedisStore({ redis, prefix: 'countersign-demo:' }), close: () => redis.quit() };
}

const sandbox = await mkdtemp(join(tmpdir(), 'countersign-demo-'));
await writeFile(join(sandbox, 'todo.md'), '- ship the demo\n');
const sites = await startDemoSites(demoPages);
const allowlist = new Set(['docs.example.com']);
const { store, close: closeStore } = await storeFor(process.env['REDIS_URL']);
const runtime = createRuntime({
  agents: [
    demoAgent({
      sandbox,
      allowlist,
      fetchPage: sites.fetchPage,
      decisionSecret: process.env['COUNTERSIGN_DECISION_SECRET'] ?? randomBytes(32).toString('base64url'),
    }),
  ],
  store,
});

let server: ServeHandle | undefined;
async function shutDown(code: number): Promise<never> {
  await server?.close();
  await Promise.all([sites.close(), closeStore(), rm(sandbox, { recursive: true, force: true })]);
  process.exit(code);
}

try {
  server = await serve(createApprovalApp(runtime, { bearerToken: token }), { port });
} catch (error) {
  if ((error as { code?: unknown }).code !== 'EADDRINUSE') throw error;
  console.error(`port ${port} is in use; set PORT=<a free port>, e.g. PORT=${port + 1} npm start`);
  await shutDown(1);
}
const url = server!.url;
runtime.subscribe((event) => {
  if (event.type === 'approval-resolved' && event.entry.by !== undefined)
    console.log(`decided: ${event.entry.toolName} ${event.entry.decision} by ${event.entry.by}`);
  if (event.type === 'run-completed') console.log(`run ${event.runId} completed: ${event.output}`);
});

console.log(
  `console:   ${url}/  (sign in with the token ${process.env['COUNTERSIGN_TOKEN'] === undefined ? token : 'in COUNTERSIGN_TOKEN'})`,
);
console.log(`sandbox:   ${sandbox}  (read_file and list_files run; write_file and delete_file ask)`);
console.log(
  `allowlist: ${[...allowlist].join(', ')}  (fetch_url asks for any other domain; add_domain always asks; pages come from a local server)`,
);
console.log(
  `store:     ${process.env['REDIS_URL'] === undefined ? 'in memory (set REDIS_URL to use Redis)' : 'Redis'}`,
);

const paused = await runtime.start('demo', { input: demoInput });
console.log(`run ${paused.runId} waits for ${paused.pendingApprovals.length} approvals:`);
for (const request of paused.pendingApprovals)
  console.log(
    `  - ${request.toolName}: ${request.description}${request.reason === undefined ? '' : ` (${request.reason})`}`,
  );

const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
if (!once) {
  console.log(
    `or approve them all: curl -X POST ${url}/runs/${paused.runId}/approvals -H 'authorization: Bearer ${token}' -H 'content-type: application/json' ` +
      `-d '${JSON.stringify({ approveAll: true, approvedBy: 'you', signatures: paused.pendingApprovals.map((request) => request.signature) })}'`,
  );
  // The CLI decides over HTTP too: the review script's --url is this demo's default address.
  // --token=TOKEN, not --token TOKEN: a generated token may begin with '-', which would read as another option.
  const reviewArgs = [
    ...(port === 3000 ? [] : ['--url', url]),
    ...(process.env['COUNTERSIGN_TOKEN'] === undefined ? [`--token=${token}`] : []),
  ];
  const review = `npm run review${reviewArgs.length === 0 ? ' (with COUNTERSIGN_TOKEN set)' : ` -- ${reviewArgs.join(' ')}`}`;
  console.log(`or review them one by one in another terminal: ${review}`);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void shutDown(0));
} else {
  // --once: decide over HTTP as a reviewer would, echoing the signatures of the requests it read.
  const completed = new Promise<void>((resolve) =>
    runtime.subscribe((event) => event.type === 'run-completed' && event.runId === paused.runId && resolve()),
  );
  const run = (await (await fetch(`${url}/runs/${paused.runId}`, { headers })).json()) as {
    pendingApprovals: { signature: string }[];
  };
  const body = {
    approveAll: true,
    approvedBy: 'npm-start-once',
    signatures: run.pendingApprovals.map((request) => request.signature),
  };
  const answer = await fetch(`${url}/runs/${paused.runId}/approvals`, {
    method: 'POST',
    headers,
    body: JSON.stringify(body),
  });
  if (!answer.ok) throw new Error(`approving failed: ${answer.status} ${await answer.text()}`);
  await completed;
  const final = (await (await fetch(`${url}/runs/${paused.runId}`, { headers })).json()) as { status: string };
  const summary = await readFile(join(sandbox, 'notes/summary.md'), 'utf8');
  console.log(`once: run ${paused.runId} is ${final.status}; notes/summary.md has ${summary.length} characters`);
  await shutDown(final.status === 'completed' ? 0 : 1);
}
