// The fixture MCP server (test/fixtures/mcp-server.ts) as the MCP suites start it: over stdio (the connection spawns
// it) or over HTTP in a child process a test can kill and start again on the same port; and the calls it logged.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConnectorStatus } from 'countersign';
import type { McpConnection } from 'countersign/mcp';
import { builtCommand, builtScript } from './built.js';
import { freePort } from './free-port.js';

/** The fixture server transpiled for this run (test/support/built.ts), to run with a plain `node`. */
export const fixtureScript = await builtScript('test/fixtures/mcp-server.ts');
/** The command line that starts the fixture over stdio, for options such as the gateway CLI's `--upstream`. */
export const fixtureCommand = await builtCommand('test/fixtures/mcp-server.ts');

/** A fresh file the fixture logs its calls to, and the calls logged so far (one object per call). */
export function callLog(): { readonly file: string; calls(tool?: string): Record<string, unknown>[] } {
  const file = join(mkdtempSync(join(tmpdir(), 'countersign-mcp-')), 'calls.jsonl');
  return {
    file,
    calls: (tool) => {
      let lines: string[];
      try {
        lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
      } catch {
        return [];
      }
      return lines
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((entry) => tool === undefined || entry['tool'] === tool);
    },
  };
}

/** connectMcpServer options that spawn the fixture over stdio. */
export function stdioFixture(log: string) {
  return { command: process.execPath, args: [fixtureScript], env: { MCP_FIXTURE_LOG: log } };
}

/** The fixture over HTTP in a child process: `start` (again after `kill`, on the same port), `kill` (SIGKILL). */
export async function httpFixture(log: string, mode: '--http' | '--http-no-stream' | '--sse' = '--http') {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const fixture = {
    url: `http://127.0.0.1:${port}/${mode === '--sse' ? 'sse' : 'mcp'}`,
    async start(): Promise<void> {
      const started = spawn(process.execPath, [fixtureScript, mode, String(port)], {
        env: { ...process.env, MCP_FIXTURE_LOG: log },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      child = started;
      await new Promise<void>((resolve, reject) => {
        started.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('listening') && resolve());
        started.once('exit', (code) => reject(new Error(`the fixture server exited with ${code} before it listened`)));
      });
    },
    async kill(): Promise<void> {
      const running = child;
      child = undefined;
      if (!running || running.exitCode !== null || running.signalCode !== null) return;
      await new Promise((resolve) => {
        running.once('exit', resolve);
        running.kill('SIGKILL');
      });
    },
  };
  await fixture.start();
  return fixture;
}

/** Resolves when the connection reaches `status` (at once if it is there). */
export function statusReached(connection: McpConnection, status: ConnectorStatus): Promise<void> {
  return new Promise((resolve) => {
    if (connection.status === status) return resolve();
    const stop = connection.on('status', (next) => {
      if (next !== status) return;
      stop();
      resolve();
    });
  });
}
