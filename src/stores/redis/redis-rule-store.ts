import type { Cluster, Redis } from 'ioredis';
import { ConfigError } from '../../errors.js';
import type { RuleStore, StoredRule } from '../../index.js';
import { changedRule, type RuleChange, type RuleStoreSigning, toStoredRule, unknownRule } from '../../kit/index.js';
import { redisKeys } from './keys.js';
import { registerScripts } from './scripts.js';
import { guarded } from './unavailable.js';

/**
 * Options of `createRedisRuleStore`.
 *
 * @example
 * const options: RedisRuleStoreOptions = { redis: new Redis(process.env.REDIS_URL!), prefix: 'myapp:', decisionSecret: process.env.DECISION_SECRET };
 * const rules = createRedisRuleStore(options);
 */
export interface RedisRuleStoreOptions extends RuleStoreSigning {
  /** An ioredis connection or Cluster. */
  readonly redis: Redis | Cluster;
  /** Put before the key `${prefix}rules`; `cs:` by default, like the store's. */
  readonly prefix?: string;
  /** Milliseconds since the epoch, for `createdAt`; `Date.now` by default. */
  readonly clock?: () => number;
}

// A rule is kept as its enabled flag ('1' or '0') followed by the JSON of the
// rest; a change (enabled, shadow) rewrites the value (signed again) by compare-and-set.
function encodeRule(rule: StoredRule): string {
  const { enabled, ...rest } = rule;
  return `${enabled ? '1' : '0'}${JSON.stringify(rest)}`;
}

function decodeRule(id: string, value: string): StoredRule {
  try {
    const rest = JSON.parse(value.slice(1)) as Omit<StoredRule, 'enabled'>;
    return Object.freeze({ ...rest, enabled: value.startsWith('1') });
  } catch (error) {
    throw new ConfigError(
      `Stored rule ${id} in Redis is not valid JSON (${String(error)}); remove it and add it again.`,
    );
  }
}

/**
 * A `RuleStore` on Redis: one hash, `${prefix}rules`, shared by every process
 * that uses the same Redis and prefix, so a rule added from the CLI or the
 * HTTP app applies to the next tool call of every run. With `decisionSecret`
 * each rule is signed as it is written, so a rule written into Redis by
 * anything else is ignored by agents with that secret.
 *
 * @example
 * import { Redis } from 'ioredis';
 * import { createRedisRuleStore } from 'countersign/redis';
 *
 * const rules = createRedisRuleStore({ redis: new Redis(), prefix: 'myapp:', decisionSecret: process.env.DECISION_SECRET });
 * const { id } = await rules.add({ tool: 'search_*', action: 'allow', reason: 'read-only' });
 * const agent = createAgent({ name: 'a', model, tools, ruleStore: rules });
 * await rules.setEnabled(id, false);
 */
export function createRedisRuleStore(options: RedisRuleStoreOptions): RuleStore {
  const { redis } = options;
  const key = redisKeys(options.prefix).rules;
  const clock = options.clock ?? Date.now;
  const scripts = registerScripts(redis);
  const secret = options.decisionSecret;
  // Compare-and-set: a concurrent change of the same rule makes this read it again (a few times at most).
  const change = async (id: string, what: RuleChange): Promise<StoredRule> => {
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const value = await guarded('read a rule', () => redis.hget(key, id));
      if (value == null) throw unknownRule(id);
      const updated = changedRule(decodeRule(id, value), what, secret);
      const written = (await guarded('change a rule', () =>
        scripts.countersignSetRuleEnabled(key, id, value, encodeRule(updated)),
      )) as number;
      if (written === 1) return updated;
    }
    throw new ConfigError(
      `Stored rule ${id} kept changing while it was being changed (${JSON.stringify(what)}); try again.`,
    );
  };
  return {
    async add(rule) {
      const stored = toStoredRule(rule, clock(), secret);
      await guarded('add a rule', () => redis.hset(key, stored.id, encodeRule(stored)));
      return stored;
    },
    async list() {
      const all = await guarded('list the rules', () => redis.hgetall(key));
      const rules = Object.entries(all).map(([id, value]) => decodeRule(id, value));
      rules.sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      return Object.freeze(rules);
    },
    async setEnabled(id, enabled) {
      return change(id, { enabled });
    },
    async setShadow(id, shadow) {
      return change(id, { shadow });
    },
    async remove(id) {
      return (await guarded('remove a rule', () => redis.hdel(key, id))) > 0;
    },
  };
}
