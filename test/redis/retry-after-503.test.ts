// A 503 whose write did land: the commit landed and the replica wait timed out (durability: { replicas } on a server
// with no replica), or the run was recorded and the queue write failed (enqueue mode, its connection cut). The
// caller's retry (here through another instance, as after a load balancer's retry) must get the run its first
// attempt made, carried on, never a conflict, a second run, or a run nothing resumes.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ConfigError, RunExistsError } from 'countersign';
import { createRedisResumeQueue, createRedisStore } from 'countersign/redis';
import { bearer, harness, json } from '../http/harness.js';
import { tcpProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { connect, removePrefix, uniquePrefix } from './redis-harness.js';

const url = inject('redisUrl');

describe.skipIf(!url)('a retry after a 503 whose write landed', () => {
  const prefixes: string[] = [];
  let direct: Redis;
  beforeAll(async () => {
    direct = connect(url!);
    // The shared server has no replica, so every WAIT for one times out: the fault these tests rely on.
    expect(/connected_slaves:0/.test(await direct.info('replication'))).toBe(true);
  });
  afterAll(async () => {
    for (const prefix of prefixes) await removePrefix(direct, prefix);
    direct.disconnect();
  });

  /** Two app instances on one Redis prefix: `unacknowledged` waits for a replica that never answers, `healthy` does not. */
  const instances = () => {
    const prefix = uniquePrefix();
    prefixes.push(prefix);
    const unacknowledged = harness({
      store: createRedisStore({ redis: direct, prefix, durability: { replicas: 1, timeoutMs: 20 } }),
    });
    const healthy = harness({ store: createRedisStore({ redis: direct, prefix }) });
    return { unacknowledged, healthy };
  };

  it('a start retried with its own run id gets the run its first attempt created, not 409 version_conflict', async () => {
    const { unacknowledged, healthy } = instances();
    const runId = `run_${randomUUID()}`;
    const first = await unacknowledged.app.request('/runs', json({ agent: 'files', input: '/tmp/start', runId }));
    expect(first.status).toBe(503);
    expect(await healthy.store.load(runId)).toBeDefined();

    const retry = await healthy.app.request('/runs', json({ agent: 'files', input: '/tmp/start', runId }));
    const body = (await retry.json()) as { status: string; run: { runId: string } };
    expect(retry.status, JSON.stringify(body)).toBe(201);
    expect(body).toMatchObject({ status: 'awaitingApproval', run: { runId } });
    expect((await healthy.runtime.pending()).items.map((item) => item.runId)).toEqual([runId]);

    const other = await healthy.app.request('/runs', json({ agent: 'files', input: '/tmp/another', runId }));
    expect(other.status).toBe(409);
    expect(await other.json()).toMatchObject({ code: 'run_exists', runId });
  });

  it('a start retried with its Idempotency-Key makes no second run, and the key cannot start another', async () => {
    const { unacknowledged, healthy } = instances();
    const key = { ...bearer(), 'idempotency-key': `order-${randomUUID()}` };
    const first = await unacknowledged.app.request('/runs', json({ agent: 'files', input: '/tmp/keyed' }, key));
    expect(first.status).toBe(503);

    const retry = await healthy.app.request('/runs', json({ agent: 'files', input: '/tmp/keyed' }, key));
    expect(retry.status).toBe(201);
    const { run } = (await retry.json()) as { run: { runId: string } };
    const again = await healthy.app.request('/runs', json({ agent: 'files', input: '/tmp/keyed' }, key));
    expect(((await again.json()) as { run: { runId: string } }).run.runId).toBe(run.runId);
    expect((await healthy.runtime.pending()).items.map((item) => item.runId)).toEqual([run.runId]);
    expect(healthy.modelCalls()).toBe(1);

    const reused = await healthy.app.request('/runs', json({ agent: 'files', input: '/tmp/other' }, key));
    expect(reused.status).toBe(409);
    expect(await reused.json()).toMatchObject({ code: 'run_exists' });
  });

  it('runtime.start with an idempotencyKey, retried after a 503 whose create landed, returns the run its first attempt made', async () => {
    const { unacknowledged, healthy } = instances();
    const idempotencyKey = `order-${randomUUID()}`;
    await expect(
      unacknowledged.runtime.start('files', { input: '/tmp/lib' }, { idempotencyKey }),
    ).rejects.toMatchObject({ code: 'store_unavailable' });
    const retried = await healthy.runtime.start('files', { input: '/tmp/lib' }, { idempotencyKey });
    expect(retried.status).toBe('awaitingApproval');
    expect((await healthy.runtime.start('files', { input: '/tmp/lib' }, { idempotencyKey })).runId).toBe(retried.runId);
    expect((await healthy.runtime.pending()).items.map((item) => item.runId)).toEqual([retried.runId]);
    await expect(healthy.runtime.start('files', { input: '/tmp/else' }, { idempotencyKey })).rejects.toBeInstanceOf(
      RunExistsError,
    );
    await expect(
      healthy.runtime.start('files', { input: '/tmp/lib', runId: 'run_both' }, { idempotencyKey }),
    ).rejects.toBeInstanceOf(ConfigError);
  });

  it('a decision retried after a 503 whose commit landed carries the run on, not 200 duplicate with nothing resuming it', async () => {
    const { unacknowledged, healthy } = instances();
    const run = await healthy.runtime.start('files', { input: '/tmp/decided' });
    const path = `/runs/${run.runId}/approvals/${run.pendingApprovals[0]!.approvalId}`;
    const decision = { approved: true, approvedBy: 'alice' };
    const first = await unacknowledged.app.request(path, json(decision));
    expect(first.status).toBe(503);
    expect((await healthy.store.load(run.runId))?.status).toBe('running');

    const retry = await healthy.app.request(path, json(decision));
    expect(retry.status).toBe(200);
    expect(await retry.json()).toMatchObject({ status: 'completed', duplicate: true });
    expect(healthy.executed).toEqual(['/tmp/decided']);
    expect(unacknowledged.executed).toEqual([]);
  });

  describe('enqueue mode, the queue write failing after the run was recorded', () => {
    let proxy: TcpProxy;
    let viaProxy: Redis;
    beforeAll(async () => {
      const { hostname, port } = new URL(url!);
      proxy = await tcpProxy({ host: hostname, port: Number(port || 6379) });
      viaProxy = new Redis(proxy.url, { maxRetriesPerRequest: 1 });
      viaProxy.on('error', () => {});
    });
    afterAll(async () => {
      viaProxy.disconnect();
      await proxy.close();
    });

    it('a start retried with its run id is queued by the retry, once, and no second run is made', async () => {
      const prefix = uniquePrefix();
      prefixes.push(prefix);
      // The queue is on a connection of its own, which is cut: the run's create lands, its job cannot be queued.
      const queue = createRedisResumeQueue({ redis: viaProxy, prefix });
      const h = harness({ store: createRedisStore({ redis: direct, prefix }), queue, app: { resumeMode: 'enqueue' } });
      await proxy.cut();
      const runId = `run_${randomUUID()}`;
      const first = await h.app.request('/runs', json({ agent: 'files', input: '/tmp/queued', runId }));
      expect(first.status).toBe(503);
      expect((await h.store.load(runId))?.status).toBe('running');
      expect(await direct.xlen(queue.key)).toBe(0);

      await proxy.restore();
      const retry = await h.app.request('/runs', json({ agent: 'files', input: '/tmp/queued', runId }));
      expect(retry.status).toBe(202);
      expect(await retry.json()).toMatchObject({ accepted: true, runId });
      const jobs = await direct.xrange(queue.key, '-', '+');
      expect(jobs.map(([, fields]) => fields[fields.indexOf('runId') + 1])).toEqual([runId]);
    });
  });
});
