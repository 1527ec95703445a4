import { randomUUID } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import type { ConsumeOutcome, Grant, GrantFilter, GrantRecord, GrantState, GrantStore, GrantUse } from '../../index.js';
import { isListed } from '../../kit/index.js';
import { redisKeys, type RedisKeys } from './keys.js';
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

const OUTCOMES: ReadonlySet<ConsumeOutcome> = new Set(['used', 'used-up', 'expired', 'revoked', 'missing']);

/** How many grants a store remembers what it has seen of (revoked, uses spent) in this process. */
const REMEMBERED = 10_000;

/** The field of a grant's hash that holds the receipt of the use `useKey` spent. */
const useField = (useKey: string): string => `u:${useKey}`;

/**
 * What this process has seen of grants, kept so that storage rolled back under it (a revocation deleted, receipts
 * removed) does not give back what it already saw taken: revoked ids, and the most uses seen spent per grant.
 * Bounded: the oldest are forgotten first.
 */
class Seen {
  readonly revoked = new Set<string>();
  readonly used = new Map<string, number>();

  revoke(id: string): void {
    if (this.revoked.size >= REMEMBERED) this.revoked.delete(this.revoked.values().next().value!);
    this.revoked.add(id);
  }

  /** The most uses of `id` seen spent, `used` included. */
  spent(id: string, used: number): number {
    const most = Math.max(used, this.used.get(id) ?? 0);
    if (most > 0) {
      this.used.delete(id);
      if (this.used.size >= REMEMBERED) this.used.delete(this.used.keys().next().value!);
      this.used.set(id, most);
    }
    return most;
  }
}

/**
 * A `GrantStore` on Redis, shared by every process with the same Redis and prefix: one hash per grant whose key
 * expires with the grant (Redis TTL = the grant's `ttlMs`), holding its signed JSON, one signed receipt per use
 * spent (field `u:<runId>:<toolCallId>`; a Lua script spends a use atomically and once per call, so `uses: 3` covers
 * at most three calls however many processes race or commands are resent) and, once revoked, its revocation, kept
 * for good. Revocation is effective at the next read. Each command touches one key, so it works on a Cluster.
 * Grants are listed from sorted sets of ids: a session's or an agent's lives as long as its longest-lived grant (for
 * good while one has no expiry); ids whose grant expired are tidied from a set when it is listed.
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
  const grants: Grants = { redis, keys: redisKeys(options.prefix), scripts: registerScripts(redis), seen: new Seen() };
  return {
    put: (grant, uses = []) => putGrant(grants, grant, uses),
    async list(filter) {
      const rows = await readIndex(grants, indexOf(grants.keys, filter));
      return rows.filter((row) => isListed(row.state, row.revoked, filter)).map((row) => row.state);
    },
    consume: (use) => consumeUse(grants, use),
    get: (id) => readOne(grants, id),
    useOf: (grantId, useKey) => readUse(grants, grantId, useKey),
    revoke: (id) => revokeOne(grants, id),
    async revokeSession(sessionId) {
      const ids = await guarded('list grants', () => redis.zrange(grants.keys.grantsSession(sessionId), '0', '-1'));
      let count = 0;
      for (const id of ids) if (await revokeOne(grants, id)) count += 1;
      return count;
    },
  };
}

/** What one grant store works with: its connection, keys and scripts, and what this process has seen. */
interface Grants {
  readonly redis: Redis | Cluster;
  readonly keys: RedisKeys;
  readonly scripts: ReturnType<typeof registerScripts>;
  readonly seen: Seen;
}

/** One grant as stored, or undefined; what this process saw revoked or spent stays so. */
async function readOne({ keys, scripts, seen }: Grants, id: string): Promise<GrantRecord | undefined> {
  const row = (await guarded('read a grant', () => scripts.countersignReadGrant(keys.grant(id)))) as
    | [string, number, number]
    | null;
  if (row == null) return undefined;
  let grant: Grant;
  try {
    grant = JSON.parse(row[0]) as Grant;
  } catch {
    // Not JSON: not a grant anyone wrote; it covers nothing (the signature check would refuse it anyway).
    return undefined;
  }
  if (row[2] === 1) seen.revoke(id);
  return Object.freeze({
    grant: Object.freeze(grant),
    used: seen.spent(id, Number(row[1])),
    revoked: seen.revoked.has(id),
  });
}

