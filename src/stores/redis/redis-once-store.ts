import { randomUUID } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import type { OnceStore } from '../../index.js';
import { checkTtl } from '../../kit/index.js';
import { redisKeys } from './keys.js';
import { DROPPED_PREFIX } from './remember-scripts.js';
import { registerScripts } from './scripts.js';
import { guarded } from './unavailable.js';

/**
 * Options of `createRedisOnceStore`.
 *
 * @example
 * const options: RedisOnceStoreOptions = { redis: new Redis(process.env.REDIS_URL!), prefix: 'myapp:' };
 */
export interface RedisOnceStoreOptions {
  /** An ioredis connection or Cluster. */
  readonly redis: Redis | Cluster;
  /** Put before every key; `cs:` by default, as the run store's. */
  readonly prefix?: string;
}

/**
 * A `OnceStore` on Redis (a claim script, and a compare-and-replace script; both know their own resend):
 * webhook ids, spent links and chat button ids hold across every process.
 * `createRedisStore({ redis }).once` is one on the same connection and prefix.
 *
 * @example
 * const runtime = createRuntime({ agents, store: createRedisStore({ redis }), once: createRedisOnceStore({ redis }) });
 */
export function createRedisOnceStore(options: RedisOnceStoreOptions): OnceStore {
  const { redis } = options;
  const keys = redisKeys(options.prefix);
  const scripts = registerScripts(redis);
  return {
    async putIfAbsent(key, value, ttlMs) {
      checkTtl(ttlMs, 'putIfAbsent');
      const held = (await guarded('remember a key', () =>
        scripts.countersignRemember(keys.remember(key), value, Math.ceil(ttlMs)),
      )) as string | null;
      return held ?? undefined;
    },
    async get(key) {
      const held = await guarded('read a remembered key', () => redis.get(keys.remember(key)));
      return held === null || held.startsWith(DROPPED_PREFIX) ? undefined : held;
    },
    async replace(key, expected, value, ttlMs) {
      checkTtl(ttlMs, 'replace');
      const replaced = await guarded('replace a remembered key', () =>
        // The call's own id marks a drop as this call's, so a resend after a lost reply is told it succeeded.
        scripts.countersignReplaceRemembered(
          keys.remember(key),
          expected,
          value === undefined ? '0' : '1',
          value ?? '',
          Math.ceil(ttlMs),
          randomUUID(),
        ),
      );
      return Number(replaced) === 1;
    },
  };
}
