// createRedisStore({ durability: { replicas } }): a commit resolves only once a
// replica holds it (WAIT). A throwaway primary and a real replica of it are
// started on loopback for this suite (the shared server is left alone).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approveAll, ConfigError, StoreUnavailableError } from 'countersign';
import { createRedisStore } from 'countersign/redis';
import { connect, pausedRun, until } from './redis-harness.js';
import { freePort } from '../support/free-port.js';

const hasRedisServer = spawnSync('redis-server', ['--version']).status === 0;

describe.skipIf(!hasRedisServer)('Redis store: durability by replica acknowledgement', () => {
  const children: ChildProcess[] = [];
  const dirs: string[] = [];
  const connections: Redis[] = [];
  let primary: Redis;
  let replica: Redis;
  let replicaProcess: ChildProcess;

  const start = async (extra: string[] = []) => {
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'countersign-durability-'));
    dirs.push(dir);
    const child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, ...extra],
      { stdio: 'ignore' },
    );
    children.push(child);
    const redis = connect(`redis://127.0.0.1:${port}`);
    connections.push(redis);
    await until(async () => (await redis.ping().catch(() => '')) === 'PONG', `redis-server on ${port} answers`);
    return { port, child, redis };
  };

  beforeAll(async () => {
    const main = await start();
    primary = main.redis;
    const copy = await start(['--replicaof', '127.0.0.1', String(main.port)]);
    replica = copy.redis;
    replicaProcess = copy.child;
    await until(async () => /master_link_status:up/.test(await replica.info('replication')), 'the replica is in sync');
  });
  afterAll(() => {
    for (const redis of connections) redis.disconnect();
    for (const child of children) child.kill('SIGKILL');
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('resolves a commit once the replica holds it, and refuses it (retryable) when no replica acknowledges in time', async () => {
    const store = createRedisStore({ redis: primary, prefix: 'durable:', durability: { replicas: 1, timeoutMs: 300 } });
    const { run, agent } = await pausedRun();
    await store.create(run);
    // WAIT returned: the replica already has the run, without waiting further.
    expect(await replica.hget(store.keys.head(run.runId), 'v')).toBe(String(run.version));

    replicaProcess.kill('SIGKILL');
    await until(
      async () => /connected_slaves:0/.test(await primary.info('replication')),
      'the primary lost its replica',
    );
    const decided = approveAll(run, 'alice', { agent });
    const refused = store.commit(decided, run.version);
    await expect(refused).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(refused).rejects.toThrow(/to 0 of 1 replicas within 300 ms/);
  });

  it("with appendfsync 'always', writes nothing to a server that does not fsync every write, and commits once it does", async () => {
    const store = createRedisStore({ redis: primary, prefix: 'fsync:', durability: { appendfsync: 'always' } });
    const { run } = await pausedRun();
    await expect(store.create(run)).rejects.toThrow(/appendonly no and appendfsync everysec/);
    expect(await primary.exists(store.keys.head(run.runId))).toBe(0);
    await primary.config('SET', 'appendonly', 'yes');
    await primary.config('SET', 'appendfsync', 'always');
    await store.create(run);
    expect(await store.load(run.runId)).toEqual(run);
  });

  it('refuses durability settings it cannot honour', () => {
    expect(() => createRedisStore({ redis: primary, durability: { replicas: 0 } })).toThrow(ConfigError);
    expect(() => createRedisStore({ redis: primary, durability: { replicas: 1, timeoutMs: 0 } })).toThrow(/timeoutMs/);
  });
});
