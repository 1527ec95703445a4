import { afterAll, describe, expect, inject, it } from 'vitest';
import { ConfigError } from 'countersign';
import { createRedisRuleStore } from 'countersign/redis';
import { connect, removePrefix, uniquePrefix } from './redis-harness.js';

const url = inject('redisUrl');

describe.skipIf(!url)('Redis rule store', () => {
  const redis = url ? connect(url) : undefined!;
  const prefix = uniquePrefix();
  afterAll(async () => {
    await removePrefix(redis, prefix);
    redis.disconnect();
  });

  it('adds, lists by creation time, enables and disables, and removes rules shared by every store on the prefix', async () => {
    let now = 1_000;
    const rules = createRedisRuleStore({ redis, prefix, clock: () => now });
    const other = createRedisRuleStore({ redis, prefix });
    const search = await rules.add({ tool: 'search_*', action: 'allow', reason: 'read-only' });
    now = 500;
    const early = await rules.add({ connector: 'github', action: 'ask', approvers: [], agent: 'files' });
    now = 2_000;
    const deny = await rules.add({ tool: 'delete_*', action: 'deny', enabled: false, approvers: ['alice'] });
    expect(search).toMatchObject({ tool: 'search_*', action: 'allow', reason: 'read-only', enabled: true, createdAt: 1_000 });
    expect(await other.list()).toEqual([early, search, deny]);
    expect(Object.isFrozen(await other.list())).toBe(true);
    expect((await other.list())[1]).toEqual(search);

    const disabled = await other.setEnabled(search.id, false);
    expect(disabled).toEqual({ ...search, enabled: false });
    expect(await rules.setEnabled(deny.id, true)).toEqual({ ...deny, enabled: true });
    expect((await rules.list()).map((rule) => rule.enabled)).toEqual([true, false, true]);

    expect(await rules.remove(early.id)).toBe(true);
    expect(await rules.remove(early.id)).toBe(false);
    expect((await other.list()).map((rule) => rule.id)).toEqual([search.id, deny.id]);
    await expect(rules.setEnabled(early.id, true)).rejects.toThrow(/No stored rule/);
  });

  it('validates a rule before storing it', async () => {
    const rules = createRedisRuleStore({ redis, prefix: uniquePrefix() });
    await expect(rules.add({ tool: 'x', action: 'maybe' as 'allow' })).rejects.toBeInstanceOf(ConfigError);
  });
});
