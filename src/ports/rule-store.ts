import type { PolicyAction } from '../policy/policy.js';
import type { DecisionKind, EscalationStep } from '../run/types.js';
import type { QuorumOptions } from '../policy/quorum.js';
import type { JsonValue } from '../run/json-value.js';

/** A rule kept in a `RuleStore`: plain data, so it can live in Redis. */
export interface StoredRule {
  readonly id: string;
  readonly createdAt: number;
  readonly enabled: boolean;
  readonly tool?: string;
  readonly connector?: string;
  readonly action: PolicyAction;
  readonly reason?: string;
  readonly approvers?: readonly string[];
  /** Re-announce its requests every this many ms while they wait (see `PolicyRule.remindAfterMs`). */
  readonly remindAfterMs?: number;
  /** Who is brought in, and when, while its requests wait (see `PolicyRule.escalate`). */
  readonly escalate?: readonly EscalationStep[];
  /** Several people must approve (JSON: `from` is a list of ids). */
  readonly approvals?: QuorumOptions & { readonly from?: readonly string[] };
  /** The decisions a person may make on the calls it asks about, within the tool's own (see `PolicyRule.decisions`). */
  readonly decisions?: readonly DecisionKind[];
  /** Limits the rule to one agent; every agent when left out. */
  readonly agent?: string;
  /** Limits the rule to calls whose arguments match, as a grant's `argsMatch` (a dotted path to a glob or a value). */
  readonly argsMatch?: Readonly<Record<string, JsonValue>>;
  /**
   * The rule never decides: a request it would have allowed records it (`ApprovalRequest.shadowRuleId`), so people
   * see what it would do before it acts (`setShadow(id, false)`).
   */
  readonly shadow?: true;
  /**
   * With the rule store's `decisionSecret`: binds every other field (`enabled` too). An agent with a
   * `decisionSecret` ignores a stored rule not signed with it.
   */
  readonly signature?: string;
}

export type NewRule = Omit<StoredRule, 'id' | 'createdAt' | 'enabled' | 'signature'> & { readonly enabled?: boolean };

/**
 * Rules added, disabled and removed at run time. A run reads them every time
 * it evaluates a call, so a change applies to the next call of every run.
 * Given a `decisionSecret`, a store signs each rule it writes (`add`,
 * `setEnabled`, `setShadow`); an agent with a `decisionSecret` ignores stored rules not
 * signed with its own.
 *
 * @example
 * const rules = createMemoryRuleStore();
 * await rules.add({ tool: 'search_*', action: 'allow', reason: 'read-only' });
 * const agent = createAgent({ name: 'a', model, tools, ruleStore: rules });
 */
export interface RuleStore {
  add(rule: NewRule): Promise<StoredRule>;
  list(): Promise<readonly StoredRule[]>;
  setEnabled(id: string, enabled: boolean): Promise<StoredRule>;
  /** Puts a rule in shadow mode, or lets it act (`false`). */
  setShadow(id: string, shadow: boolean): Promise<StoredRule>;
  remove(id: string): Promise<boolean>;
}
