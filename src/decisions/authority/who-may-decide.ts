// The one answer to "who may decide this call": the decision step, the gate before a tool runs, the grant path and
// every surface that shows who may still decide ask here, and nowhere else. Names are compared as people
// (`person-name.ts`).
import type { Approvers } from '../../policy/approvers.js';
import type { CompiledRule, RuleSet } from '../../policy/policy.js';
import type { QuorumOptions } from '../../policy/quorum.js';
import type { RunIdentity } from '../../run/run-identity.js';
import type { Quorum, RequestHistory } from '../../run/types.js';
import { listsPerson, samePerson } from './person-name.js';

/** Where the approver and quorum predicates of a call are found: the agent's tools and its configured rules. */
export interface DeciderConfig {
  readonly tools: ReadonlyMap<
    string,
    { readonly approvers?: Approvers | undefined; readonly approvals?: QuorumOptions | undefined }
  >;
  readonly settings: { readonly rules: Pick<RuleSet, 'find'> };
}

/** What decides who may decide a call: the approver list it carries, its tool, the rule that asked, and its escalations. */
export interface ApproverTarget {
  readonly toolName: string;
  readonly ruleId?: string | undefined;
  readonly approvers?: readonly string[] | undefined;
  readonly history?: RequestHistory | Omit<RequestHistory, 'signature'> | undefined;
}

/**
 * The approver list a call carries: the rule's when it names one, else the
 * tool's. A rule that names no list does not lift the tool's.
 */
export function approverListOf(
  rule: CompiledRule | undefined,
  tool: { readonly approvers?: Approvers | undefined },
): readonly string[] | undefined {
  for (const approvers of [rule?.rule.approvers, tool.approvers]) {
    if (Array.isArray(approvers)) return approvers as readonly string[];
  }
  return undefined;
}

/** The approver ids escalations brought in. */
export function escalatedApprovers(target: Pick<ApproverTarget, 'history'>): readonly string[] {
  const ids: string[] = [];
  for (const escalation of target.history?.escalations ?? []) {
    if (Array.isArray(escalation.to))
      for (const id of escalation.to as readonly string[]) if (!listsPerson(ids, id)) ids.push(id);
  }
  return ids;
}

/**
 * Who may decide a call now: its approver list widened by the ids its escalations brought in; undefined (anyone)
 * when it names no list, which an escalation never narrows.
 */
export function approversNow(target: Pick<ApproverTarget, 'approvers' | 'history'>): readonly string[] | undefined {
  if (target.approvers === undefined) return undefined;
  const added = escalatedApprovers(target).filter((id) => !listsPerson(target.approvers!, id));
  return added.length === 0 ? target.approvers : [...target.approvers, ...added];
}

/** True when `predicate` admits `by`; a predicate that throws admits nobody. */
function admits(predicate: Approvers | undefined, by: string | undefined): boolean {
  if (typeof predicate !== 'function') return true;
  try {
    return predicate(by) === true;
  } catch {
    // A check that cannot decide must not let anyone through.
    return false;
  }
}

/**
 * True when `by` may decide the call: it is on the call's approver list (if
 * there is one, widened by its escalations) and satisfies the predicates of its tool and its rule; an approver an
 * escalation named by id passes without them, since the escalation chose that person. The
 * same check answers for a person deciding, for run memory and grants standing in for the person who gave them,
 * and for the gate before the call runs.
 */
export function mayDecide(config: DeciderConfig, target: ApproverTarget, by: string | undefined): boolean {
  const list = approversNow(target);
  if (list && !listsPerson(list, by)) return false;
  if (by !== undefined && listsPerson(escalatedApprovers(target), by)) return true;
  return (
    admits(config.tools.get(target.toolName)?.approvers, by) &&
    admits(config.settings.rules.find(target.ruleId)?.rule.approvers, by)
  );
}

/** True when a function of the call's tool or rule (its `approvers`, or its quorum's `from`) says who may decide it. */
export function hasApproverFunction(config: DeciderConfig, toolName: string, ruleId: string | undefined): boolean {
  const tool = config.tools.get(toolName);
  const rule = config.settings.rules.find(ruleId)?.rule;
  return [tool?.approvers, rule?.approvers, fromPredicate(config, { toolName, ruleId })].some(
    (check) => typeof check === 'function',
  );
}

/** The `from` predicate of the rule (or else the tool) a call's quorum came from; a list travels in the request itself. */
function fromPredicate(config: DeciderConfig, target: ApproverTarget): QuorumOptions['from'] | undefined {
  const options =
    config.settings.rules.find(target.ruleId)?.rule.approvals ?? config.tools.get(target.toolName)?.approvals;
  return typeof options?.from === 'function' ? options.from : undefined;
}

/** Why `by` may not vote on a call that needs `quorum`, or undefined when they may (their earlier votes aside). */
export function voteRefusal(
  config: DeciderConfig,
  run: Pick<RunIdentity, 'requestedBy'>,
  target: ApproverTarget,
  quorum: Quorum,
  by: string | undefined,
): string | undefined {
  if (by === undefined && (quorum.distinctPeople || quorum.excludeRequester || quorum.from !== undefined)) {
    return 'a vote on this request must say who cast it (approvedBy), so votes can be told apart';
  }
  if (quorum.excludeRequester && samePerson(by, run.requestedBy))
    return `${by} asked for this run and may not approve their own request`;
  if (quorum.from !== undefined && !listsPerson(quorum.from, by)) return `only ${quorum.from.join(', ')} may vote`;
  if (!admits(fromPredicate(config, target), by))
    return `${by ?? 'an anonymous voter'} is not among those the approvals name`;
  return undefined;
}
