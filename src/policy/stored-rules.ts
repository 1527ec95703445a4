import { RuleSignatureError } from '../errors.js';
import { argsMatch } from './grants/args-match.js';
import { compileRules, type PolicyRule, type RuleSet } from './policy.js';
import type { StoredRule } from '../ports/rule-store.js';
import { ruleSignatureHolds } from './rule-signature.js';

/** Told of a stored rule that failed its signature check and is ignored. */
export type RuleRefusal = (error: RuleSignatureError) => void;

/** One agent's stored rules, compiled: those that decide, and those in shadow mode that only say what they would do. */
export interface StoredRuleSets {
  readonly live: RuleSet;
  readonly shadow: RuleSet;
}

/** A stored rule as a policy rule: its `argsMatch` a condition on the call's parsed arguments. */
function policyRuleOf(rule: StoredRule): PolicyRule {
  const bounds = rule.argsMatch;
  return {
    id: rule.id,
    action: rule.action,
    ...(rule.tool === undefined ? {} : { tool: rule.tool }),
    ...(rule.connector === undefined ? {} : { connector: rule.connector }),
    ...(rule.reason === undefined ? {} : { reason: rule.reason }),
    ...(rule.approvers === undefined ? {} : { approvers: rule.approvers }),
    ...(rule.remindAfterMs === undefined ? {} : { remindAfterMs: rule.remindAfterMs }),
    ...(rule.escalate === undefined ? {} : { escalate: rule.escalate }),
    ...(rule.approvals === undefined ? {} : { approvals: rule.approvals }),
    ...(rule.decisions === undefined ? {} : { decisions: rule.decisions }),
    ...(bounds === undefined ? {} : { when: (args: unknown) => argsMatch(bounds, args) }),
  };
}

/** Without a listener, a refused rule is said on the console: never in silence. */
const warn: RuleRefusal = (error) => console.warn(`countersign: ${error.message}`);

/**
 * One agent's stored rules, compiled: the enabled rules that apply to it, those in shadow mode apart. The
 * compiled set is kept and rebuilt only when the list changes, so reading the
 * store at every evaluation does not mean compiling at every call. Each agent
 * has its own, so two agents with one name (two apps in one process) never
 * share a set.
 *
 * With the agent's `decisionSecret`, a rule not signed with it (written into
 * storage by anything but a rule store given that secret, or altered there) is
 * left out as if it were not there, and reported once per change of the list
 * (`RuleSignatureError`, to `refuse`; the console without one).
 */
export class StoredRuleCache {
  readonly #agentName: string;
  readonly #secret: string | undefined;
  #last: { key: string; sets: StoredRuleSets } | undefined;

  constructor(agentName: string, secret?: string) {
    this.#agentName = agentName;
    this.#secret = secret;
  }

  compile(rules: readonly StoredRule[], refuse: RuleRefusal = warn): StoredRuleSets {
    const ours = rules.filter((rule) => rule.agent === undefined || rule.agent === this.#agentName);
    // The signature and the flags are part of the key: a rule altered in storage under the same id and time is checked again.
    const key = ours
      .map(
        (rule) =>
          `${rule.id}\u0000${rule.createdAt}\u0000${rule.enabled}\u0000${rule.shadow ?? ''}\u0000${rule.signature ?? ''}`,
      )
      .join('\u0001');
    if (this.#last?.key === key) return this.#last.sets;
    const applicable = ours.filter((rule) => this.#holds(rule, refuse) && rule.enabled);
    const sets: StoredRuleSets = {
      live: compileRules(applicable.filter((rule) => rule.shadow !== true).map(policyRuleOf)),
      shadow: compileRules(applicable.filter((rule) => rule.shadow === true).map(policyRuleOf)),
    };
    this.#last = { key, sets };
    return sets;
  }

  /** True when the rule may be used: there is no secret, or it is signed with it (else it is reported). */
  #holds(rule: StoredRule, refuse: RuleRefusal): boolean {
    if (this.#secret === undefined || ruleSignatureHolds(this.#secret, rule)) return true;
    refuse(new RuleSignatureError(rule.id));
    return false;
  }
}
