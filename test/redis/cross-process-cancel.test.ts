// runtime.cancel in one process reaches a tool running in another: two runtimes, each with its own agent object and
// its own Redis connection (nothing shared in memory), the tool waits on its signal, the other runtime cancels.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import {
  createAgent,
  createMemoryStore,
  createRuntime,
  type SnapshotStore,
  type ToolExecuteContext,
} from 'countersign';
import { createRedisStore } from 'countersign/redis';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';
import { newLedger, pathTool } from '../support/core-harness.js';
import { testAgent } from '../support/test-kit.js';
import { connect, removePrefix, streamEvents, uniquePrefix, until } from './redis-harness.js';
import { tcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

const url = inject('redisUrl');

/** One "process": its own agent object named `name`, whose long_job tool waits for its signal and then returns normally. */
function processWith(name: string, store: SnapshotStore) {
  const seen: { reason?: unknown }[] = [];
  let started!: (runId: string) => void;
  let finish = () => {};
  /** The run's id, once its tool is running. */
  const running = new Promise<string>((resolve) => (started = resolve));
  const tool = pathTool('long_job', newLedger(), {
    needsApproval: false,
    execute: (_input, ctx: ToolExecuteContext) =>
      new Promise((resolve) => {
        finish = () => resolve('finished on its own');
        ctx.signal.addEventListener('abort', () => {
          seen.push({ reason: ctx.signal.reason });
          resolve('finished anyway');
        });
        started(ctx.runId);
      }),
  });
  const agent = testAgent({
    name,
    model: createScriptedModel([toolCallTurn('long_job', { path: '/a' }), textTurn('never reached')]),
    tools: [tool],
  });
  /** Ends the running tool normally, as one that never heard of the cancel would. */
  const finishTool = () => finish();
  return { runtime: createRuntime({ agents: [agent], store }), seen, running, finish: finishTool };
}

describe.skipIf(!url)('cross-process cancel on Redis', () => {
  const prefix = uniquePrefix();
  const connections = [connect(url!), connect(url!), connect(url!)];
  afterAll(async () => {
    await removePrefix(connections[2]!, prefix);
    await Promise.all(connections.map((redis) => redis.quit()));
  });

  it('fires the signal of a tool running in the other runtime; the run is cancelled once, naming the call, and its result is not recorded', async () => {
    const name = `cancel-${Math.random().toString(36).slice(2, 8)}`;
    const worker = processWith(name, createRedisStore({ redis: connections[0]!, prefix }));
    const other = processWith(name, createRedisStore({ redis: connections[1]!, prefix }));
    const execution = worker.runtime.start(name, { input: 'go' });
    const runId = await worker.running;
    // Only the runtime executing a run listens, on a connection of its own.
    expect(await connections[2]!.pubsub('NUMSUB', `${prefix}cancels`)).toEqual([`${prefix}cancels`, 1]);

    const cancelled = await other.runtime.cancel(runId, 'operator pressed stop');
    const finished = await execution;

    expect(worker.seen).toEqual([{ reason: 'operator pressed stop' }]);
    expect(other.seen).toEqual([]);
    const toolCallId = cancelled.toolCalls[0]!.toolCallId;
    expect(cancelled.error).toEqual({
      code: 'cancelled',
      message: 'operator pressed stop',
      interrupted: [{ toolCallId, toolName: 'long_job' }],
    });
    expect(finished).toMatchObject({ status: 'cancelled', version: cancelled.version });
    const stored = await other.runtime.get(runId);
    expect(stored.version).toBe(cancelled.version);
    expect(stored.messages.filter((message) => message.role === 'tool')).toEqual([]);
    expect(stored.toolCalls.map((record) => record.status)).toEqual(['executing']);
    const events = (await streamEvents(connections[2]!, prefix)).filter((event) => event.runId === runId);
    expect(events.filter((event) => event.type === 'run-cancelled')).toEqual([
      {
        type: 'run-cancelled',
        runId,
        agentName: name,
        reason: 'operator pressed stop',
        interrupted: [{ toolCallId, toolName: 'long_job' }],
      },
    ]);
    expect(events.filter((event) => event.type === 'tool-finished')).toEqual([]);
  });
});

describe.skipIf(!url)('cross-process cancel on Redis, the listening connection gone quiet without closing', () => {
  const prefix = uniquePrefix();
  const admin = connect(url!);
  let proxy: TcpProxy | undefined;
  let workerRedis: Redis | undefined;
  afterAll(async () => {
    await removePrefix(admin, prefix);
    workerRedis?.disconnect();
    await proxy?.close();
    await admin.quit();
  });

  it('still fires the signal: an unanswered ping drops the half-open link, and the runs executing here are read again', async () => {
    const { hostname, port } = new URL(url!);
    proxy = await tcpProxy({ host: hostname, port: Number(port || 6379) });
    workerRedis = new Redis(proxy.url, { maxRetriesPerRequest: 1 });
    workerRedis.on('error', () => {});
    const name = `cancel-${Math.random().toString(36).slice(2, 8)}`;
    const worker = processWith(name, createRedisStore({ redis: workerRedis, prefix, cancelHeartbeatMs: 50 }));
    const other = processWith(name, createRedisStore({ redis: admin, prefix }));
    const execution = worker.runtime.start(name, { input: 'go' });
    const runId = await worker.running;
    // The worker's subscribed connection goes quiet: the PUBLISH of the cancel reaches Redis, never the worker.
    expect(proxy.silence(`${prefix}cancels`)).toBe(1);
    await other.runtime.cancel(runId, 'cancelled over a silent link');
    await until(() => worker.seen.length > 0, 'the running tool heard the cancel');
    expect(worker.seen).toEqual([{ reason: 'cancelled over a silent link' }]);
    expect((await execution).status).toBe('cancelled');
  });
});

/** The child's output lines, in order, as they come. */
function childLines(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/cancel-child.ts'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  return {
    next: async () => String((await lines.next()).value),
    exited: new Promise((resolve) => child.on('exit', resolve)),
  };
}

