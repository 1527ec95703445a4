#!/usr/bin/env node
import { loadRuntime } from './load-runtime.js';
import { runCli } from './run-cli.js';

const stop = new AbortController();
// SIGHUP: the terminal or the MCP client that started a long-running command (worker, mcp-gateway) has gone.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, () => stop.abort());
const code = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
  loadRuntime: (path) => loadRuntime(path),
  signal: stop.signal,
});
process.exit(code);
