// 200 runs on a real Redis, each hit by 20 concurrent decisions from 20
// separate connections, identical and conflicting mixed: every approval is
// decided once and every approved tool runs exactly once.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createRuntime, DecisionConflictError, type AgentSnapshot, type RespondResult } from 'countersign';
import { createRedisStore } from 'countersign/redis';
import { countingAgent } from '../support/runtime-harness.js';
import { removePrefix } from './redis-harness.js';

const url = inject('redisUrl');
const RUNS = 200;
const CALLERS = 20;

describe.skipIf(!url)('runtime on Redis: concurrent decisions', () => {
  const prefix = `cs-test:${randomUUID()}:`;
  const connections = Array.from({ length: CALLERS }, () => new Redis(url!));
  afterAll(async () => {
    await removePrefix(connections[0]!, prefix);
    await Promise.all(connections.map((redis) => redis.quit()));
  });

  it(`decides each of ${RUNS} approvals once and runs each approved tool exactly once`, async () => {
    const counting = countingAgent();
    const runtimes = connections.map((redis) =>
      createRuntime({ agents: [counting.agent], store: createRedisStore({ redis, prefix }) }),
    );
    const runs: AgentSnapshot[] = [];
    for (let index = 0; index < RUNS; index += 20) {
      runs.push(
        ...(await Promise.all(
          Array.from({ length: 20 }, () => runtimes[index % CALLERS]!.start(counting.agent.name, { input: 'pay' })),
        )),
      );
    }

    const outcomes = new Map<string, PromiseSettledResult<RespondResult>[]>();
    for (let index = 0; index < RUNS; index += 10) {
      await Promise.all(
        runs.slice(index, index + 10).map(async (run, offset) => {
          const approvalId = run.pendingApprovals[0]!.approvalId;
          // Runs alternate between mostly-approve and mostly-deny crowds, so both verdicts win somewhere.
          const approveMost = (index + offset) % 2 === 0;
          const results = await Promise.allSettled(
            runtimes.map((runtime, caller) => {
              const approved = caller % 5 === 4 ? !approveMost : approveMost;
              return runtime.respond(run.runId, {
                approvalId,
                approved,
                approvedBy: `caller-${caller}`,
                ...(approved ? {} : { reason: 'no' }),
              });
            }),
          );
          outcomes.set(run.runId, results);
        }),
      );
    }

    const executed = new Map<string, number>();
    for (const key of counting.executions)
      executed.set(key.split(':call_')[0]!, (executed.get(key.split(':call_')[0]!) ?? 0) + 1);
    const verdicts = new Set<string>();
    for (const run of runs) {
      const stored = await runtimes[0]!.get(run.runId);
      const decisions = stored.audit.filter((entry) => entry.approvalId === run.pendingApprovals[0]!.approvalId);
      expect(decisions).toHaveLength(1);
      const winner = decisions[0]!;
      verdicts.add(winner.decision);
      const results = outcomes.get(run.runId)!;
      expect(results.filter((result) => result.status === 'fulfilled' && !result.value.duplicate)).toHaveLength(1);
      for (const result of results) {
        if (result.status === 'rejected') {
          expect(result.reason).toBeInstanceOf(DecisionConflictError);
          expect(result.reason).toMatchObject({ winner: { decision: winner.decision, by: winner.by } });
        }
      }
      expect(executed.get(run.runId) ?? 0).toBe(winner.decision === 'approved' ? 1 : 0);
      expect(stored).toMatchObject({ status: 'completed', pendingApprovals: [], toolCalls: [] });
      expect(stored.messages.filter((message) => message.role === 'tool')).toHaveLength(1);
    }
    expect(verdicts).toEqual(new Set(['approved', 'denied']));
    expect(counting.executions).toHaveLength([...executed.values()].reduce((sum, count) => sum + count, 0));
  });
});
