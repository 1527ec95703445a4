// A Redis that cannot be reached surfaces as StoreUnavailableError (retryable), never as a raw ioredis error.
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { StoreUnavailableError } from 'countersign';
import { createRedisRuleStore, createRedisStore } from 'countersign/redis';
import { pausedRun } from './redis-harness.js';
import { freePort as closedPort } from '../support/free-port.js';

describe('Redis store: server unreachable', () => {
  const connections: Redis[] = [];
  afterAll(() => {
    for (const redis of connections) redis.disconnect();
  });

  const unreachable = async (options: { enableOfflineQueue: boolean }) => {
    const redis = new Redis({
      host: '127.0.0.1',
      port: await closedPort(),
      maxRetriesPerRequest: 0,
      enableOfflineQueue: options.enableOfflineQueue,
      retryStrategy: () => null,
      lazyConnect: !options.enableOfflineQueue,
    });
    redis.on('error', () => {});
    connections.push(redis);
    return redis;
  };

  for (const enableOfflineQueue of [false, true]) {
    it(`turns every operation's failure into StoreUnavailableError (offline queue ${enableOfflineQueue ? 'on' : 'off'})`, async () => {
      const redis = await unreachable({ enableOfflineQueue });
      const store = createRedisStore({ redis, prefix: 'cs-test:unreachable:' });
      const rules = createRedisRuleStore({ redis, prefix: 'cs-test:unreachable:' });
      const { run } = await pausedRun();
      const operations: [string, () => Promise<unknown>][] = [
        ['create', () => store.create(run)],
        ['load', () => store.load(run.runId)],
        ['commit', () => store.commit({ ...run, version: run.version + 1 }, run.version)],
        ['listPending', () => store.listPending()],
        ['expiredRuns', () => store.expiredRuns(Date.now())],
        ['runsToRecover', () => store.runsToRecover(Date.now(), Date.now())],
        ['delete', () => store.delete(run.runId)],
        ['once.putIfAbsent', () => store.once.putIfAbsent('k', 'v', 1000)],
        ['once.get', () => store.once.get('k')],
        ['once.replace', () => store.once.replace('k', 'v', undefined, 1000)],
        ['drainOutboxes', () => store.drainOutboxes()],
        ['rules.add', () => rules.add({ tool: 'x', action: 'allow' })],
        ['rules.list', () => rules.list()],
        ['rules.setEnabled', () => rules.setEnabled('rule_x', false)],
        ['rules.remove', () => rules.remove('rule_x')],
      ];
      for (const [name, operation] of operations) {
        const error = await operation().then(
          () => undefined,
          (failure: unknown) => failure,
        );
        expect(error, name).toBeInstanceOf(StoreUnavailableError);
        expect(error, name).toMatchObject({ code: 'store_unavailable', retryable: true, fault: 'environment' });
        expect((error as Error).message, name).toMatch(/^Redis could not .+ The operation can be retried\.$/);
        expect((error as Error).cause, name).toBeInstanceOf(Error);
      }
    });
  }
});
