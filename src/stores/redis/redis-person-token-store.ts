import type { Cluster, Redis } from 'ioredis';
import { ConfigError } from '../../errors.js';
import type { PersonTokenStore, StoredPersonToken } from '../../index.js';
import { redisKeys } from './keys.js';
import { guarded } from './unavailable.js';

/**
 * Options of `createRedisPersonTokenStore`.
 *
 * @example
 * const options: RedisPersonTokenStoreOptions = { redis: new Redis(process.env.REDIS_URL!), prefix: 'myapp:' };
 */
export interface RedisPersonTokenStoreOptions {
  /** An ioredis connection or Cluster. */
  readonly redis: Redis | Cluster;
  /** Put before the key `${prefix}person-tokens`; `cs:` by default, like the store's. */
  readonly prefix?: string;
}

function decode(id: string, value: string): StoredPersonToken {
  try {
    return Object.freeze(JSON.parse(value) as StoredPersonToken);
  } catch {
    throw new ConfigError(`Personal token ${id} in Redis is not valid JSON; revoke it by deleting the field ${id}.`);
  }
}

/**
 * A `PersonTokenStore` on Redis: one hash, `${prefix}person-tokens`, id to the token's record with the SHA-256 of its
 * secret (never the token), shared by every process of the app, so a revoke applies to the next request anywhere.
 *
 * @example
 * import { Redis } from 'ioredis';
 * import { createRedisPersonTokenStore } from 'countersign/redis';
 *
 * const personTokens = createRedisPersonTokenStore({ redis: new Redis(), prefix: 'myapp:' });
 * const runtime = createRuntime({ agents, store, personTokens });
 */
export function createRedisPersonTokenStore(options: RedisPersonTokenStoreOptions): PersonTokenStore {
  const { redis } = options;
  const key = redisKeys(options.prefix).personTokens;
  return {
    async add(token) {
      const added = await guarded('add a personal token', () => redis.hsetnx(key, token.id, JSON.stringify(token)));
      if (added === 0) throw new ConfigError(`A personal token with id ${token.id} is already kept.`);
    },
    async get(id) {
      const value = await guarded('read a personal token', () => redis.hget(key, id));
      return value == null ? undefined : decode(id, value);
    },
    async list() {
      const all = await guarded('list the personal tokens', () => redis.hgetall(key));
      return Object.entries(all)
        .map(([id, value]) => decode(id, value))
        .sort((a, b) => a.createdAt - b.createdAt);
    },
    async revoke(id, at) {
      const value = await guarded('read a personal token', () => redis.hget(key, id));
      if (value == null) return undefined;
      const token = decode(id, value);
      if (token.revokedAt !== undefined) return token;
      const revoked = Object.freeze({ ...token, revokedAt: at });
      // A revoke racing another keeps one of the two times; nothing else ever rewrites a token.
      await guarded('revoke a personal token', () => redis.hset(key, id, JSON.stringify(revoked)));
      return revoked;
    },
  };
}
