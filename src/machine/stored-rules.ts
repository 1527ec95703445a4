import { compileRules, RuleSet } from './policy.js';
import type { StoredRule } from '../ports/rule-store.js';

const cache = new Map<string, { signature: string; set: RuleSet }>();

/**
 * The enabled stored rules that apply to `agentName`, compiled. The compiled
 * set is kept per agent and rebuilt only when the list changes, so reading
 * the store at every evaluation does not mean compiling at every call.
 */
export function compileStoredRules(rules: readonly StoredRule[], agentName: string): RuleSet {
  const applicable = rules.filter((rule) => rule.enabled && (rule.agent === undefined || rule.agent === agentName));
  const signature = applicable.map((rule) => `${rule.id}\u0000${rule.createdAt}`).join('\u0001');
  const cached = cache.get(agentName);
  if (cached?.signature === signature) return cached.set;
  const set = compileRules(
    applicable.map((rule) => ({
      id: rule.id,
      action: rule.action,
      ...(rule.tool === undefined ? {} : { tool: rule.tool }),
      ...(rule.connector === undefined ? {} : { connector: rule.connector }),
      ...(rule.reason === undefined ? {} : { reason: rule.reason }),
      ...(rule.approvers === undefined ? {} : { approvers: rule.approvers }),
    })),
  );
  cache.set(agentName, { signature, set });
  return set;
}
