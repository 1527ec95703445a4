import type { Cluster, Redis } from 'ioredis';
import type { ConsumeOutcome, Grant, GrantFilter, GrantState, GrantStore } from '../../ports/grant-store.js';
import { isListed } from '../memory-grant-store.js';
import { redisKeys } from './keys.js';
import { registerScripts } from './scripts.js';
import { guarded } from './unavailable.js';

/**
 * Options of `createRedisGrantStore`.
 *
 * @example
 * const options: RedisGrantStoreOptions = { redis: new Redis(process.env.REDIS_URL!), prefix: 'myapp:' };
 * const grants = createRedisGrantStore(options);
 */
export interface RedisGrantStoreOptions {
  /** An ioredis connection or Cluster: the store's own, to share its connection. */
  readonly redis: Redis | Cluster;
  /** Put before every key (`${prefix}grant:<id>`, `${prefix}grants…`); `cs:` by default, like the store's. */
  readonly prefix?: string;
}

/** How long a revoked grant with no expiry is remembered as revoked (so its decision never writes it again): 30 days. */
const TOMBSTONE_MS = 30 * 24 * 3_600_000;

const OUTCOMES: ReadonlySet<ConsumeOutcome> = new Set(['used', 'used-up', 'expired', 'revoked', 'missing']);

/**
 * A `GrantStore` on Redis, shared by every process with the same Redis and prefix: one hash per grant whose key
 * expires with the grant (Redis TTL = the grant's `ttlMs`), uses counted by a Lua script (a grant with `uses: 3`
 * covers at most three calls however many processes race), revocation effective at the next read. Each command
 * touches one key, so it works on a Cluster.
 *
 * @example
 * import { Redis } from 'ioredis';
 * import { createRedisGrantStore } from 'countersign/redis';
 *
 * const redis = new Redis();
 * const grantStore = createRedisGrantStore({ redis, prefix: 'myapp:' });
 * const agent = createAgent({ name: 'files', model, tools, grantStore });
 */
export function createRedisGrantStore(options: RedisGrantStoreOptions): GrantStore {
  const { redis } = options;
  const keys = redisKeys(options.prefix);
  const scripts = registerScripts(redis);

  /** The grants an index names, as stored; ids whose hash has expired are dropped from the index on the way. */
  const read = async (index: string): Promise<{ state: GrantState; revoked: boolean }[]> => {
    const ids = await guarded('list grants', () => redis.zrange(index, '0', '-1'));
    const rows = await Promise.all(ids.map((id) => guarded('read a grant', () => redis.hmget(keys.grant(id), 'g', 'used', 'revoked'))));
    const gone = ids.filter((_, index) => rows[index]![0] === null);
    if (gone.length > 0) await guarded('tidy the grant index', () => redis.zrem(index, ...gone));
    return rows.flatMap(([json, used, revoked]) =>
      json == null ? [] : [{ state: Object.freeze({ ...(JSON.parse(json) as Grant), used: Number(used) }), revoked: revoked === '1' }],
    );
  };

  const indexOf = (filter: GrantFilter): string =>
    filter.sessionId !== undefined
      ? keys.grantsSession(filter.sessionId)
      : filter.scope === 'agent' && filter.agentName !== undefined
        ? keys.grantsAgent(filter.agentName)
        : keys.grantsAll;

  return {
    async put(grant, used = 0) {
      const indexes = [keys.grantsAll, grant.scope === 'session' ? keys.grantsSession(grant.sessionId!) : keys.grantsAgent(grant.agentName)];
      // Indexed first: an index entry without its hash is skipped and tidied, a hash nobody indexes would be lost.
      for (const index of indexes) await guarded('index a grant', () => redis.zadd(index, grant.grantedAt, grant.id));
      const ttlMs = grant.expiresAt === undefined ? '' : String(Math.max(1, grant.expiresAt - grant.grantedAt));
      const written = await guarded('write a grant', () =>
        scripts.countersignPutGrant(keys.grant(grant.id), JSON.stringify(grant), String(grant.expiresAt ?? ''), String(grant.uses ?? ''), String(used), ttlMs),
      );
      return written === 1;
    },
    async list(filter) {
      const rows = await read(indexOf(filter));
      return rows.filter((row) => isListed(row.state, row.revoked, filter)).map((row) => row.state);
    },
    async consume(id, now) {
      const outcome = (await guarded('spend a grant use', () => scripts.countersignConsumeGrant(keys.grant(id), String(now)))) as ConsumeOutcome;
      return OUTCOMES.has(outcome) ? outcome : 'missing';
    },
    async revoke(id) {
      return (await guarded('revoke a grant', () => scripts.countersignRevokeGrant(keys.grant(id), String(TOMBSTONE_MS)))) === 1;
    },
    async revokeSession(sessionId) {
      const ids = await guarded('list grants', () => redis.zrange(keys.grantsSession(sessionId), '0', '-1'));
      let count = 0;
      for (const id of ids) if ((await guarded('revoke a grant', () => scripts.countersignRevokeGrant(keys.grant(id), String(TOMBSTONE_MS)))) === 1) count += 1;
      return count;
    },
  };
}
