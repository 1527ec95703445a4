import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, inject, it } from 'vitest';
import {
  createMemoryStore,
  createRuntime,
  StoreUnavailableError,
  type AgentSnapshot,
  type RunEvent,
  type Runtime,
} from 'countersign';
import {
  createRedisResumeQueue,
  createRedisStore,
  createStreamNotifier,
  createWorker,
  type Worker,
  type WorkerErrorInfo,
  type WorkerOptions,
} from 'countersign/redis';
import { WORKER_GROUP } from '../../src/stores/redis/worker.js';
import { countingAgent } from '../support/runtime-harness.js';
import { builtScript } from '../support/built.js';
import { deferred, observed, removePrefix, until } from './redis-harness.js';

const url = inject('redisUrl');

/** A runtime whose resume only counts: calls, calls in flight (overall and per run). */
function fakeRuntime(behavior: (runId: string, call: number) => Promise<void> | void = () => undefined) {
  const calls: string[] = [];
  const running = new Map<string, number>();
  let inFlight = 0;
  const stats = { maxInFlight: 0, maxPerRun: 0 };
  const runtime: Pick<Runtime, 'resume'> = {
    async resume(runId) {
      calls.push(runId);
      inFlight++;
      running.set(runId, (running.get(runId) ?? 0) + 1);
      stats.maxInFlight = Math.max(stats.maxInFlight, inFlight);
      stats.maxPerRun = Math.max(stats.maxPerRun, running.get(runId)!);
      try {
        await behavior(runId, calls.length);
      } finally {
        inFlight--;
        running.set(runId, running.get(runId)! - 1);
      }
      return { runId } as unknown as AgentSnapshot;
    },
  };
  return { runtime, calls, stats };
}

