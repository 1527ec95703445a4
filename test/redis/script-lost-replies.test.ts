// Every Lua script the Redis stores run, with its reply lost after Redis ran it: ioredis resends the command on a new
// connection, and the caller must get the answer its first run earned. The cases are keyed by the script list
// (SCRIPT_DEFINITIONS), so a new script does not compile, and does not pass, without a case here.
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { createRedisGrantStore, createRedisOnceStore, createRedisRuleStore, createRedisStore } from 'countersign/redis';
import { SCRIPT_DEFINITIONS, type ScriptCommands } from '../../src/stores/redis/scripts.js';
import { sampleGrant } from '../support/grant-store-contract.js';
import { pausedRun, uniquePrefix } from './redis-harness.js';
import { proxiedRedis } from './proxied-redis.js';

const url = inject('redisUrl');

interface LostReplyCase {
  /** Makes the script's call with the reply of the request containing a marker lost (`lose`), and checks the outcome. */
  run(ctx: Ctx): Promise<void>;
}

interface Ctx {
  readonly prefix: string;
  /** Stores on the connection through the proxy. */
  readonly store: ReturnType<typeof createRedisStore>;
  readonly once: ReturnType<typeof createRedisOnceStore>;
  readonly grants: ReturnType<typeof createRedisGrantStore>;
  readonly rules: ReturnType<typeof createRedisRuleStore>;
  /** The same run store on a direct connection, to look. */
  readonly inspect: ReturnType<typeof createRedisStore>;
  /** The direct connection, to look at keys. */
  readonly direct: Redis;
  /** Runs `act` with the reply to the first request containing `marker` lost after Redis ran it. */
  lose<T>(marker: string, act: () => Promise<T>): Promise<T>;
}

const cases: Record<keyof ScriptCommands, LostReplyCase> = {
  countersignWriteRun: {
    async run({ store, inspect, lose }) {
      const { run, agent } = await pausedRun();
      await lose(run.runId, () => store.create(run));
      expect(await inspect.load(run.runId)).toEqual(run);
      const { approveAll } = await import('countersign');
      const decided = approveAll(run, 'alice', { agent });
      await lose(`${run.runId}`, () => store.commit(decided, run.version));
      expect((await inspect.load(run.runId))?.version).toBe(decided.version);
    },
  },
  countersignLoadRun: {
    async run({ store, inspect, lose }) {
      const { run } = await pausedRun();
      await inspect.create(run);
      expect(await lose(run.runId, () => store.load(run.runId))).toEqual(run);
    },
  },
  countersignDeleteRun: {
    async run({ store, inspect, lose }) {
      const { run } = await pausedRun();
      await inspect.create(run);
      await lose(run.runId, () => store.delete(run.runId));
      expect(await inspect.load(run.runId)).toBeUndefined();
      expect((await inspect.listPending()).items.map((item) => item.runId)).not.toContain(run.runId);
    },
  },
  countersignRemember: {
    async run({ once, lose }) {
      const key = `claim:${randomUUID()}`;
      const value = randomUUID();
      expect(await lose(key, () => once.putIfAbsent(key, value, 60_000))).toBeUndefined();
      expect(await once.get(key)).toBe(value);
      expect(await once.putIfAbsent(key, randomUUID(), 60_000)).toBe(value);
    },
  },
  countersignReplaceRemembered: {
    async run({ once, lose }) {
      const key = `claim:${randomUUID()}`;
      await once.putIfAbsent(key, 'claim', 60_000);
      expect(await lose(key, () => once.replace(key, 'claim', 'answer', 60_000))).toBe(true);
      expect(await once.get(key)).toBe('answer');
      expect(await lose(key, () => once.replace(key, 'answer', undefined, 60_000))).toBe(true);
      expect(await once.get(key)).toBeUndefined();
      // Dropped: taken again by the next claim, and another caller's drop of the old value is refused.
      expect(await once.replace(key, 'answer', undefined, 60_000)).toBe(false);
      expect(await once.putIfAbsent(key, 'again', 60_000)).toBeUndefined();
    },
  },
  countersignIndexMember: {
    async run({ prefix, direct, grants, lose }) {
      const sessionId = `s-${randomUUID().slice(0, 8)}`;
      const grant = sampleGrant({ sessionId, expiresAt: 1_000 + 60_000 });
      // The session's index is written by this script alone: its reply is the one lost.
      expect(await lose(`grants:session:${sessionId}`, () => grants.put(grant))).toBe(true);
      expect((await grants.list({ sessionId, now: 2_000 })).map((listed) => listed.id)).toEqual([grant.id]);
      const ttl = await direct.pttl(`${prefix}grants:session:${sessionId}`);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(60_000);
    },
  },
  countersignSetRuleEnabled: {
    async run({ rules, lose }) {
      const rule = await rules.add({ tool: `tool_${randomUUID().slice(0, 8)}`, action: 'allow', reason: 'lost reply' });
      expect(await lose(rule.id, () => rules.setEnabled(rule.id, false))).toMatchObject({
        id: rule.id,
        enabled: false,
      });
    },
  },
  countersignPutGrant: {
    async run({ grants, lose }) {
      const grant = sampleGrant();
      expect(await lose(`grant:${grant.id}`, () => grants.put(grant))).toBe(true);
    },
  },
  countersignConsumeGrant: {
    async run({ grants, lose }) {
      const grant = sampleGrant({ uses: 3 });
      await grants.put(grant);
      expect(
        await lose(grant.id, () => grants.consume({ grantId: grant.id, useKey: 'run_lost:call_1', at: 2_000 })),
      ).toBe('used');
      expect((await grants.get(grant.id))?.used).toBe(1);
    },
  },
  countersignReadGrant: {
    async run({ grants, lose }) {
      const grant = sampleGrant();
      await grants.put(grant);
      expect(await lose(grant.id, () => grants.get(grant.id))).toMatchObject({
        grant: { id: grant.id },
        used: 0,
        revoked: false,
      });
    },
  },
  countersignRevokeGrant: {
    async run({ grants, lose }) {
      const grant = sampleGrant();
      await grants.put(grant);
      expect(await lose(grant.id, () => grants.revoke(grant.id))).toBe(true);
    },
  },
};

describe.skipIf(!url)('every store script, its reply lost after Redis ran it', () => {
  const prefix = uniquePrefix();
  const redis = proxiedRedis(url!, prefix);
  let ctx: Ctx;
  beforeAll(async () => {
    // Loaded on the server first, so the reply lost is the script's own, not a NOSCRIPT answer to its EVALSHA.
    for (const { lua } of Object.values(SCRIPT_DEFINITIONS)) await redis.direct.script('LOAD', lua);
    ctx = {
      prefix,
      store: createRedisStore({ redis: redis.viaProxy, prefix }),
      once: createRedisOnceStore({ redis: redis.viaProxy, prefix }),
      grants: createRedisGrantStore({ redis: redis.viaProxy, prefix }),
      rules: createRedisRuleStore({ redis: redis.viaProxy, prefix }),
      inspect: createRedisStore({ redis: redis.direct, prefix }),
      direct: redis.direct,
      lose: redis.lose,
    };
  });

  it('has a case for every script', () => {
    expect(Object.keys(cases).sort()).toEqual(Object.keys(SCRIPT_DEFINITIONS).sort());
  });

  for (const name of Object.keys(SCRIPT_DEFINITIONS) as (keyof ScriptCommands)[]) {
    it(name, () => cases[name].run(ctx));
  }
});
