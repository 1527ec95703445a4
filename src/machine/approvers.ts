import type { Agent } from './agent.js';
import type { Approvers } from './define-tool.js';
import { approversNow, escalatedApprovers } from './nudge.js';
import type { CompiledRule } from './policy.js';
import type { RequestHistory } from './types.js';

/** What decides who may decide a call: the approver list it carries, its tool, the rule that asked, and its escalations. */
export interface ApproverTarget {
  readonly toolName: string;
  readonly ruleId?: string | undefined;
  readonly approvers?: readonly string[] | undefined;
  readonly history?: RequestHistory | undefined;
}

/**
 * The approver list a call carries: the rule's when it names one, else the
 * tool's. A rule that names no list does not lift the tool's.
 */
export function approverListOf(rule: CompiledRule | undefined, tool: { readonly approvers?: Approvers | undefined }): readonly string[] | undefined {
  for (const approvers of [rule?.rule.approvers, tool.approvers]) {
    if (Array.isArray(approvers)) return approvers as readonly string[];
  }
  return undefined;
}

/**
 * True when `by` may decide the call: it is on the call's approver list (if
 * there is one, widened by its escalations) and satisfies the predicates of its tool and its rule; an approver an
 * escalation named by id passes without them, since the escalation chose that person. The
 * same check answers for a person deciding and for run memory standing in
 * for the person who granted it.
 */
export function mayDecide(agent: Agent, target: ApproverTarget, by: string | undefined): boolean {
  const list = approversNow(target);
  if (list && (by === undefined || !list.includes(by))) return false;
  if (by !== undefined && escalatedApprovers(target).includes(by)) return true;
  const predicates = [agent.tools.get(target.toolName)?.approvers, agent.settings.rules.find(target.ruleId)?.rule.approvers];
  for (const approvers of predicates) {
    if (typeof approvers !== 'function') continue;
    try {
      if (!approvers(by)) return false;
    } catch {
      // A check that cannot decide must not let anyone through.
      return false;
    }
  }
  return true;
}
