// A long-poll on one runtime woken by a decision another runtime records on the same Redis store: the waiting
// process sees no event of that commit, so it finds the decision by looking again.
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import type { Redis } from 'ioredis';
import { createRuntime } from 'countersign';
import { createApprovalApp } from 'countersign/http';
import { createRedisStore } from 'countersign/redis';
import { connect, removePrefix, uniquePrefix } from '../redis/redis-harness.js';
import { TOKEN } from './harness.js';
import { ask, closeServedAfterEach, countingLoads, send, serveApp } from './request-kit.js';

const url = inject('redisUrl');

closeServedAfterEach();

describe.skipIf(!url)('a long-poll across runtimes on one Redis store', () => {
  let redis: Redis;
  const prefix = uniquePrefix();

  beforeAll(() => {
    redis = connect(url!);
  });
  afterAll(async () => {
    await removePrefix(redis, prefix);
    await redis.quit();
  });

  it('answers the decision recorded by another runtime, with the arguments it approved', async () => {
    const { store, loadsOf } = countingLoads(createRedisStore({ redis, prefix }));
    const waiter = createRuntime({ store });
    const decider = createRuntime({ store: createRedisStore({ redis, prefix }) });
    const base = await serveApp(createApprovalApp(waiter, { bearerToken: TOKEN }));
    const { body } = await ask(base, { tool: 'deploy', args: { service: 'billing', version: '2.4.1' } });
    const request = (await decider.approvalRequest(body.id).status()) as { request?: { approvalId: string } };
    expect(request.request?.approvalId).toBe(body.request.approvalId);

    const before = loadsOf(body.id);
    const waiting = send(`${base}/approvals/${body.id}?waitMs=30000`);
    // The long-poll found the request and looked at it: it waits now, and no event of this process will wake it.
    await vi.waitFor(() => expect(loadsOf(body.id)).toBeGreaterThanOrEqual(before + 2), { timeout: 10_000 });
    await decider.respond(
      body.id,
      {
        approvalId: body.request.approvalId,
        approved: true,
        approvedBy: 'alice',
        args: { service: 'billing', version: '2.4.2' },
      },
      { mode: 'record' },
    );
    const state = await waiting;
    expect(state).toMatchObject({
      status: 200,
      body: { id: body.id, status: 'approved', args: { service: 'billing', version: '2.4.2' }, by: 'alice' },
    });
    // The waiting side carries the decided run to its end (the decision was recorded without going on).
    await vi.waitFor(async () => expect((await waiter.get(body.id)).status).toBe('completed'), { timeout: 10_000 });
  });
});
