// A child process decides an approval and is killed with SIGKILL at each step
// boundary; recover() in another process must leave every run finished or
// waiting for a person, never run a non-idempotent tool twice, and lose no
// decision.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createRuntime } from 'countersign';
import { createRedisStore } from 'countersign/redis';
import { crashAgent, executionsKey, type Boundary } from '../support/crash-agent.js';
import { removePrefix, uniquePrefix } from './redis-harness.js';

const url = inject('redisUrl');
const REPEATS = 3;

/** Runs the child until it reports the boundary, then kills it. */
function killAt(env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/crash-child.ts'], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (line.startsWith('BOUNDARY') || line === 'FINISHED') {
        child.kill('SIGKILL');
        resolve(line);
      }
    });
    child.on('exit', () => {
      clearTimeout(timer);
      reject(new Error(`the child exited before reaching its boundary: ${stderr}`));
    });
  });
}

describe.skipIf(!url)('runtime on Redis: a process killed at every step boundary', () => {
  const prefix = uniquePrefix();
  const redis = new Redis(url!);
  afterAll(async () => {
    await removePrefix(redis, prefix);
    await redis.quit();
  });

  const cases = (['decided', 'tool', 'after-tool', 'model'] as const).flatMap((boundary) =>
    [false, true].map((idempotent) => ({ boundary, idempotent })),
  );

  it.each(cases)(
    'killed at $boundary (idempotent tool: $idempotent): recover finishes or asks again, no silent rerun, no lost decision',
    async ({ boundary, idempotent }) => {
      const agent = crashAgent({ redis, prefix, idempotent, leaseMs: 60_000 });
      // The recovering process's clock is an hour ahead: the dead process's leases have run out and its runs are stale.
      const later = () => Date.now() + 3_600_000;
      const runtime = createRuntime({ agents: [agent], store: createRedisStore({ redis, prefix }), clock: later });
      const paused = await Promise.all(
        Array.from({ length: REPEATS }, () => runtime.start(agent.name, { input: 'pay acct-1' })),
      );

      const reached = await Promise.all(
        paused.map((run) =>
          killAt({
            REDIS_URL: url!,
            PREFIX: prefix,
            RUN_ID: run.runId,
            APPROVAL_ID: run.pendingApprovals[0]!.approvalId,
            BOUNDARY: boundary,
            IDEMPOTENT: idempotent ? '1' : '0',
          }),
        ),
      );
      expect(reached).toEqual(paused.map(() => `BOUNDARY ${boundary}`));

      const recovered = await runtime.recover();
      expect(recovered.resumed + recovered.askedAgain).toBeGreaterThanOrEqual(REPEATS);
      for (const run of paused) {
        const after = await runtime.get(run.runId);
        const executions = await redis.lrange(executionsKey(prefix, run.runId), 0, -1);
        const key = `${run.runId}:${run.pendingApprovals[0]!.toolCallId}`;
        // No decision is lost: alice's approval is on record whatever happened after it.
        expect(after.audit.filter((entry) => entry.source === 'human')).toMatchObject([
          { decision: 'approved', by: 'alice' },
        ]);
        expect(['completed', 'awaitingApproval']).toContain(after.status);
        expect(executions.every((item) => item === key)).toBe(true);
        if (after.status === 'awaitingApproval') {
          // Asked again only where the tool may have run and may not run again on its own.
          expect(idempotent).toBe(false);
          expect(['tool', 'after-tool']).toContain(boundary);
          expect(after.pendingApprovals).toMatchObject([
            { outcomeUnknown: true, toolCallId: run.pendingApprovals[0]!.toolCallId },
          ]);
          expect(executions.length).toBe(boundary === 'after-tool' ? 1 : 0);
        } else {
          expect(executions.length).toBeGreaterThanOrEqual(1);
          if (!idempotent) expect(executions).toHaveLength(1);
        }
      }
      const expected: Record<Boundary, 'completed' | 'awaitingApproval'> = {
        decided: 'completed',
        tool: idempotent ? 'completed' : 'awaitingApproval',
        'after-tool': idempotent ? 'completed' : 'awaitingApproval',
        model: 'completed',
      };
      for (const run of paused) expect((await runtime.get(run.runId)).status).toBe(expected[boundary]);
    },
  );
});