/** The grants an index names, as stored; ids whose hash has expired are dropped from the index on the way. */
async function readIndex(grants: Grants, index: string): Promise<{ state: GrantState; revoked: boolean }[]> {
  const { redis } = grants;
  const ids = await guarded('list grants', () => redis.zrange(index, '0', '-1'));
  const records = await Promise.all(ids.map((id) => readOne(grants, id)));
  const gone = ids.filter((_, index) => records[index] === undefined);
  if (gone.length > 0) await guarded('tidy the grant index', () => redis.zrem(index, ...gone));
  return records.flatMap((record) =>
    record === undefined
      ? []
      : [{ state: Object.freeze({ ...record.grant, used: record.used }), revoked: record.revoked }],
  );
}

function indexOf(keys: RedisKeys, filter: GrantFilter): string {
  return filter.sessionId !== undefined
    ? keys.grantsSession(filter.sessionId)
    : filter.scope === 'agent' && filter.agentName !== undefined
      ? keys.grantsAgent(filter.agentName)
      : keys.grantsAll;
}

async function revokeOne({ keys, scripts, seen }: Grants, id: string): Promise<boolean> {
  const revoked =
    (await guarded('revoke a grant', () => scripts.countersignRevokeGrant(keys.grant(id), randomUUID()))) === 1;
  if (revoked) seen.revoke(id);
  return revoked;
}

async function putGrant(
  { redis, keys, scripts, seen }: Grants,
  grant: Grant,
  uses: readonly GrantUse[],
): Promise<boolean> {
  if (seen.revoked.has(grant.id)) return false;
  const ttlMs = grant.expiresAt === undefined ? 0 : Math.max(1, grant.expiresAt - grant.grantedAt);
  const own = grant.scope === 'session' ? keys.grantsSession(grant.sessionId!) : keys.grantsAgent(grant.agentName);
  // Indexed first: an index entry without its hash is skipped and tidied, a hash nobody indexes would be lost.
  await guarded('index a grant', () => redis.zadd(keys.grantsAll, grant.grantedAt, grant.id));
  // A session's or an agent's index may never be listed again: it lives as long as its longest-lived grant, no longer.
  await guarded('index a grant', () => scripts.countersignIndexMember(own, grant.grantedAt, grant.id, ttlMs));
  const receipts = uses
    .filter((use) => use.grantId === grant.id)
    .flatMap((use) => [useField(use.useKey), JSON.stringify(use)]);
  const written = await guarded('write a grant', () =>
    scripts.countersignPutGrant(
      keys.grant(grant.id),
      JSON.stringify(grant),
      ttlMs === 0 ? '' : String(ttlMs),
      randomUUID(),
      ...receipts,
    ),
  );
  return written === 1;
}

async function consumeUse({ keys, scripts, seen }: Grants, use: GrantUse): Promise<ConsumeOutcome> {
  if (seen.revoked.has(use.grantId)) return 'revoked';
  const floor = String(seen.used.get(use.grantId) ?? 0);
  const outcome = (await guarded('spend a grant use', () =>
    scripts.countersignConsumeGrant(
      keys.grant(use.grantId),
      String(use.at),
      useField(use.useKey),
      JSON.stringify(use),
      floor,
    ),
  )) as ConsumeOutcome;
  if (outcome === 'revoked') seen.revoke(use.grantId);
  return OUTCOMES.has(outcome) ? outcome : 'missing';
}

async function readUse({ redis, keys }: Grants, grantId: string, useKey: string): Promise<GrantUse | undefined> {
  const receipt = await guarded('read a grant use', () => redis.hget(keys.grant(grantId), useField(useKey)));
  if (receipt == null) return undefined;
  try {
    return Object.freeze(JSON.parse(receipt) as GrantUse);
  } catch {
    return undefined;
  }
}
