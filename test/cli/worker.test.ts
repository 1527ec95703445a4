import { PassThrough, Readable } from 'node:stream';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createRuntime } from 'countersign';
import { createRedisResumeQueue, createRedisStore } from 'countersign/redis';
import { runCli } from '../../src/cli/run-cli.js';
import { removePrefix, uniquePrefix } from '../redis/redis-harness.js';
import { countingAgent } from '../support/runtime-harness.js';

const url = inject('redisUrl');

describe.skipIf(!url)('countersign worker', () => {
  const prefix = uniquePrefix();
  const redis = new Redis(url!);
  afterAll(async () => {
    await removePrefix(redis, prefix);
    await redis.quit();
  });

  it('resumes runs queued by respond(..., { mode: "enqueue" }), sweeps expired approvals, and stops on its signal', async () => {
    const counting = countingAgent({ approvalTtlMs: 60_000 });
    const later = () => Date.now() + 3_600_000;
    const store = createRedisStore({ redis, prefix });
    const http = createRuntime({ agents: [counting.agent], store, queue: createRedisResumeQueue({ redis, prefix }) });
    // The worker's clock runs an hour ahead, so the second run's approval has expired for it.
    const workerRuntime = createRuntime({ agents: [counting.agent], store, clock: later });
    const queued = await http.start(counting.agent.name, { input: 'pay' });
    const forgotten = await http.start(counting.agent.name, { input: 'pay' });
    const recorded = await http.respond(
      queued.runId,
      { approvalId: queued.pendingApprovals[0]!.approvalId, approved: true, approvedBy: 'ops' },
      { mode: 'enqueue' },
    );
    expect(recorded.status).toBe('running');

    const stop = new AbortController();
    const stdout = new PassThrough();
    let out = '';
    stdout.on('data', (chunk) => (out += chunk));
    const exit = runCli(['worker', '--prefix', prefix, '--every', '50', '--concurrency', '2'], {
      stdout,
      stderr: new PassThrough(),
      stdin: Readable.from([]),
      env: { REDIS_URL: url!, COUNTERSIGN_RUNTIME: './runtime.js' },
      loadRuntime: async () => workerRuntime,
      signal: stop.signal,
    });
    for (let attempt = 0; attempt < 400; attempt++) {
      const [one, two] = await Promise.all([http.get(queued.runId), http.get(forgotten.runId)]);
      if (one.status === 'completed' && two.status === 'completed') break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    stop.abort();
    expect(await exit).toBe(0);
    expect((await http.get(queued.runId)).status).toBe('completed');
    expect(counting.executions).toEqual([`${queued.runId}:${queued.pendingApprovals[0]!.toolCallId}`]);
    expect((await http.get(forgotten.runId)).audit).toMatchObject([{ source: 'expiry', decision: 'denied' }]);
    expect(out).toMatch(/^worker .+ resuming queued runs \(concurrency 2\)\n/);
    expect(out).toContain('expired 1 approvals');
    expect(out.endsWith('worker stopped\n')).toBe(true);
  });

  it('says what to set when REDIS_URL is missing', async () => {
    const stderr = new PassThrough();
    let err = '';
    stderr.on('data', (chunk) => (err += chunk));
    const code = await runCli(['worker'], {
      stdout: new PassThrough(),
      stderr,
      stdin: Readable.from([]),
      env: { COUNTERSIGN_RUNTIME: 'x' },
      loadRuntime: async () => createRuntime({ agents: [countingAgent().agent] }),
    });
    expect(code).toBe(2);
    expect(err).toContain('set REDIS_URL');
  });
});
