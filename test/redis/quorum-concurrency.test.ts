// 20 voters on one quorum request, each with its own Redis connection and runtime, all at once: every vote lands
// exactly once, the quorum is reached exactly once, and the tool runs exactly once.
import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createRuntime, type RespondResult } from 'countersign';
import { createRedisStore } from 'countersign/redis';
import { countingAgent } from '../support/runtime-harness.js';
import { removePrefix, uniquePrefix } from './redis-harness.js';

const url = inject('redisUrl');
const VOTERS = 20;

describe.skipIf(!url)('quorum on Redis: concurrent voters', () => {
  const prefix = uniquePrefix();
  const connections = Array.from({ length: VOTERS }, () => new Redis(url!));
  afterAll(async () => {
    await removePrefix(connections[0]!, prefix);
    await Promise.all(connections.map((redis) => redis.quit()));
  });

  it(`${VOTERS} voters at once: each vote recorded once, the quorum reached once, the tool run once`, async () => {
    const voters = Array.from({ length: VOTERS }, (_, index) => `voter-${index}`);
    const counting = countingAgent({
      approvals: { required: VOTERS, from: voters },
      decisionSecret: 'quorum-secret-0123456789abcdef',
    });
    const runtimes = connections.map((redis) =>
      createRuntime({ agents: [counting.agent], store: createRedisStore({ redis, prefix }) }),
    );
    const run = await runtimes[0]!.start(counting.agent.name, { input: 'pay', requestedBy: 'requester' });
    const request = run.pendingApprovals[0]!;
    expect(request.quorum).toMatchObject({ required: VOTERS });

    const results: RespondResult[] = await Promise.all(
      runtimes.map((runtime, index) =>
        runtime.respond(run.runId, {
          approvalId: request.approvalId,
          approved: true,
          approvedBy: voters[index]!,
          signature: request.signature!,
        }),
      ),
    );

    expect(results.every((result) => result.vote?.recorded === true && !result.duplicate)).toBe(true);
    // Each voter saw the count its own vote made: 1 to 20, each once.
    expect(results.map((result) => result.vote!.approvals).sort((a, b) => a - b)).toEqual(
      voters.map((_, index) => index + 1),
    );
    expect(results.filter((result) => result.vote!.remaining === 0)).toHaveLength(1);
    const stored = await runtimes[0]!.get(run.runId);
    const decisions = stored.audit.filter((entry) => entry.approvalId === request.approvalId);
    expect(decisions).toHaveLength(1);
    expect(decisions[0]!.decision).toBe('approved');
    expect(new Set(decisions[0]!.votes!.map((vote) => vote.by))).toEqual(new Set(voters));
    expect(counting.executions).toHaveLength(1);
    expect(stored.status).toBe('completed');
  });
});
