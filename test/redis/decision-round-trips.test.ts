// Round trips of a decision through the runtime on one Redis server: one
// script when this process wrote the run last, a load first when it did not,
// and a stale view is refused by the compare-and-set, never written.
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createRuntime } from 'countersign';
import { createRedisResumeQueue, createRedisStore } from 'countersign/redis';
import { createApprovalApp } from 'countersign/http';
import { NOW_MS, signed } from '../http/harness.js';
import { connect, emailAgent, removePrefix, uniquePrefix, watchedCommands } from './redis-harness.js';

const url = inject('redisUrl');

describe.skipIf(!url)('runtime on Redis: round trips per decision', () => {
  const redis = url ? connect(url) : undefined!;
  const prefix = uniquePrefix();
  afterAll(async () => {
    await removePrefix(redis, prefix);
    redis.disconnect();
  });

  const setup = () => {
    const agent = emailAgent();
    const sent: string[] = [];
    const runtime = createRuntime({
      agents: [agent],
      store: createRedisStore({ redis: watchedCommands(redis, sent), prefix }),
    });
    const roundTrips = () => sent.filter((name) => name !== 'defineCommand');
    return { agent, sent, runtime, roundTrips };
  };

  it('records a decision on a run this process wrote in one round trip: the commit script, with its event and index update', async () => {
    const { agent, sent, runtime, roundTrips } = setup();
    const run = await runtime.start(agent.name, { input: 'email someone' });
    sent.length = 0;
    const result = await runtime.respond(
      run.runId,
      { approvalId: run.pendingApprovals[0]!.approvalId, approved: true, approvedBy: 'alice' },
      { mode: 'record' },
    );
    expect(result).toMatchObject({ status: 'running', duplicate: false });
    expect(roundTrips()).toEqual(['countersignWriteRun']);
    expect(await runtime.get(run.runId)).toEqual(result.snapshot);
  });

  it("records and queues a decision in one round trip when the queue is on the store's connection: the commit script adds the job", async () => {
    const { agent, sent, roundTrips } = setup();
    const watched = watchedCommands(redis, sent);
    const queue = createRedisResumeQueue({ redis: watched, prefix });
    const runtime = createRuntime({ agents: [agent], store: createRedisStore({ redis: watched, prefix }), queue });
    const run = await runtime.start(agent.name, { input: 'email someone' });
    const jobsBefore = await redis.xlen(queue.key);
    sent.length = 0;
    const result = await runtime.respond(
      run.runId,
      { approvalId: run.pendingApprovals[0]!.approvalId, approved: true, approvedBy: 'alice' },
      { mode: 'enqueue' },
    );
    expect(result).toMatchObject({ status: 'running', duplicate: false });
    expect(roundTrips()).toEqual(['countersignWriteRun']);
    const jobs = await redis.xrange(queue.key, '-', '+');
    expect(jobs).toHaveLength(jobsBefore + 1);
    expect(jobs.at(-1)![1]).toEqual(['runId', run.runId]);
  });

  it('queues on a queue of another connection after the commit: two round trips, the job still added', async () => {
    const { agent, sent, roundTrips } = setup();
    const elsewhere = connect(url!);
    try {
      const queue = createRedisResumeQueue({ redis: watchedCommands(elsewhere, sent), prefix });
      const runtime = createRuntime({
        agents: [agent],
        store: createRedisStore({ redis: watchedCommands(redis, sent), prefix }),
        queue,
      });
      const run = await runtime.start(agent.name, { input: 'email someone' });
      const jobsBefore = await redis.xlen(queue.key);
      sent.length = 0;
      await runtime.respond(
        run.runId,
        { approvalId: run.pendingApprovals[0]!.approvalId, approved: true, approvedBy: 'alice' },
        { mode: 'enqueue' },
      );
      expect(roundTrips()).toEqual(['countersignWriteRun', 'call']);
      expect(await redis.xlen(queue.key)).toBe(jobsBefore + 1);
    } finally {
      elsewhere.disconnect();
    }
  });

  it('queues nothing in the commit of a decision that leaves the run waiting', async () => {
    const { sent, roundTrips } = setup();
    const agent = emailAgent();
    const watched = watchedCommands(redis, sent);
    const queue = createRedisResumeQueue({ redis: watched, prefix });
    const runtime = createRuntime({ agents: [agent], store: createRedisStore({ redis: watched, prefix }), queue });
    const run = await runtime.start(agent.name, { input: 'email someone' });
    const jobsBefore = await redis.xlen(queue.key);
    const approvalId = run.pendingApprovals[0]!.approvalId;
    const first = await runtime.respond(
      run.runId,
      { approvalId, approved: true, approvedBy: 'alice' },
      { mode: 'enqueue' },
    );
    expect(first.status).toBe('running');
    sent.length = 0;
    // A repeat commits nothing; in enqueue mode it queues the run again, on its own.
    const again = await runtime.respond(
      run.runId,
      { approvalId, approved: true, approvedBy: 'alice' },
      { mode: 'enqueue' },
    );
    expect(again.duplicate).toBe(true);
    expect(roundTrips()).not.toContain('countersignWriteRun');
    expect(await redis.xlen(queue.key)).toBe(jobsBefore + 2);
  });

  it('a signed decision over HTTP in enqueue mode: one commit claims the webhook-id with the answer, records the decision and queues the run (one round trip); its redelivery gets that answer from one', async () => {
    const { agent, sent, roundTrips } = setup();
    const watched = watchedCommands(redis, sent);
    const runtime = createRuntime({
      agents: [agent],
      store: createRedisStore({ redis: watched, prefix }),
      queue: createRedisResumeQueue({ redis: watched, prefix }),
    });
    const app = createApprovalApp(runtime, {
      webhookSecret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      resumeMode: 'enqueue',
      clock: () => NOW_MS,
    });
    const run = await runtime.start(agent.name, { input: 'email someone' });
    const approvalId = run.pendingApprovals[0]!.approvalId;
    const body = JSON.stringify({ runId: run.runId, approvalId, approved: true, approvedBy: 'alice' });
    const headers = signed(body);
    const post = () => app.request(`/runs/${run.runId}/approvals/${approvalId}`, { method: 'POST', headers, body });
    sent.length = 0;
    const first = await post();
    expect(first.status).toBe(202);
    expect(roundTrips()).toEqual(['countersignWriteRun']);
    expect(JSON.parse((await redis.get(`${prefix}remember:webhook:${headers['webhook-id']}`)) ?? 'null')).toMatchObject(
      {
        answer: { status: 202, body: await first.clone().text() },
      },
    );
    sent.length = 0;
    const again = await post();
    expect(again.status).toBe(202);
    expect(again.headers.get('webhook-replayed')).toBe('true');
    expect(await again.json()).toEqual(await first.json());
    expect(roundTrips()).toEqual(['countersignRemember']);
  });

  it('a webhook-id already held stops the commit that would claim it: nothing is written, another request under it is refused, and the run is decided by its own delivery', async () => {
    const { agent, sent, roundTrips } = setup();
    const watched = watchedCommands(redis, sent);
    const runtime = createRuntime({
      agents: [agent],
      store: createRedisStore({ redis: watched, prefix }),
      queue: createRedisResumeQueue({ redis: watched, prefix }),
    });
    const app = createApprovalApp(runtime, {
      webhookSecret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      resumeMode: 'enqueue',
      clock: () => NOW_MS,
    });
    const a = await runtime.start(agent.name, { input: 'email someone' });
    const b = await runtime.start(agent.name, { input: 'email someone else' });
    const decide = (run: typeof a, id: string) => {
      const approvalId = run.pendingApprovals[0]!.approvalId;
      const body = JSON.stringify({ runId: run.runId, approvalId, approved: true, approvedBy: 'alice' });
      return app.request(`/runs/${run.runId}/approvals/${approvalId}`, {
        method: 'POST',
        headers: signed(body, { id }),
        body,
      });
    };
    expect((await decide(a, 'msg_shared')).status).toBe(202);
    const before = await runtime.get(b.runId);
    sent.length = 0;
    const reused = await decide(b, 'msg_shared');
    expect(reused.status).toBe(409);
    expect(await reused.json()).toMatchObject({ code: 'webhook_id_reused' });
    expect(roundTrips()).toEqual(['countersignWriteRun']);
    expect(await runtime.get(b.runId)).toEqual(before);
    expect((await decide(b, 'msg_own')).status).toBe(202);
    expect((await runtime.get(b.runId)).status).toBe('running');
  });

  it('two deliveries of one webhook-id at once: the write that lands first claims it, the other is answered from it, the decision is recorded once', async () => {
    const { agent } = setup();
    const queue = createRedisResumeQueue({ redis, prefix });
    const runtime = createRuntime({ agents: [agent], store: createRedisStore({ redis, prefix }), queue });
    const app = createApprovalApp(runtime, {
      webhookSecret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      resumeMode: 'enqueue',
      clock: () => NOW_MS,
    });
    const run = await runtime.start(agent.name, { input: 'email someone' });
    const approvalId = run.pendingApprovals[0]!.approvalId;
    const body = JSON.stringify({ runId: run.runId, approvalId, approved: true, approvedBy: 'alice' });
    const headers = signed(body);
    const jobsBefore = await redis.xlen(queue.key);
    const post = () => app.request(`/runs/${run.runId}/approvals/${approvalId}`, { method: 'POST', headers, body });
    const answers = await Promise.all([post(), post()]);
    expect(answers.map((answer) => answer.status)).toEqual([202, 202]);
    expect(answers.map((answer) => answer.headers.get('webhook-replayed')).sort()).toEqual(['true', null].sort());
    const [one, two] = await Promise.all(answers.map((answer) => answer.text()));
    expect(one).toBe(two);
    expect((await runtime.get(run.runId)).audit).toHaveLength(1);
    expect(await redis.xlen(queue.key)).toBe(jobsBefore + 1);
  });

  it('loads first when another process wrote the run, then commits: two round trips', async () => {
    const first = setup();
    const run = await first.runtime.start(first.agent.name, { input: 'email someone' });
    const { sent, roundTrips } = setup();
    const other = createRuntime({
      agents: [first.agent],
      store: createRedisStore({ redis: watchedCommands(redis, sent), prefix }),
    });
    await other.respond(
      run.runId,
      { approvalId: run.pendingApprovals[0]!.approvalId, approved: true, approvedBy: 'alice' },
      { mode: 'record' },
    );
    expect(roundTrips()).toEqual(['countersignLoadRun', 'countersignWriteRun']);
  });

  it('finds a decision another process recorded since: the stale view is refused, the load decides (a duplicate)', async () => {
    const { agent, runtime } = setup();
    const run = await runtime.start(agent.name, { input: 'email someone' });
    const other = createRuntime({ agents: [agent], store: createRedisStore({ redis, prefix }) });
    const response = { approvalId: run.pendingApprovals[0]!.approvalId, approved: true, approvedBy: 'alice' };
    const recorded = await other.respond(run.runId, response, { mode: 'record' });
    const again = await runtime.respond(run.runId, response, { mode: 'record' });
    expect(again).toMatchObject({ duplicate: true, snapshot: recorded.snapshot });
    expect((await runtime.get(run.runId)).audit).toHaveLength(1);
  });
});
