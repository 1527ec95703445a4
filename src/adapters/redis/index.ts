export { createRedisStore } from './redis-store.js';
export type { RedisStore, RedisStoreOptions, DrainOptions } from './redis-store-options.js';
export { createRedisRuleStore, type RedisRuleStoreOptions } from './redis-rule-store.js';
export { createRedisOnceStore, type RedisOnceStoreOptions } from './redis-once-store.js';
export type { RedisKeys } from './keys.js';
export { createStreamNotifier, parseEventEntry, type StreamNotifier, type StreamNotifierOptions, type StreamEventHandler, type StreamEventListener, type StreamEventMeta } from './stream-notifier.js';
export { createRedisResumeQueue, type RedisResumeQueue, type RedisResumeQueueOptions } from './resume-queue.js';
export { createWorker, WORKER_GROUP, type Worker, type WorkerOptions, type WorkerErrorInfo } from './worker.js';
export type { StreamErrorInfo, RedisClient } from './stream-group.js';
