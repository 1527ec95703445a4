// A Redis server (append-only file, fsync always) is killed and restarted in
// the middle of a stream of decisions: every operation either succeeds or
// fails with a retryable StoreUnavailableError, and nothing that succeeded is
// lost across the restart.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createRuntime, StoreUnavailableError, type AgentSnapshot } from 'countersign';
import { createRedisStore } from 'countersign/redis';
import { countingAgent } from '../support/runtime-harness.js';
import { freePort } from '../support/free-port.js';

const hasRedisServer = spawnSync('redis-server', ['--version']).status === 0;
const required = process.env['COUNTERSIGN_REQUIRE_REDIS'] === '1';

async function waitForPing(redis: Redis): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    try {
      if ((await redis.ping()) === 'PONG') return;
    } catch {
      // Not up yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('redis-server did not come back');
}

describe.skipIf(!hasRedisServer && !required)('runtime on a Redis server that restarts mid-workload', () => {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-restart-'));
  let server: ChildProcess | undefined;
  let port = 0;
  const startServer = () => {
    server = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'yes',
        '--appendfsync',
        'always',
        '--dir',
        dir,
      ],
      {
        stdio: 'ignore',
      },
    );
  };
  afterAll(() => {
    server?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('fails only with retryable errors while down and keeps every decision that succeeded', async () => {
    port = await freePort();
    startServer();
    // Commands fail at once while the server is down, and the connection comes back by itself.
    const redis = new Redis({
      port,
      host: '127.0.0.1',
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      retryStrategy: () => 20,
      lazyConnect: true,
    });
    redis.on('error', () => {});
    await redis.connect().catch(() => {});
    await waitForPing(redis);
    const counting = countingAgent({ idempotent: true });
    const runtime = createRuntime({ agents: [counting.agent], store: createRedisStore({ redis, prefix: 'restart:' }) });
    const runs: AgentSnapshot[] = [];
    for (let index = 0; index < 60; index++) runs.push(await runtime.start(counting.agent.name, { input: 'pay' }));

    const succeeded = new Set<string>();
    const failures: unknown[] = [];
    let settled = () => {};
    const decide = async (run: AgentSnapshot) => {
      try {
        await runtime.respond(run.runId, {
          approvalId: run.pendingApprovals[0]!.approvalId,
          approved: true,
          approvedBy: 'ops',
        });
        succeeded.add(run.runId);
      } catch (error) {
        failures.push(error);
      }
      settled();
    };
    /** Resolves once `check` holds, looked at after each decision settles. */
    const once = (check: () => boolean) =>
      new Promise<void>((resolve) => {
        if (check()) return resolve();
        settled = () => check() && resolve();
      });
    // Decisions go out every few milliseconds; the server is killed once some have succeeded, with others in flight,
    // and restarted once some have failed, however fast or slow the machine gets through them.
    const inFlight = runs.map((run, index) =>
      new Promise((resolve) => setTimeout(resolve, index * 8)).then(() => decide(run)),
    );
    await once(() => succeeded.size >= 10);
    server!.kill('SIGKILL');
    await new Promise((resolve) => server!.once('exit', resolve));
    await once(() => failures.length >= 1 || succeeded.size + failures.length === runs.length);
    startServer();
    await waitForPing(redis);
    await Promise.all(inFlight);

    expect(failures.length).toBeGreaterThan(0);
    expect(failures.length + succeeded.size).toBe(runs.length);
    for (const failure of failures) {
      expect(failure).toBeInstanceOf(StoreUnavailableError);
      expect(failure).toMatchObject({ retryable: true, code: 'store_unavailable' });
    }
    expect(succeeded.size).toBeGreaterThan(0);
    for (const runId of succeeded) {
      const stored = await runtime.get(runId);
      expect(stored.audit.filter((entry) => entry.source === 'human')).toMatchObject([
        { decision: 'approved', by: 'ops' },
      ]);
    }

    // Retrying what failed finishes every run; recover picks up any run a failed commit left half-way.
    for (const run of runs.filter((item) => !succeeded.has(item.runId))) await decide(run);
    // An hour later, for the store too: a commit whose reply was lost left its index updates in the run's outbox, which recovery drains once it is old.
    const later = () => Date.now() + 3_600_000;
    await createRuntime({
      agents: [counting.agent],
      store: createRedisStore({ redis, prefix: 'restart:', clock: later }),
      clock: later,
    }).recover();
    for (const run of runs) expect((await runtime.get(run.runId)).status).toBe('completed');
    const perRun = new Map<string, number>();
    for (const key of counting.executions) perRun.set(key, (perRun.get(key) ?? 0) + 1);
    expect(perRun.size).toBe(runs.length);
    await redis.quit();
  });
});
