import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { ConfigError } from '../errors.js';
import type { NewRule, RuleStore, StoredRule } from '../ports/rule-store.js';
import { parseOptions } from '../options.js';
import { escalateSchema, remindAfterMsSchema } from '../machine/nudge-plan.js';
import { storedQuorumSchema } from '../machine/quorum.js';

export const newRuleSchema = z.object({
  tool: z.string().min(1).max(256).optional(),
  connector: z.string().min(1).max(256).optional(),
  action: z.enum(['allow', 'ask', 'deny'], { error: "must be 'allow', 'ask' or 'deny'" }),
  reason: z.string().max(1000).optional(),
  approvers: z.array(z.string().min(1)).optional(),
  remindAfterMs: remindAfterMsSchema.optional(),
  escalate: escalateSchema.optional(),
  approvals: storedQuorumSchema.optional(),
  agent: z.string().min(1).optional(),
  enabled: z.boolean().optional(),
});

/** Validates a rule to add and gives it an id, a creation time and `enabled`. */
export function toStoredRule(rule: NewRule, now: number): StoredRule {
  const { enabled, ...fields } = parseOptions(newRuleSchema, rule, 'RuleStore.add', { subject: 'rule' });
  return Object.freeze({ ...fields, id: `rule_${randomUUID()}`, createdAt: now, enabled: enabled ?? true }) as StoredRule;
}

export function unknownRule(id: string): ConfigError {
  return new ConfigError(`No stored rule ${id}; list the rules to see their ids.`);
}

/**
 * Rules kept in this process's memory (use `createRedisRuleStore` to share
 * them between processes).
 *
 * @example
 * const rules = createMemoryRuleStore();
 * const { id } = await rules.add({ tool: 'search_*', action: 'allow' });
 * await rules.setEnabled(id, false);
 */
export function createMemoryRuleStore(options: { clock?: () => number } = {}): RuleStore {
  const clock = options.clock ?? Date.now;
  let rules: readonly StoredRule[] = Object.freeze([]);
  return {
    async add(rule) {
      const stored = toStoredRule(rule, clock());
      rules = Object.freeze([...rules, stored]);
      return stored;
    },
    async list() {
      return rules;
    },
    async setEnabled(id, enabled) {
      const existing = rules.find((rule) => rule.id === id);
      if (!existing) throw unknownRule(id);
      const updated = Object.freeze({ ...existing, enabled });
      rules = Object.freeze(rules.map((rule) => (rule.id === id ? updated : rule)));
      return updated;
    },
    async remove(id) {
      const before = rules.length;
      rules = Object.freeze(rules.filter((rule) => rule.id !== id));
      return rules.length < before;
    },
  };
}
