#!/usr/bin/env node
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Runtime } from '../runtime/runtime.js';
import { runCli } from './run-cli.js';

/** Imports the user's runtime module: `export const runtime = ...` or a default export (a Runtime or a function returning one). */
async function loadRuntime(path: string): Promise<Runtime> {
  const module = (await import(pathToFileURL(resolve(path)).href)) as Record<string, unknown>;
  let candidate = module['runtime'] ?? module['default'];
  if (typeof candidate === 'function') candidate = await (candidate as () => unknown)();
  if (typeof (candidate as Runtime | undefined)?.respond !== 'function') {
    throw new Error(`${path} does not export a runtime; export one as \`runtime\` or default (createRuntime({ agents, store }))`);
  }
  return candidate as Runtime;
}

const stop = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());
const code = await runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env, loadRuntime, signal: stop.signal });
process.exit(code);
