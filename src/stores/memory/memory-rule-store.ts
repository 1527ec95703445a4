import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { ConfigError } from '../../errors.js';
import type { NewRule, RuleStore, StoredRule } from '../../ports/rule-store.js';
import { optionsObject, parseOptions } from '../../options.js';
import { escalateSchema, remindAfterMsSchema } from '../../policy/nudge-plan.js';
import { storedQuorumSchema } from '../../policy/quorum.js';
import { decisionsSchema } from '../../run/decision-kinds.js';
import { grantBoundsSchema } from '../../run/grant-bounds.js';
import { RuleSignatureError } from '../../errors.js';
import { ruleSignatureHolds, signRule } from '../../policy/rule-signature.js';

export const newRuleSchema = z.object({
  tool: z.string().min(1).max(256).optional(),
  connector: z.string().min(1).max(256).optional(),
  action: z.enum(['allow', 'ask', 'deny'], { error: "must be 'allow', 'ask' or 'deny'" }),
  reason: z.string().max(1000).optional(),
  approvers: z.array(z.string().min(1)).optional(),
  remindAfterMs: remindAfterMsSchema.optional(),
  escalate: escalateSchema.optional(),
  approvals: storedQuorumSchema.optional(),
  decisions: decisionsSchema.optional(),
  agent: z.string().min(1).optional(),
  argsMatch: grantBoundsSchema.shape.argsMatch,
  shadow: z.literal(true, { error: 'must be true, or left out' }).optional(),
  enabled: z.boolean().optional(),
});

/** The same fields, refusing unknown ones by name (`RuleStore.add` in code; the HTTP body has its own strict form). */
const addedRuleSchema = optionsObject(newRuleSchema.shape);

/**
 * Validates a rule to add and gives it an id, a creation time and `enabled`, signed with `secret` when there is one:
 * the one place a rule store makes a rule.
 */
export function toStoredRule(rule: NewRule, now: number, secret: string | undefined): StoredRule {
  const { enabled, ...fields } = parseOptions(addedRuleSchema, rule, 'RuleStore.add', { subject: 'rule' });
  return signRule(secret, {
    ...fields,
    id: `rule_${randomUUID()}`,
    createdAt: now,
    enabled: enabled ?? true,
  } as StoredRule);
}

/** What `setEnabled` and `setShadow` change of a stored rule. */
export type RuleChange = { readonly enabled: boolean } | { readonly shadow: boolean };

/**
 * A stored rule enabled, disabled, put in shadow mode or let act, signed again; refused when, with a secret, the stored
 * rule is not signed with it (signing it again would make a rule written into storage pass for one the app wrote).
 */
export function changedRule(rule: StoredRule, change: RuleChange, secret: string | undefined): StoredRule {
  if (secret !== undefined && !ruleSignatureHolds(secret, rule)) throw new RuleSignatureError(rule.id);
  if ('enabled' in change) return signRule(secret, { ...rule, enabled: change.enabled });
  const { shadow: _was, ...rest } = rule;
  return signRule(secret, change.shadow ? { ...rest, shadow: true } : rest);
}

/** Options of the rule stores' own: `decisionSecret` signs every rule they write. */
export interface RuleStoreSigning {
  /** The agents' `decisionSecret`: each rule written is signed with it, and agents with it ignore rules without. */
  readonly decisionSecret?: string;
}

export function unknownRule(id: string): ConfigError {
  return new ConfigError(`No stored rule ${id}; list the rules to see their ids.`);
}

/**
 * Rules kept in this process's memory (use `createRedisRuleStore` to share
 * them between processes).
 *
 * @example
 * const rules = createMemoryRuleStore({ decisionSecret: process.env.DECISION_SECRET });
 * const { id } = await rules.add({ tool: 'search_*', action: 'allow' });
 * await rules.setEnabled(id, false);
 */
export function createMemoryRuleStore(options: { clock?: () => number } & RuleStoreSigning = {}): RuleStore {
  const clock = options.clock ?? Date.now;
  const secret = options.decisionSecret;
  let rules: readonly StoredRule[] = Object.freeze([]);
  const change = (id: string, what: RuleChange) => {
    const existing = rules.find((rule) => rule.id === id);
    if (!existing) throw unknownRule(id);
    const updated = changedRule(existing, what, secret);
    rules = Object.freeze(rules.map((rule) => (rule.id === id ? updated : rule)));
    return updated;
  };
  return {
    async add(rule) {
      const stored = toStoredRule(rule, clock(), secret);
      rules = Object.freeze([...rules, stored]);
      return stored;
    },
    async list() {
      return rules;
    },
    async setEnabled(id, enabled) {
      return change(id, { enabled });
    },
    async setShadow(id, shadow) {
      return change(id, { shadow });
    },
    async remove(id) {
      const before = rules.length;
      rules = Object.freeze(rules.filter((rule) => rule.id !== id));
      return rules.length < before;
    },
  };
}
