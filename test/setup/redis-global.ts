// Finds a Redis for the suites that need one: REDIS_URL, else 127.0.0.1:6379,
// else a throwaway redis-server on a free port (stopped after the run). With
// COUNTERSIGN_REQUIRE_REDIS=1 a missing Redis fails the run instead of
// skipping the Redis suites.
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

function ping(url: string, timeoutMs = 500): Promise<boolean> {
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

export async function setup(project: TestProject): Promise<void> {
  const candidates = [process.env['REDIS_URL'], 'redis://127.0.0.1:6379'].filter((url): url is string => Boolean(url));
  for (const url of candidates) {
    if (await ping(url)) {
      project.provide('redisUrl', url);
      return;
    }
  }
  if (spawnSync('redis-server', ['--version']).status === 0) {
    const port = await freePort();
    dir = mkdtempSync(join(tmpdir(), 'countersign-redis-'));
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' });
    const url = `redis://127.0.0.1:${port}`;
    for (let attempt = 0; attempt < 50 && !(await ping(url)); attempt++) await new Promise((r) => setTimeout(r, 100));
    if (await ping(url)) {
      project.provide('redisUrl', url);
      return;
    }
  }
  if (process.env['COUNTERSIGN_REQUIRE_REDIS'] === '1') {
    throw new Error('COUNTERSIGN_REQUIRE_REDIS=1 but no Redis answered (REDIS_URL, 127.0.0.1:6379) and redis-server could not be started. Install redis-server.');
  }
  process.stderr.write('\n*** No Redis server found: the Redis suites are SKIPPED. Set REDIS_URL or install redis-server. ***\n\n');
  project.provide('redisUrl', undefined);
}

export async function teardown(): Promise<void> {
  child?.kill('SIGTERM');
  if (dir) rmSync(dir, { recursive: true, force: true });
}
