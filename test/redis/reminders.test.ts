// Reminders and escalations on a real Redis: three sweepers on separate connections make each nudge exactly once,
// and the stream carries one event per nudge.
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { z } from 'zod';
import { createRuntime, defineTool } from 'countersign';
import { createRedisStore } from 'countersign/redis';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';
import { testAgent, testClock } from '../support/test-kit.js';
import { connect, removePrefix, streamEvents } from './redis-harness.js';

const url = inject('redisUrl');
const MINUTE = 60_000;

describe.skipIf(!url)('reminders and escalations on Redis', () => {
  const prefix = `cs-test:${randomUUID()}:`;
  const connections = [0, 1, 2].map(() => connect(url!));
  afterAll(async () => {
    await removePrefix(connections[0]!, prefix);
    await Promise.all(connections.map((redis) => redis.quit()));
  });

  it('three sweepers on separate connections send each reminder and escalation exactly once', async () => {
    const clock = testClock();
    const tool = defineTool({
      name: 'refund',
      description: 'Refund',
      input: z.object({}),
      approvers: ['alice'],
      remindAfterMs: MINUTE,
      escalate: [{ afterMs: MINUTE, to: ['carol'] }],
      execute: async () => 'ok',
    });
    const model = createScriptedModel(({ messages }) =>
      messages.at(-1)?.role === 'tool' ? textTurn('done') : toolCallTurn([{ name: 'refund', args: {} }]),
    );
    const agent = testAgent({ model, tools: [tool], clock });
    const sweepers = connections.map((redis) =>
      createRuntime({ agents: [agent], store: createRedisStore({ redis, prefix }), clock }),
    );
    const runs = await Promise.all(Array.from({ length: 6 }, () => sweepers[0]!.start(agent.name, { input: 'go' })));
    expect((await sweepers[1]!.sweepExpired()).reminded).toBe(0);

    clock.advance(MINUTE);
    const results = await Promise.all(sweepers.map((sweeper) => sweeper.sweepExpired()));
    expect(results.reduce((sum, result) => sum + result.reminded, 0)).toBe(6);
    expect(results.reduce((sum, result) => sum + result.escalated, 0)).toBe(6);
    const events = (await streamEvents(connections[0]!, prefix)).filter(
      (event) => event.type === 'approval-reminder' || event.type === 'approval-escalated',
    );
    for (const run of runs)
      expect(events.filter((event) => event.runId === run.runId).map((event) => event.type)).toEqual([
        'approval-reminder',
        'approval-escalated',
      ]);

    // Carol, brought in by the escalation, decides; the run leaves the nudge index.
    const decided = await sweepers[2]!.respond(runs[0]!.runId, {
      approvalId: runs[0]!.pendingApprovals[0]!.approvalId,
      approved: true,
      approvedBy: 'carol',
    });
    expect(decided.status).toBe('completed');
    clock.advance(MINUTE);
    const store = createRedisStore({ redis: connections[1]!, prefix });
    expect([...(await store.nudgeDueRuns(clock(), 100))].sort()).toEqual(
      runs
        .slice(1)
        .map((run) => run.runId)
        .sort(),
    );
  });
});
