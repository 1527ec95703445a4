export { createRedisStore } from './redis-store.js';
export type { RedisStore, RedisStoreOptions, DrainOptions } from './redis-store-options.js';
export { createRedisRuleStore, type RedisRuleStoreOptions } from './redis-rule-store.js';
export { createRedisGrantStore, type RedisGrantStoreOptions } from './redis-grant-store.js';
export { createRedisOnceStore, type RedisOnceStoreOptions } from './redis-once-store.js';
export { createRedisPersonTokenStore, type RedisPersonTokenStoreOptions } from './redis-person-token-store.js';
export type { RedisKeys } from './keys.js';
export { createStreamNotifier } from './stream-notifier.js';
export type {
  StreamNotifier,
  StreamNotifierOptions,
  StreamEventHandler,
  StreamEventListener,
  StreamEventMeta,
} from './stream-notifier-options.js';
export { createRedisResumeQueue, type RedisResumeQueue, type RedisResumeQueueOptions } from './resume-queue.js';
export { createWorker, type Worker, type WorkerOptions, type WorkerErrorInfo } from './worker.js';
export type { StreamErrorInfo } from './stream-error-info.js';
export type { RedisClient } from './redis-client.js';