describe.skipIf(!url)('cross-process cancel on Redis, a notice missed while the listening connection was down', () => {
  const prefix = uniquePrefix();
  const connectionName = `cs-test-${Math.random().toString(36).slice(2, 10)}`;
  const workerRedis = new Redis(url!, { connectionName, maxRetriesPerRequest: 1 });
  workerRedis.on('error', () => {});
  const admin = connect(url!);
  afterAll(async () => {
    await removePrefix(admin, prefix);
    await Promise.all([workerRedis.quit(), admin.quit()]);
  });

  it('is made up on reconnect: the runtime reads its executing runs and fires the signal of the one cancelled meanwhile', async () => {
    const name = `cancel-${Math.random().toString(36).slice(2, 8)}`;
    const worker = processWith(name, createRedisStore({ redis: workerRedis, prefix }));
    // The cancelling side publishes nothing: only the re-check after the reconnect can tell the worker.
    const { cancels: _silent, ...silentStore } = createRedisStore({ redis: admin, prefix });
    const other = processWith(name, silentStore);
    const execution = worker.runtime.start(name, { input: 'go' });
    const runId = await worker.running;
    await other.runtime.cancel(runId, 'cancelled while you were away');
    const clients = String(await admin.call('CLIENT', 'LIST', 'TYPE', 'pubsub'));
    const id = clients
      .split('\n')
      .find((line) => line.includes(` name=${connectionName}-cancels `))
      ?.match(/^id=(\d+)/)?.[1];
    expect(id).toBeDefined();
    await admin.call('CLIENT', 'KILL', 'ID', id!);
    expect((await execution).status).toBe('cancelled');
    expect(worker.seen).toEqual([{ reason: 'cancelled while you were away' }]);
  });
});

describe.skipIf(!url)('cross-process cancel on Redis, from another Node process', () => {
  const prefix = uniquePrefix();
  const redis = connect(url!);
  afterAll(async () => {
    await removePrefix(redis, prefix);
    await redis.quit();
  });

  it("fires the child's tool signal; the child ends with the cancelled run this process committed", async () => {
    const name = `cancel-${Math.random().toString(36).slice(2, 8)}`;
    const decisionSecret = 'test-decision-secret-0123456789';
    const child = childLines({ REDIS_URL: url!, PREFIX: prefix, AGENT_NAME: name, DECISION_SECRET: decisionSecret });
    const started = await child.next();
    expect(started).toMatch(/^STARTED /);
    const runId = started.slice('STARTED '.length);
    // This process only cancels: its agent's tool never runs.
    const agent = createAgent({ name, decisionSecret, model: createScriptedModel([]), tools: [] });
    const runtime = createRuntime({ agents: [agent], store: createRedisStore({ redis, prefix }) });
    const cancelled = await runtime.cancel(runId, 'stopped from the parent');
    expect(await child.next()).toBe('ABORTED stopped from the parent');
    expect(await child.next()).toBe(`DONE cancelled ${cancelled.version}`);
    expect(await child.exited).toBe(0);
    const stored = await runtime.get(runId);
    expect([stored.status, stored.version, stored.error?.interrupted?.map((call) => call.toolName)]).toEqual([
      'cancelled',
      cancelled.version,
      ['long_job'],
    ]);
  });
});

describe('cancel across runtimes sharing a memory store', () => {
  it('reaches the other runtime of the process (its own agent object) and fires its tool signal', async () => {
    const store = createMemoryStore();
    const name = `cancel-${Math.random().toString(36).slice(2, 8)}`;
    const worker = processWith(name, store);
    const other = processWith(name, store);
    const execution = worker.runtime.start(name, { input: 'go' });
    const runId = await worker.running;
    const heard: string[] = [];
    const stop = await store.cancels.listen(({ reason }) => heard.push(reason));
    await other.runtime.cancel(runId, 'closed');
    expect((await execution).status).toBe('cancelled');
    expect(worker.seen).toEqual([{ reason: 'closed' }]);
    // A repeat changes nothing in the run but tells the processes again (a first notice may have been lost).
    expect((await other.runtime.cancel(runId, 'closed again')).error?.message).toBe('closed');
    expect(heard).toEqual(['closed', 'closed']);
    stop();
  });

  it('without a CancelSignal in the store, the tool elsewhere runs to its end, and its result is still not recorded over the cancel', async () => {
    const { cancels: _cancels, ...store } = createMemoryStore();
    const name = `cancel-${Math.random().toString(36).slice(2, 8)}`;
    const worker = processWith(name, store);
    const other = processWith(name, store);
    const execution = worker.runtime.start(name, { input: 'go' });
    const runId = await worker.running;
    const cancelled = await other.runtime.cancel(runId, 'closed');
    expect(worker.seen).toEqual([]);
    worker.finish();
    const finished = await execution;
    expect(finished).toMatchObject({ status: 'cancelled', version: cancelled.version });
    expect(finished.messages.filter((message) => message.role === 'tool')).toEqual([]);
  });
});
