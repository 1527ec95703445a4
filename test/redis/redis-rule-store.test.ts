import { afterAll, describe, expect, inject, it, vi } from 'vitest';
import { ConfigError, RuleSignatureError } from 'countersign';
import { createRedisRuleStore } from 'countersign/redis';
import { decisionSecret, grantAgent } from '../support/grant-harness.js';
import { connect, removePrefix, uniquePrefix } from './redis-harness.js';

const url = inject('redisUrl');

describe.skipIf(!url)('Redis rule store', () => {
  const redis = url ? connect(url) : undefined!;
  const prefixes: string[] = [];
  /** A unique key prefix, removed after the suite. */
  const fresh = () => {
    const made = uniquePrefix();
    prefixes.push(made);
    return made;
  };
  const prefix = fresh();
  afterAll(async () => {
    for (const used of prefixes) await removePrefix(redis, used);
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
    expect(search).toMatchObject({
      tool: 'search_*',
      action: 'allow',
      reason: 'read-only',
      enabled: true,
      createdAt: 1_000,
    });
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
    const rules = createRedisRuleStore({ redis, prefix: fresh() });
    await expect(rules.add({ tool: 'x', action: 'maybe' as 'allow' })).rejects.toBeInstanceOf(ConfigError);
  });

  describe('with a decisionSecret', () => {
    const deploy = [{ name: 'deploy', args: { env: 'prod' } }];
    /** An agent whose rules live in Redis, written by a store with the agent's secret; warnings collected, not printed. */
    const setup = () => {
      const rulesPrefix = fresh();
      const rules = createRedisRuleStore({ redis, prefix: rulesPrefix, decisionSecret });
      const { agent, run, executions } = grantAgent({ decisionSecret, ruleStore: rules });
      const warnings = vi.spyOn(console, 'warn').mockImplementation(() => {});
      return { rulesPrefix, rules, agent, run, executions, warnings, key: `${rulesPrefix}rules` };
    };
    afterAll(() => vi.restoreAllMocks());

    it('signs the rules it writes, and an agent follows them', async () => {
      const { rules, run, warnings } = setup();
      const rule = await rules.add({ tool: 'deploy', action: 'allow' });
      expect(rule.signature).toMatch(/^v1\./);
      expect((await run(deploy)).status).toBe('completed');
      expect(await rules.setEnabled(rule.id, false)).toMatchObject({
        enabled: false,
        signature: expect.stringMatching(/^v1\./),
      });
      expect((await run(deploy)).status).toBe('awaitingApproval');
      expect(warnings).not.toHaveBeenCalled();
    });

    it('ignores an allow rule written straight into Redis, and reports it: the call is asked', async () => {
      const { key, run, executions, warnings } = setup();
      const forged = { id: 'rule_forged', createdAt: 1, tool: 'deploy', action: 'allow' };
      await redis.hset(key, forged.id, `1${JSON.stringify(forged)}`);
      expect((await run(deploy)).status).toBe('awaitingApproval');
      expect(executions.count('deploy')).toBe(0);
      expect(warnings).toHaveBeenCalledWith(expect.stringContaining('rule_forged'));
      expect(new RuleSignatureError('rule_forged').code).toBe('invalid_signature');
    });

    it('ignores a signed deny rule turned into an allow rule in Redis, and a disabled allow rule enabled there', async () => {
      const { rules, key, run, warnings } = setup();
      const deny = await rules.add({ tool: 'deploy', action: 'deny' });
      const value = (await redis.hget(key, deny.id))!;
      await redis.hset(key, deny.id, value.replace('"action":"deny"', '"action":"allow"'));
      expect((await run(deploy)).status).toBe('awaitingApproval');
      const allow = await rules.add({ tool: 'read', action: 'allow', enabled: false });
      await redis.hset(key, allow.id, `1${(await redis.hget(key, allow.id))!.slice(1)}`);
      expect((await run([{ name: 'read', args: {} }])).status).toBe('awaitingApproval');
      expect(warnings).toHaveBeenCalledWith(expect.stringContaining(allow.id));
    });

    it('keeps a shadow rule with its bounds; a shadow flag removed in Redis is refused, setShadow(false) lets it act', async () => {
      const { rules, key, run, warnings } = setup();
      const shadow = await rules.add({ tool: 'deploy', action: 'allow', shadow: true, argsMatch: { env: 'prod' } });
      expect((await rules.list()).find((rule) => rule.id === shadow.id)).toEqual(shadow);
      const paused = await run(deploy);
      expect(paused.pendingApprovals[0]?.shadowRuleId).toBe(shadow.id);
      const value = (await redis.hget(key, shadow.id))!;
      await redis.hset(key, shadow.id, value.replace('"shadow":true,', '').replace(',"shadow":true', ''));
      expect((await run(deploy)).status).toBe('awaitingApproval');
      expect(warnings).toHaveBeenCalledWith(expect.stringContaining(shadow.id));
      await expect(rules.setShadow(shadow.id, false)).rejects.toBeInstanceOf(RuleSignatureError);
      await redis.hset(key, shadow.id, value);
      expect(await rules.setShadow(shadow.id, false)).not.toHaveProperty('shadow');
      expect((await run(deploy)).status).toBe('completed');
    });

    it("tells the run's onError of a forged rule (operation 'rule'), not the console", async () => {
      const { key, agent, warnings } = setup();
      const forged = { id: 'rule_told', createdAt: 1, tool: 'deploy', action: 'allow' };
      await redis.hset(key, forged.id, `1${JSON.stringify(forged)}`);
      warnings.mockClear();
      const told: { error: unknown; operation: string }[] = [];
      const paused = await agent.execute(
        { input: JSON.stringify(deploy) },
        { onError: (error, context) => told.push({ error, operation: context.operation }) },
      );
      expect(paused.status).toBe('awaitingApproval');
      expect(told).toEqual([{ error: expect.any(RuleSignatureError), operation: 'rule' }]);
      expect(warnings).not.toHaveBeenCalled();
    });

    it('refuses to enable (and so sign again) a rule that was written into Redis', async () => {
      const { rules, key } = setup();
      const forged = { id: 'rule_forged', createdAt: 1, tool: 'deploy', action: 'allow' };
      await redis.hset(key, forged.id, `0${JSON.stringify(forged)}`);
      await expect(rules.setEnabled(forged.id, true)).rejects.toBeInstanceOf(RuleSignatureError);
      expect((await redis.hget(key, forged.id))!.startsWith('0')).toBe(true);
    });
  });
});
