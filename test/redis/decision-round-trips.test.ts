// Round trips of a decision through the runtime on one Redis server: one
// script when this process wrote the run last, a load first when it did not,
// and a stale view is refused by the compare-and-set, never written.
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createRuntime } from 'countersign';
import { createRedisStore } from 'countersign/redis';
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
    const runtime = createRuntime({ agents: [agent], store: createRedisStore({ redis: watchedCommands(redis, sent), prefix }) });
    const roundTrips = () => sent.filter((name) => name !== 'defineCommand');
    return { agent, sent, runtime, roundTrips };
  };

  it('records a decision on a run this process wrote in one round trip: the commit script, with its event and index update', async () => {
    const { agent, sent, runtime, roundTrips } = setup();
    const run = await runtime.start(agent.name, { input: 'email someone' });
    sent.length = 0;
    const result = await runtime.respond(run.runId, { approvalId: run.pendingApprovals[0]!.approvalId, approved: true, approvedBy: 'alice' }, { mode: 'record' });
    expect(result).toMatchObject({ status: 'running', duplicate: false });
    expect(roundTrips()).toEqual(['countersignWriteRun']);
    expect(await runtime.get(run.runId)).toEqual(result.snapshot);
  });

  it('loads first when another process wrote the run, then commits: two round trips', async () => {
    const first = setup();
    const run = await first.runtime.start(first.agent.name, { input: 'email someone' });
    const { sent, roundTrips } = setup();
    const other = createRuntime({ agents: [first.agent], store: createRedisStore({ redis: watchedCommands(redis, sent), prefix }) });
    await other.respond(run.runId, { approvalId: run.pendingApprovals[0]!.approvalId, approved: true, approvedBy: 'alice' }, { mode: 'record' });
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
