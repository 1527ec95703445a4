import { ConfigError } from '../../errors.js';
import type { ResumeQueue } from '../../runtime/resume-queue.js';
import { asClient, DEFAULT_STREAM_PREFIX, toStoreError, type RedisClient } from './stream-group.js';

export interface RedisResumeQueueOptions {
  readonly redis: RedisClient;
  /** Key prefix shared with the Redis store and the workers; jobs go to `${prefix}jobs`. Default `'cs:'`. */
  readonly prefix?: string;
}

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
  const key = `${options.prefix ?? DEFAULT_STREAM_PREFIX}jobs`;
  const redis = asClient(options.redis);
  return {
    key,
    async enqueue(runId) {
      if (typeof runId !== 'string' || runId.length === 0) throw new ConfigError('enqueue: runId must be a non-empty string.');
      try {
        await redis.call('XADD', key, '*', 'runId', runId);
      } catch (error) {
        throw toStoreError(error, `Queueing the resume of run ${runId}`);
      }
    },
  };
}
