import { ConfigError } from '../../errors.js';
import type { ResumeQueue } from '../../index.js';
import { redisKeys } from './keys.js';
import { asClient, type RedisClient } from './redis-client.js';
import { guarded } from './unavailable.js';

/**
 * Options of `createRedisResumeQueue`.
 *
 * @example
 * const options: RedisResumeQueueOptions = { redis, prefix: 'myapp:' };
 */
export interface RedisResumeQueueOptions {
  readonly redis: RedisClient;
  /** Key prefix shared with the Redis store and the workers; jobs go to `${prefix}jobs`. Default `'cs:'`, the same as the store's. */
  readonly prefix?: string;
}

/**
 * A `ResumeQueue` on a Redis Stream.
 *
 * @example
 * const queue: RedisResumeQueue = createRedisResumeQueue({ redis });
 * await queue.enqueue(runId); // an entry { runId } on queue.key
 */
export interface RedisResumeQueue extends ResumeQueue {
  /** The stream jobs are added to: `${prefix}jobs`. */
  readonly key: string;
}

/**
 * The resume queue of `respond(..., { mode: 'enqueue' })` on a Redis Stream:
 * each `enqueue` adds an entry `{ runId }` to `${prefix}jobs`, which workers
 * from `createWorker` read through one consumer group. Not trimmed by length
 * (that could drop jobs nobody ran); workers delete each job once it is done.
 * Throws `StoreUnavailableError` (retryable) when Redis cannot be reached.
 *
 * @example
 * import { Redis } from 'ioredis';
 * import { createRuntime } from 'countersign';
 * import { createRedisResumeQueue, createRedisStore } from 'countersign/redis';
 *
 * const redis = new Redis(process.env.REDIS_URL!);
 * const runtime = createRuntime({ agents, store: createRedisStore({ redis }), queue: createRedisResumeQueue({ redis }) });
 * await runtime.respond(runId, response, { mode: 'enqueue' }); // a worker resumes the run
 */
export function createRedisResumeQueue(options: RedisResumeQueueOptions): RedisResumeQueue {
  const key = `${redisKeys(options.prefix).prefix}jobs`;
  const redis = asClient(options.redis);
  const queue: RedisResumeQueue = {
    key,
    async enqueue(runId) {
      if (typeof runId !== 'string' || runId.length === 0)
        throw new ConfigError('enqueue: runId must be a non-empty string.');
      await guarded(`queue the resume of run ${runId}`, () => redis.call('XADD', key, '*', 'runId', runId));
    },
  };
  streams.set(queue, { redis: options.redis, key });
  return queue;
}

const streams = new WeakMap<object, { readonly redis: RedisClient; readonly key: string }>();

/**
 * The connection and stream key of a queue made by `createRedisResumeQueue`, or undefined for any other queue:
 * lets the Redis store add the job inside its commit script when the queue is on the store's own connection.
 */
export function jobStreamOf(queue: object): { readonly redis: RedisClient; readonly key: string } | undefined {
  return streams.get(queue);
}
