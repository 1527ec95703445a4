import { compileRules, type RuleSet } from './policy.js';
import type { StoredRule } from '../ports/rule-store.js';

/**
 * One agent's stored rules, compiled: the enabled rules that apply to it. The
 * compiled set is kept and rebuilt only when the list changes, so reading the
 * store at every evaluation does not mean compiling at every call. Each agent
 * has its own, so two agents with one name (two apps in one process) never
 * share a set.
 */
export class StoredRuleCache {
  readonly #agentName: string;
  #last: { signature: string; set: RuleSet } | undefined;

  constructor(agentName: string) {
    this.#agentName = agentName;
  }

  compile(rules: readonly StoredRule[]): RuleSet {
    const applicable = rules.filter((rule) => rule.enabled && (rule.agent === undefined || rule.agent === this.#agentName));
    const signature = applicable.map((rule) => `${rule.id}\u0000${rule.createdAt}`).join('\u0001');
    if (this.#last?.signature === signature) return this.#last.set;
    const set = compileRules(
      applicable.map((rule) => ({
        id: rule.id,
        action: rule.action,
        ...(rule.tool === undefined ? {} : { tool: rule.tool }),
        ...(rule.connector === undefined ? {} : { connector: rule.connector }),
        ...(rule.reason === undefined ? {} : { reason: rule.reason }),
        ...(rule.approvers === undefined ? {} : { approvers: rule.approvers }),
        ...(rule.remindAfterMs === undefined ? {} : { remindAfterMs: rule.remindAfterMs }),
        ...(rule.escalate === undefined ? {} : { escalate: rule.escalate }),
        ...(rule.approvals === undefined ? {} : { approvals: rule.approvals }),
      })),
    );
    this.#last = { signature, set };
    return set;
  }
}