describe.skipIf(!url)('createRedisResumeQueue and createWorker on real Redis', () => {
  const connections: Redis[] = [];
  const workers: Worker[] = [];
  const prefixes: string[] = [];

  function setup() {
    const prefix = `cs-test:${randomUUID()}:`;
    prefixes.push(prefix);
    const connect = () => {
      const redis = new Redis(url!);
      connections.push(redis);
      return redis;
    };
    const redis = connect();
    const queue = createRedisResumeQueue({ redis, prefix });
    const errors: WorkerErrorInfo[] = [];
    const worker = (options: {
      runtime: WorkerOptions['runtime'];
      redis?: Redis;
      concurrency?: number;
      consumer?: string;
      claimIdleMs?: number;
      recoverEveryMs?: number;
    }) => {
      // claimIdleMs far above any resume here, however busy the machine: no job is claimed from a live worker that is
      // merely slow. The tests of claiming set their own.
      const created = createWorker({
        redis: connect(),
        prefix,
        blockMs: 50,
        claimIdleMs: 60_000,
        onError: (info) => errors.push(info),
        ...options,
      });
      workers.push(created);
      return created;
    };
    const key = `${prefix}jobs`;
    const pending = async () => ((await redis.xpending(key, WORKER_GROUP)) as [number, ...unknown[]])[0];
    return { prefix, key, redis, connect, queue, worker, errors, pending };
  }

  afterEach(async () => {
    await Promise.allSettled(workers.splice(0).map((worker) => worker.stop()));
    for (const prefix of prefixes.splice(0)) await removePrefix(connections[0]!, prefix);
    for (const redis of connections.splice(0)) redis.disconnect();
  });

  it('queues a job as an entry { runId } on <prefix>jobs', async () => {
    const { key, redis, queue } = setup();
    expect(queue.key).toBe(key);
    await queue.enqueue('run_1');
    const entries = await redis.xrange(key, '-', '+');
    expect(entries.map(([, fields]) => fields)).toEqual([['runId', 'run_1']]);
    await expect(queue.enqueue('')).rejects.toThrow(/non-empty/);
  });

  it('fails enqueue with a retryable StoreUnavailableError when Redis cannot be reached', async () => {
    const down = new Redis({
      host: '127.0.0.1',
      port: 1,
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
      enableOfflineQueue: false,
    });
    down.on('error', () => {});
    const queue = createRedisResumeQueue({ redis: down, prefix: `cs-test:${randomUUID()}:` });
    const attempt = queue.enqueue('run_1');
    await expect(attempt).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(attempt).rejects.toMatchObject({ retryable: true, message: expect.stringMatching(/run_1/) });
    down.disconnect();
  });

  it('spreads jobs over several workers on separate connections and resumes each run once', async () => {
    const { queue, worker, errors, key, redis, pending } = setup();
    const fake = fakeRuntime(() => new Promise((resolve) => setTimeout(resolve, Math.random() * 5)));
    const pool = [
      worker({ runtime: fake.runtime, consumer: 'w1' }),
      worker({ runtime: fake.runtime, consumer: 'w2' }),
      worker({ runtime: fake.runtime, consumer: 'w3' }),
    ];
    const runIds = Array.from({ length: 90 }, (_, index) => `run_${index}`);
    await Promise.all(runIds.map((runId) => queue.enqueue(runId)));
    await until(() => fake.calls.length >= runIds.length, 'every job ran');
    await until(async () => (await pending()) === 0, 'every job is acked');
    await Promise.all(pool.map((w) => w.stop()));
    expect([...fake.calls].sort()).toEqual([...runIds].sort());
    expect(await redis.xlen(key)).toBe(0);
    expect(errors).toEqual([]);
  });

  it('runs jobs queued before any worker started', async () => {
    const { queue, worker, errors } = setup();
    await queue.enqueue('run_early');
    const fake = fakeRuntime();
    worker({ runtime: fake.runtime });
    await until(() => fake.calls.length >= 1, 'the early job ran');
    expect(fake.calls).toEqual(['run_early']);
    expect(errors).toEqual([]);
  });

  it('takes over the jobs of a worker that died before acking them, and runs each once', async () => {
    const { key, redis, queue, worker, errors, pending } = setup();
    await redis.xgroup('CREATE', key, WORKER_GROUP, '0', 'MKSTREAM');
    await queue.enqueue('run_1');
    await queue.enqueue('run_2');
    // A worker reads both jobs and dies mid-job: never acks.
    await redis.xreadgroup('GROUP', WORKER_GROUP, 'dead-worker', 'COUNT', 10, 'STREAMS', key, '>');
    expect(await pending()).toBe(2);
    const fake = fakeRuntime();
    const survivor = worker({ runtime: fake.runtime, consumer: 'survivor', claimIdleMs: 100 });
    await until(() => fake.calls.length >= 2, 'the survivor ran both jobs');
    await until(async () => (await pending()) === 0, 'both jobs are acked');
    await survivor.stop();
    expect([...fake.calls].sort()).toEqual(['run_1', 'run_2']);
    expect(await redis.xlen(key)).toBe(0);
    expect(errors).toEqual([]);
  });

  it('takes over the job of a worker process killed with SIGKILL mid-resume, but not while that worker lives', async () => {
    const { prefix, queue, worker, errors, pending, connect } = setup();
    await queue.enqueue('run_1');
    const workerModule = await builtScript('src/stores/redis/worker.ts');
    const script = `
      import { Redis } from 'ioredis';
      import { createWorker } from ${JSON.stringify(workerModule)};
      const redis = new Redis(${JSON.stringify(url)});
      createWorker({
        redis, prefix: ${JSON.stringify(prefix)}, consumer: 'doomed', blockMs: 50, claimIdleMs: 1000, onError: () => {},
        runtime: { resume: async (runId) => { process.stdout.write('started ' + runId + '\\n'); await new Promise(() => {}); } },
      });
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      await until(() => output.includes('started run_1'), `the child worker started run_1 (output: ${output})`, 20_000);
      const fake = fakeRuntime();
      const watched = observed(connect());
      worker({ runtime: fake.runtime, consumer: 'survivor', claimIdleMs: 1000, redis: watched.redis });
      // Longer than claimIdleMs: the survivor tries to claim (every claimIdleMs / 2) five times, the last ones well
      // after the job would have been idle for claimIdleMs; the live child keeps its job fresh, so it is not taken.
      const claims = () => watched.commands.filter((command) => command === 'XAUTOCLAIM').length;
      await until(() => claims() >= 5, 'the survivor tried to claim five times', 30_000);
      expect(fake.calls).toEqual([]);
      child.kill('SIGKILL');
      await exited;
      await until(() => fake.calls.length >= 1, 'the survivor took over run_1');
      await until(async () => (await pending()) === 0, 'the job is acked');
      expect(fake.calls).toEqual(['run_1']);
      expect(errors).toEqual([]);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('keeps taking jobs after the server drops its connections, reporting the failed reads', async () => {
    const { prefix, redis, queue, errors, pending } = setup();
    const name = `cs-test-${randomUUID().slice(0, 8)}`;
    const own = new Redis(url!, { connectionName: name });
    // The kill below may surface as ECONNRESET; without a listener ioredis prints it to the console.
    own.on('error', () => {});
    connections.push(own);
    const fake = fakeRuntime();
    const w = createWorker({
      runtime: fake.runtime,
      redis: own,
      prefix,
      blockMs: 50,
      claimIdleMs: 150,
      onError: (info) => errors.push(info),
    });
    workers.push(w);
    await queue.enqueue('run_before');
    await until(() => fake.calls.length >= 1, 'the first job ran');
    // Kill both of the worker's connections (its own and the blocking duplicate), only those.
    const list = String(await redis.call('CLIENT', 'LIST'));
    const ids = list
      .split('\n')
      .filter((line) => line.includes(` name=${name} `))
      .map((line) => /^id=(\d+)/.exec(line)![1]!);
    expect(ids.length).toBeGreaterThanOrEqual(2);
    for (const id of ids) await redis.call('CLIENT', 'KILL', 'ID', id);
    await queue.enqueue('run_after');
    await until(() => fake.calls.length >= 2, 'the job queued after the drop ran');
    await until(async () => (await pending()) === 0, 'both jobs are acked');
    expect(fake.calls).toEqual(['run_before', 'run_after']);
    expect(errors.every((e) => ['read', 'claim', 'heartbeat'].includes(e.phase))).toBe(true);
  });

  it('never runs more than `concurrency` resumes at once', async () => {
    const { queue, worker, errors } = setup();
    const runIds = Array.from({ length: 20 }, (_, index) => `run_${index}`);
    for (const runId of runIds) await queue.enqueue(runId);
    let observedInFlight = 0;
    let w: Worker | undefined;
    const fake = fakeRuntime(async () => {
      observedInFlight = Math.max(observedInFlight, w?.inFlight ?? 0);
      await new Promise((resolve) => setTimeout(resolve, 20));
    });
    w = worker({ runtime: fake.runtime, concurrency: 3 });
    await until(() => fake.calls.length >= runIds.length, 'every job ran');
    await w.stop();
    expect(fake.stats.maxInFlight).toBeLessThanOrEqual(3);
    // Jobs were waiting, so the worker did use its three slots.
    expect(fake.stats.maxInFlight).toBe(3);
    expect(observedInFlight).toBeLessThanOrEqual(3);
    expect(w.inFlight).toBe(0);
    expect(errors).toEqual([]);
  });

  it('resumes one run at a time inside a worker, folding jobs that arrive meanwhile into one more resume', async () => {
    const { queue, worker, errors, pending, key, redis } = setup();
    const release = deferred();
    const fake = fakeRuntime(async (_runId, call) => {
      if (call === 1) await release.promise;
    });
    for (let i = 0; i < 3; i++) await queue.enqueue('run_same');
    worker({ runtime: fake.runtime, concurrency: 4 });
    await until(
      async () => fake.calls.length === 1 && ((await redis.xpending(key, WORKER_GROUP)) as [number])[0] === 3,
      'all three jobs are held while the first resume runs',
    );
    release.resolve();
    await until(async () => (await pending()) === 0, 'all three jobs are acked');
    expect(fake.calls).toEqual(['run_same', 'run_same']);
    expect(fake.stats.maxPerRun).toBe(1);
    expect(errors).toEqual([]);
  });

  it('leaves a job that failed with a retryable error pending, and runs it again', async () => {
    const { queue, worker, errors, pending } = setup();
    const fake = fakeRuntime((_runId, call) => {
      if (call === 1) throw new StoreUnavailableError('Redis went away.');
    });
    worker({ runtime: fake.runtime, claimIdleMs: 100 });
    await queue.enqueue('run_retry');
    await until(() => fake.calls.length >= 2, 'the job ran again');
    await until(async () => (await pending()) === 0, 'the job is acked');
    expect(fake.calls).toEqual(['run_retry', 'run_retry']);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ phase: 'resume', runId: 'run_retry', retrying: true, deliveries: 1 });
    expect(errors[0]!.error).toBeInstanceOf(StoreUnavailableError);
  });

  it('acknowledges and reports a job whose resume fails for good, and a job without a runId', async () => {
    const { key, redis, queue, worker, errors, pending } = setup();
    const fake = fakeRuntime(() => {
      throw new Error('model refused');
    });
    worker({ runtime: fake.runtime });
    await queue.enqueue('run_broken');
    await redis.xadd(key, '*', 'something', 'else');
    await until(() => errors.length >= 2, 'both problems are reported');
    await until(async () => (await pending()) === 0, 'both jobs are acked');
    expect(fake.calls).toEqual(['run_broken']);
    expect(errors.map((e) => e.phase).sort()).toEqual(['malformed', 'resume']);
    expect(errors.find((e) => e.phase === 'resume')).toMatchObject({ runId: 'run_broken', retrying: false });
    expect(await redis.xlen(key)).toBe(0);
  });

  it('stop() stops taking jobs and waits for the resumes in flight, acking them', async () => {
    const { queue, worker, errors, pending, key, redis, connect } = setup();
    const release = deferred();
    const started = deferred();
    const fake = fakeRuntime(async () => {
      started.resolve();
      await release.promise;
    });
    const watched = observed(connect());
    const w = worker({ runtime: fake.runtime, concurrency: 1, redis: watched.redis });
    await queue.enqueue('run_1');
    await started.promise;
    let stopped = false;
    const stopping = w.stop().then(() => (stopped = true));
    await queue.enqueue('run_2');
    // The worker has seen stop() once it closed its blocking connection.
    await until(
      () => watched.duplicates.length > 0 && watched.duplicates.every((connection) => connection.status === 'end'),
      'the worker stopped reading',
    );
    expect(stopped).toBe(false);
    release.resolve();
    await stopping;
    expect(fake.calls).toEqual(['run_1']);
    expect(await pending()).toBe(0);
    // run_2 stays queued for the next worker.
    expect((await redis.xrange(key, '-', '+')).map(([, fields]) => fields)).toEqual([['runId', 'run_2']]);
    await w.stop();
    expect(errors).toEqual([]);
  });

  it('rejects done and stop() when the jobs key is not a stream', async () => {
    const { key, redis, worker, errors } = setup();
    await redis.set(key, 'not a stream');
    const w = worker({ runtime: fakeRuntime().runtime });
    await expect(w.done).rejects.toMatchObject({
      name: 'ConfigError',
      message: expect.stringMatching(/must be a Redis Stream/),
    });
    await expect(w.stop()).rejects.toMatchObject({ name: 'ConfigError' });
    expect(errors.map((e) => e.phase)).toEqual(['group']);
  });

  it('refuses options it cannot run with', () => {
    const { redis } = setup();
    const fake = fakeRuntime();
    expect(() => createWorker({ runtime: {} as never, redis })).toThrow(/resume/);
    expect(() => createWorker({ runtime: fake.runtime, redis, concurrency: 0 })).toThrow(/concurrency/);
    expect(() => createWorker({ runtime: fake.runtime, redis, concurrency: 1.5 })).toThrow(/whole number/);
  });

  it('resumes runs end to end: respond in enqueue mode, workers on other connections finish them, each tool runs once', async () => {
    const { queue, worker, errors } = setup();
    const counting = countingAgent();
    const runtime = createRuntime({ agents: [counting.agent], store: createMemoryStore(), queue });
    const paused = await Promise.all(
      Array.from({ length: 12 }, (_, index) => runtime.start(counting.agent.name, { input: `pay ${index}` })),
    );
    worker({ runtime, consumer: 'w1', concurrency: 2 });
    worker({ runtime, consumer: 'w2', concurrency: 2 });
    for (const run of paused) {
      const result = await runtime.respond(
        run.runId,
        { approvalId: run.pendingApprovals[0]!.approvalId, approved: true, approvedBy: 'alice' },
        { mode: 'enqueue' },
      );
      expect(result.status).toBe('running');
    }
    await until(
      async () =>
        (await Promise.all(paused.map((run) => runtime.get(run.runId)))).every((run) => run.status === 'completed'),
      'every run completed',
    );
    expect([...counting.executions].sort()).toEqual(
      paused.map((run) => `${run.runId}:${run.pendingApprovals[0]!.toolCallId}`).sort(),
    );
    expect(errors).toEqual([]);
  });

  it('carries on a decision recorded whose job never reached the queue: a worker recovers the run once it is stale', async () => {
    const { prefix, connect, worker, errors } = setup();
    const counting = countingAgent();
    const store = createRedisStore({ redis: connect(), prefix });
    const unreachableQueue = {
      enqueue: async () => {
        throw new StoreUnavailableError('Redis could not queue the resume.');
      },
    };
    const front = createRuntime({ agents: [counting.agent], store, queue: unreachableQueue });
    const run = await front.start(counting.agent.name, { input: 'pay' });
    const decision = { approvalId: run.pendingApprovals[0]!.approvalId, approved: true, approvedBy: 'alice' };
    await expect(front.respond(run.runId, decision, { mode: 'enqueue' })).rejects.toBeInstanceOf(StoreUnavailableError);
    expect((await front.get(run.runId)).status).toBe('running');
    worker({
      runtime: createRuntime({
        agents: [counting.agent],
        store: createRedisStore({ redis: connect(), prefix }),
        staleAfterMs: 100,
      }),
      recoverEveryMs: 200,
    });
    await until(async () => (await front.get(run.runId)).status === 'completed', 'the run completed');
    expect(counting.executions).toEqual([`${run.runId}:${run.pendingApprovals[0]!.toolCallId}`]);
    expect(errors).toEqual([]);
  });

  it("carries runs on the Redis store: a thin tier enqueues, workers with their own runtimes finish them, a notifier sees the store's events", async () => {
    const { prefix, connect, worker, errors } = setup();
    const counting = countingAgent();
    const tierRedis = connect();
    const tier = createRuntime({
      agents: [counting.agent],
      store: createRedisStore({ redis: tierRedis, prefix }),
      queue: createRedisResumeQueue({ redis: tierRedis, prefix }),
    });
    const notifier = createStreamNotifier({
      redis: connect(),
      prefix,
      group: 'audit',
      from: 'earliest',
      blockMs: 50,
      claimIdleMs: 150,
      onError: (info) => errors.push(info),
    });
    const events: RunEvent[] = [];
    const reading = new AbortController();
    const consuming = notifier.consume((event) => void events.push(event), { signal: reading.signal });
    for (const name of ['w1', 'w2']) {
      const redis = connect();
      worker({
        runtime: createRuntime({ agents: [counting.agent], store: createRedisStore({ redis, prefix }) }),
        redis,
        consumer: name,
        concurrency: 3,
      });
    }
    const paused = await Promise.all(
      Array.from({ length: 10 }, (_, index) => tier.start(counting.agent.name, { input: `pay ${index}` })),
    );
    for (const run of paused) {
      const result = await tier.respond(
        run.runId,
        { approvalId: run.pendingApprovals[0]!.approvalId, approved: true, approvedBy: 'alice' },
        { mode: 'enqueue' },
      );
      expect(result.status).toBe('running');
    }
    await until(
      async () =>
        (await Promise.all(paused.map((run) => tier.get(run.runId)))).every((run) => run.status === 'completed'),
      'every run completed',
    );
    await until(
      () => events.filter((event) => event.type === 'run-completed').length >= paused.length,
      'the notifier saw every completion',
    );
    reading.abort();
    await consuming;
    await notifier.close();
    expect([...counting.executions].sort()).toEqual(
      paused.map((run) => `${run.runId}:${run.pendingApprovals[0]!.toolCallId}`).sort(),
    );
    for (const run of paused) {
      expect(events.filter((event) => event.runId === run.runId).map((event) => event.type)).toEqual([
        'approval-requested',
        'approval-resolved',
        'tool-finished',
        'run-completed',
      ]);
    }
    expect(errors).toEqual([]);
  });
});
