// A 2xx from the approval app means what it acknowledges is recorded: while Redis
// cannot be reached (a loopback proxy in front of it is cut) every acknowledging
// route answers 503 with Retry-After and writes nothing, however long the outage
// lasts compared with resumeTimeoutMs; once Redis is back, the client's retry records it.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { serve, type ServeHandle } from 'countersign/http';
import { createRedisStore, type RedisStore } from 'countersign/redis';
import { connect, removePrefix, uniquePrefix, until } from '../redis/redis-harness.js';
import { tcpProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { harness, json, type Harness } from './harness.js';
import { linkUrls } from '../support/link-urls.js';

const url = inject('redisUrl');

describe.skipIf(!url)('approval app during a Redis outage', () => {
  const prefix = uniquePrefix();
  let proxy: TcpProxy;
  let viaProxy: Redis;
  let direct: Redis;
  let stored: RedisStore;
  let h: Harness;
  let server: ServeHandle;

  beforeEach(async () => {
    const { hostname, port } = new URL(url!);
    proxy = await tcpProxy({ host: hostname, port: Number(port || 6379) });
    // Commands queued while Redis is away fail after a few reconnection attempts: an outage longer than resumeTimeoutMs.
    viaProxy = new Redis(proxy.url, { maxRetriesPerRequest: 3, retryStrategy: () => 150 });
    viaProxy.on('error', () => {});
    direct = connect(url!);
    stored = createRedisStore({ redis: direct, prefix });
    h = harness({ store: createRedisStore({ redis: viaProxy, prefix }), app: { resumeTimeoutMs: 250 } });
    server = await serve(h.app, { port: 0 });
  });
  afterEach(async () => {
    await server.close();
    viaProxy.disconnect();
    await proxy.close();
    await removePrefix(direct, prefix);
    direct.disconnect();
  });

  const post = (path: string, body?: unknown) =>
    fetch(`${server.url}${path}`, body === undefined ? { method: 'POST' } : json(body));
  const paused = async () => {
    const run = await h.runtime.start('files', { input: '/tmp/x' });
    return { runId: run.runId, approvalId: run.pendingApprovals[0]!.approvalId };
  };
  /** The answer to a retry once Redis is back: 2xx, and the run then goes on to `status` (a slow machine may answer 202 first). */
  const acknowledged = async (res: Response, runId: string, status: string) => {
    expect([200, 201, 202]).toContain(res.status);
    await until(async () => (await stored.load(runId))?.status === status, `run ${runId} is ${status}`);
  };
  const refusedForNow = (res: Response) => {
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
  };

  it('POST /runs/:runId/approvals/:approvalId: 503 while the decision cannot be written, recorded and carried on by the retry', async () => {
    const { runId, approvalId } = await paused();
    await proxy.cut();
    refusedForNow(await post(`/runs/${runId}/approvals/${approvalId}`, { approved: true, approvedBy: 'alice' }));
    expect(await stored.load(runId)).toMatchObject({ status: 'awaitingApproval', audit: [] });
    await proxy.restore();
    const retried = await post(`/runs/${runId}/approvals/${approvalId}`, { approved: true, approvedBy: 'alice' });
    expect(await retried.json()).toMatchObject({ duplicate: false });
    await acknowledged(retried, runId, 'completed');
    expect((await stored.load(runId))?.audit).toMatchObject([{ approvalId, decision: 'approved', by: 'alice' }]);
    expect(h.executed).toEqual(['/tmp/x']);
  });

  it('POST /runs/:runId/approvals (batch): 503 when Redis goes away between reading the run and writing its decisions, recorded by the retry', async () => {
    const { runId } = await paused();
    const cut = proxy.cutAt('alice');
    refusedForNow(await post(`/runs/${runId}/approvals`, { approveAll: true, approvedBy: 'alice' }));
    await cut;
    expect(await stored.load(runId)).toMatchObject({ status: 'awaitingApproval', audit: [] });
    await proxy.restore();
    const retried = await post(`/runs/${runId}/approvals`, { approveAll: true, approvedBy: 'alice' });
    expect(await retried.json()).toMatchObject({ results: [{ ok: true, duplicate: false }] });
    await acknowledged(retried, runId, 'completed');
  });

  it('POST /runs: 503 while the run cannot be created, created by the retry', async () => {
    const runId = `run_outage_${randomUUID()}`;
    await proxy.cut();
    refusedForNow(await post('/runs', { agent: 'files', input: '/tmp/y', runId }));
    expect(await stored.load(runId)).toBeUndefined();
    await proxy.restore();
    await acknowledged(await post('/runs', { agent: 'files', input: '/tmp/y', runId }), runId, 'awaitingApproval');
  });

  it('POST /links/:token: no "Decision recorded" page while the decision cannot be written; the same link works once Redis is back', async () => {
    const { runId, approvalId } = await paused();
    const { approve } = await linkUrls(h.runtime, runId, approvalId, { approvedBy: 'alice' });
    const path = new URL(approve).pathname;
    await proxy.cut();
    const refused = await post(path);
    refusedForNow(refused);
    expect(await refused.text()).not.toContain('Decision recorded');
    expect(await stored.load(runId)).toMatchObject({ status: 'awaitingApproval', audit: [] });
    await proxy.restore();
    const retried = await post(path);
    expect(await retried.text()).toMatch(/Approved|Decision recorded/);
    await acknowledged(retried, runId, 'completed');
  });
});
