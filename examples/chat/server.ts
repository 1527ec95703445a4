// Run: npm run example:chat   (no key, no network, no Redis: everything in this process)
// Builds the chat page with Vite, then serves it at /chat/ beside countersign's approval console at /. Ask the chat
// to "delete /tmp/report.txt": the card appears inline; approve or deny it there, or in the console in another tab.
import { fileURLToPath } from 'node:url';
import { serve } from '@hono/node-server';
import { serveStatic } from '@hono/node-server/serve-static';
import { Hono } from 'hono';
import { build } from 'vite';
import { createMemoryStore, createRuntime } from 'countersign';
import { createApprovalApp } from 'countersign/http';
import { createUIChatHandler } from 'countersign/ui';
import { chatAgent } from './chat-agent.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const port = Number(process.env['PORT'] ?? 8788);

await build({ configFile: `${here}vite.config.ts`, logLevel: 'error' });

const runtime = createRuntime({ agents: [chatAgent], store: createMemoryStore() });
// insecure demo: one user, no sign-in. A real app's identify reads its own session (never the message body).
const chat = createUIChatHandler(runtime, { agent: 'files', identify: () => 'demo-user' });

const app = new Hono();
app.post('/api/chat', (c) => chat.fetch(c.req.raw));
app.get('/api/chat/:id/stream', (c) => chat.fetch(c.req.raw));
app.use('/chat/*', serveStatic({ root: `${here}dist`, rewriteRequestPath: (path) => path.replace(/^\/chat/, '') }));
app.get('/chat', (c) => c.redirect('/chat/'));
// The approval console (and its API) at /, signed in with this token (a demo value: set CONSOLE_TOKEN for your own).
const consoleToken = process.env['CONSOLE_TOKEN'] ?? 'demo-console-token-change-me';
app.route('/', createApprovalApp(runtime, { bearerToken: consoleToken }));

const server = serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }, (info) => {
  console.log(`chat on http://127.0.0.1:${info.port}/chat/`);
  console.log(`console on http://127.0.0.1:${info.port}/ (API token: ${consoleToken})`);
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => server.close(() => process.exit(0)));
