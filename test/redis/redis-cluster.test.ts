// A three-node Redis Cluster on loopback ports: every run's keys share one slot,
// and the store (contract included) works through ioredis Cluster.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approveAll, type RunEvent } from 'countersign';
import { createRedisRuleStore, createRedisStore } from 'countersign/redis';
import { describeStoreContract } from '../support/store-contract.js';
import { keySlot, pausedRun, removePrefix, streamEvents, uniquePrefix } from './redis-harness.js';

const hasRedisServer =
  spawnSync('redis-server', ['--version']).status === 0 && spawnSync('redis-cli', ['--version']).status === 0;
const required = process.env['COUNTERSIGN_REQUIRE_REDIS'] === '1';
const skip = !hasRedisServer && !required;

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** Three ports whose cluster bus ports (port + 10000) are free too. */
async function clusterPorts(): Promise<number[]> {
  const ports: number[] = [];
  while (ports.length < 3) {
    const port = 20_000 + Math.floor(Math.random() * 30_000);
    if (!ports.includes(port) && (await portIsFree(port)) && (await portIsFree(port + 10_000))) ports.push(port);
  }
  return ports;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(skip)(
  skip ? 'Redis Cluster (SKIPPED: redis-server is not on the PATH)' : 'Redis Cluster: three nodes on loopback',
  () => {
    let dir: string;
    let ports: number[] = [];
    const nodes: ChildProcess[] = [];
    let cluster: Cluster;
    const prefix = uniquePrefix();

    const cli = (...args: string[]) => spawnSync('redis-cli', args, { encoding: 'utf8' });

    beforeAll(async () => {
      if (!hasRedisServer)
        throw new Error(
          'COUNTERSIGN_REQUIRE_REDIS=1 but redis-server or redis-cli is not on the PATH; install redis-server.',
        );
      dir = mkdtempSync(join(tmpdir(), 'countersign-cluster-'));
      ports = await clusterPorts();
      for (const port of ports) {
        nodes.push(
          spawn(
            'redis-server',
            [
              '--port',
              String(port),
              '--bind',
              '127.0.0.1',
              '--cluster-enabled',
              'yes',
              '--cluster-config-file',
              join(dir, `nodes-${port}.conf`),
              '--save',
              '',
              '--appendonly',
              'no',
              '--dir',
              dir,
            ],
            { stdio: 'ignore' },
          ),
        );
      }
      for (const port of ports) {
        for (let attempt = 0; cli('-p', String(port), 'ping').stdout.trim() !== 'PONG'; attempt++) {
          if (attempt > 100) throw new Error(`redis-server on port ${port} did not start`);
          await sleep(50);
        }
      }
      const created = cli(
        '--cluster',
        'create',
        ...ports.map((port) => `127.0.0.1:${port}`),
        '--cluster-replicas',
        '0',
        '--cluster-yes',
      );
      if (created.status !== 0)
        throw new Error(`redis-cli --cluster create failed: ${created.stdout}${created.stderr}`);
      for (
        let attempt = 0;
        !ports.every((port) => cli('-p', String(port), 'cluster', 'info').stdout.includes('cluster_state:ok'));
        attempt++
      ) {
        if (attempt > 200) throw new Error('the cluster did not reach cluster_state:ok');
        await sleep(50);
      }
      cluster = new Cluster([{ host: '127.0.0.1', port: ports[0]! }], { redisOptions: { maxRetriesPerRequest: 2 } });
      cluster.on('error', () => {});
      await cluster.set(`${prefix}ready`, '1');
    });

    afterAll(async () => {
      if (cluster) {
        await removePrefix(cluster, prefix).catch(() => {});
        cluster.disconnect();
      }
      for (const node of nodes) node.kill('SIGKILL');
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('puts every key of a run in one slot (CLUSTER KEYSLOT), and the slots of many runs spread over the nodes', async () => {
      const store = createRedisStore({ redis: cluster, prefix });
      const slotsOfRuns = new Set<number>();
      for (const runId of ['run_a', 'run_b', 'run}odd', 'run:with:colons', 'ünïcode']) {
        const slots = await Promise.all(
          store.keys.run(runId).map((key) => cluster.cluster('KEYSLOT', key) as Promise<number>),
        );
        expect(new Set(slots).size).toBe(1);
        expect(slots[0]).toBe(keySlot(store.keys.head(runId)));
        slotsOfRuns.add(slots[0]!);
      }
      expect(slotsOfRuns.size).toBeGreaterThan(1);
    });

    it('carries a round trip: create, list, decide, resume, events, expiry, recovery, delete', async () => {
      const store = createRedisStore({ redis: cluster, prefix });
      const now = Date.now();
      const { run, agent } = await pausedRun({ ttlMs: 1_000, clock: () => now });
      const requested: RunEvent = {
        type: 'approval-requested',
        runId: run.runId,
        agentName: run.agentName,
        request: run.pendingApprovals[0]!,
      };
      await store.create(run, [requested]);
      expect(await store.load(run.runId)).toEqual(run);
      const page = await store.listPending({ agent: run.agentName });
      expect(page.items).toEqual([{ runId: run.runId, agentName: run.agentName, request: run.pendingApprovals[0] }]);
      expect(await store.expiredRuns(now + 5_000)).toContain(run.runId);
      const decided = approveAll(run, 'alice', { agent });
      await store.commit(decided, run.version);
      const done = await agent.execute(decided);
      await store.commit(done, decided.version);
      await expect(store.commit(done, decided.version)).rejects.toMatchObject({ name: 'VersionConflictError' });
      expect(await store.load(run.runId)).toEqual(done);
      expect((await store.listPending({ agent: run.agentName })).items).toEqual([]);
      expect((await streamEvents(cluster, prefix)).filter((event) => event.runId === run.runId)).toEqual([requested]);
      expect(await store.runsToRecover(Date.now(), Date.now())).toEqual([]);
      expect(await store.drainOutboxes({ minAgeMs: 0 })).toBe(0);
      expect(await store.once.putIfAbsent(`k:${run.runId}`, 'v', 60_000)).toBeUndefined();
      expect(await store.once.putIfAbsent(`k:${run.runId}`, 'w', 60_000)).toBe('v');
      expect(await store.once.get(`k:${run.runId}`)).toBe('v');
      await store.delete(run.runId);
      expect(await store.load(run.runId)).toBeUndefined();

      const rules = createRedisRuleStore({ redis: cluster, prefix });
      const rule = await rules.add({ tool: 'send_*', action: 'ask' });
      expect(await rules.setEnabled(rule.id, false)).toMatchObject({ enabled: false });
      expect(await rules.list()).toEqual([{ ...rule, enabled: false }]);
    });

    describeStoreContract('redis store on a cluster', async () => {
      const store = createRedisStore({
        redis: cluster,
        prefix: `${prefix}contract:${Math.random().toString(36).slice(2)}:`,
      });
      return { store, published: () => streamEvents(cluster, store.keys.prefix) };
    });
  },
);
