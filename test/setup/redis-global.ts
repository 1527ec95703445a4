// Gives the suites that need one a Redis: the one REDIS_URL names, else a throwaway redis-server of this run's own on
// a free port (stopped and its folder removed after the run). It never uses a server it was not given, such as one
// that happens to answer on 6379. With COUNTERSIGN_REQUIRE_REDIS=1 a missing Redis fails the run instead of skipping
// the Redis suites.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { freePort } from '../support/free-port.js';

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string | undefined;
  }
}

function ping(url: string, timeoutMs = 2_000): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = createConnection({ host: hostname, port: Number(port || 6379) });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
  });
}

let child: ChildProcess | undefined;
let dir: string | undefined;

/** Starts redis-server on a free port and resolves with its URL once it said it is ready, or undefined if it could not start. */
async function startOwnServer(): Promise<string | undefined> {
  if (spawnSync('redis-server', ['--version']).status !== 0) return undefined;
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    dir = mkdtempSync(join(tmpdir(), 'countersign-redis-'));
    const server = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
      {
        stdio: ['ignore', 'pipe', 'ignore'],
      },
    );
    child = server;
    // The server's own log line says when it accepts connections; exiting first means the port was taken meanwhile.
    const ready = await new Promise<boolean>((resolve) => {
      let seen = '';
      server.stdout!.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        if (/Ready to accept connections/.test(seen)) resolve(true);
      });
      server.once('exit', () => resolve(false));
      server.once('error', () => resolve(false));
    });
    server.stdout!.resume();
    const url = `redis://127.0.0.1:${port}`;
    if (ready && (await ping(url))) return url;
    server.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    child = undefined;
    dir = undefined;
  }
  return undefined;
}

export async function setup(project: TestProject): Promise<void> {
  const given = process.env['REDIS_URL'];
  if (given) {
    if (!(await ping(given)))
      throw new Error(
        `REDIS_URL is set to ${given}, but no Redis answered there. Start it, or unset REDIS_URL to let the tests start their own.`,
      );
    project.provide('redisUrl', given);
    return;
  }
  const own = await startOwnServer();
  if (own !== undefined) {
    project.provide('redisUrl', own);
    return;
  }
  if (process.env['COUNTERSIGN_REQUIRE_REDIS'] === '1') {
    throw new Error(
      'COUNTERSIGN_REQUIRE_REDIS=1 but REDIS_URL is not set and redis-server could not be started. Install redis-server, or set REDIS_URL.',
    );
  }
  process.stderr.write(
    '\n*** No Redis: the Redis suites are SKIPPED. Install redis-server (the tests start their own), or set REDIS_URL. ***\n\n',
  );
  project.provide('redisUrl', undefined);
}

export async function teardown(): Promise<void> {
  const running = child;
  if (running && running.exitCode === null && running.signalCode === null) {
    await new Promise((resolve) => {
      running.once('exit', resolve);
      running.kill('SIGTERM');
    });
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
}
