// What the policy says of one call: the strongest rule (the agent's and the rule store's), then a grant that denies,
// run memory, the rule or the tool's own needsApproval, and a grant that approves; and who may decide a call asked again.
import type { Agent } from '../agent/agent-types.js';
import type { ToolContext } from '../tools/define-tool.js';
import type { CompiledRule, PolicyAction, PolicyContext, PolicyTarget, RuleSet } from '../policy/policy.js';
import { approverListOf, type ApproverTarget, mayDecide } from '../decisions/authority/who-may-decide.js';
import { listsPerson } from '../decisions/authority/person-name.js';
import { nudgePlanOf, type NudgePlan } from '../policy/nudge-plan.js';
import { quorumOptionsOf, resolveQuorum } from '../policy/quorum.js';
import { runGrantors } from '../decisions/run-memory.js';
import { offeredDecisions, offers, toolDecisions } from '../run/decision-kinds.js';
import type { DecisionKind, DecisionSource, Quorum, ToolCall } from '../run/types.js';
import type { AgentSnapshot } from '../run/agent-snapshot.js';
import type { AnyTool } from '../tools/define-tool.js';
import type { Grant } from '../ports/grant-store.js';
import type { TurnGrants } from '../policy/grants/grant-coverage.js';
import type { RuleRefusal, StoredRuleSets } from '../policy/stored-rules.js';

export interface Verdict {
  readonly action: PolicyAction;
  readonly source: DecisionSource;
  readonly ruleId?: string;
  readonly reason?: string;
  readonly approvers?: readonly string[];
  /** When several people must approve (`approvals` on the rule or tool). */
  readonly quorum?: Quorum;
  /** Who granted the run memory or the grant that decided the call. */
  readonly by?: string;
  readonly grantId?: string;
  /** How a request it asks for is nudged while it waits. */
  readonly nudges?: NudgePlan;
  /** The decisions a request it asks for offers, when fewer than all (the tool's, tightened by the rule's). */
  readonly decisions?: readonly DecisionKind[];
}

const rank: Record<PolicyAction, number> = { allow: 0, ask: 1, deny: 2 };

/** What a rule sees of a call: its name, connector, parsed arguments, and the tool's description of itself. */
function policyTarget(agent: Agent, call: ToolCall, input: unknown, ctx: ToolContext): PolicyTarget {
  const tool = agent.tools.get(call.name)!;
  const policyCtx: PolicyContext = {
    ...ctx,
    tool: {
      name: tool.name,
      description: tool.description,
      ...(tool.connector === undefined ? {} : { connector: tool.connector }),
      ...(tool.readOnly === undefined ? {} : { readOnly: tool.readOnly }),
      ...(tool.annotations === undefined ? {} : { annotations: tool.annotations }),
    },
  };
  return { toolName: call.name, connector: tool.connector, args: input, ctx: policyCtx };
}

/**
 * The rule that decides a call (deny beats ask beats allow), from the agent's policy and the rule store; `rules` are
 * another agent's where an agent above a sub-agent judges the sub-agent's call.
 */
async function ruleFor(
  agent: Agent,
  call: ToolCall,
  input: unknown,
  ctx: ToolContext,
  storedRules: RuleSet | undefined,
  rules: RuleSet = agent.settings.rules,
): Promise<CompiledRule | undefined> {
  // No rule anywhere (the usual agent without a policy): nothing to match, so no policy context to build.
  if (rules.size === 0 && (storedRules === undefined || storedRules.size === 0)) return undefined;
  const target = policyTarget(agent, call, input, ctx);
  const fromConfig = await rules.strongest(target);
  const fromStore = storedRules ? await storedRules.strongest(target) : undefined;
  return fromConfig && fromStore
    ? rank[fromStore.rule.action] > rank[fromConfig.rule.action]
      ? fromStore
      : fromConfig
    : (fromConfig ?? fromStore);
}

/**
 * The shadow rule that would have allowed a call put to a person, had it acted: only where no rule asked (an acting
 * allow rule would lose to it), and never for a call that names approvers or needs a quorum, or whose tool is not
 * grantable (a rule must not stand in for them).
 */
export async function shadowRuleFor(
  agent: Agent,
  call: ToolCall,
  input: unknown,
  ctx: ToolContext,
  shadow: RuleSet,
  verdict: Verdict,
): Promise<string | undefined> {
  if (shadow.size === 0 || verdict.source === 'rule' || verdict.approvers !== undefined) return undefined;
  if (verdict.quorum !== undefined || agent.tools.get(call.name)?.grantable === false) return undefined;
  const found = await shadow.strongest(policyTarget(agent, call, input, ctx));
  return found?.rule.action === 'allow' ? found.id : undefined;
}

/** The rule store's rules, compiled; undefined, with nothing to wait for, when the agent has no rule store. */
export function storedRulesOf(agent: Agent, refuse?: RuleRefusal): Promise<StoredRuleSets> | undefined {
  const store = agent.settings.ruleStore;
  return store
    ? Promise.resolve(store.list()).then((rules) => agent.settings.storedRules.compile(rules, refuse))
    : undefined;
}

/**
 * Who may decide a call that is put to a person again (its process died
 * mid-call): the rule, approvers and quorum the policy names for it, as for any
 * call that asks, so asking again never widens who may answer.
 */
export async function approversOfCall(
  agent: Agent,
  snapshot: AgentSnapshot,
  call: ToolCall,
): Promise<Pick<Verdict, 'ruleId' | 'approvers' | 'quorum' | 'decisions'> & { nudges: NudgePlan }> {
  const ctx: ToolContext = { runId: snapshot.runId, toolCallId: call.id, messages: snapshot.messages };
  const rule = await ruleFor(agent, call, call.args, ctx, (await storedRulesOf(agent))?.live);
  const tool = agent.tools.get(call.name)!;
  const list = approverListOf(rule, tool);
  const nudges = nudgePlanOf(rule?.rule, tool, agent.settings.remindAfterMs);
  const ownQuorum = resolveQuorum(quorumOptionsOf(rule, tool));
  const offered = offeredDecisions(toolDecisions(tool), rule?.rule.decisions);
  const own: Verdict = {
    action: 'ask',
    source: 'rule',
    ...(rule === undefined ? {} : { ruleId: rule.id }),
    ...(list === undefined ? {} : { approvers: list }),
    ...(ownQuorum === undefined ? {} : { quorum: ownQuorum }),
    ...(offered === undefined ? {} : { decisions: offered }),
  };
  // On a sub-agent, the rules of the agents above narrow who may answer as they do for any of its calls.
  const asked = agent.settings.lineage === undefined ? own : await inheritedVerdict(agent, call, call.args, ctx, own);
  const { ruleId, approvers, quorum, decisions } = asked.action === 'ask' ? asked : own;
  return {
    ...(ruleId === undefined ? {} : { ruleId }),
    ...(approvers === undefined ? {} : { approvers }),
    nudges,
    ...(quorum === undefined ? {} : { quorum }),
    ...(decisions === undefined ? {} : { decisions }),
  };
}

/** Who may decide a call, as its decision entry records it for the gate: the rule that asked and its approver list. */
function whoMayDecide(target: ApproverTarget): Pick<Verdict, 'ruleId' | 'approvers'> {
  return {
    ...(target.ruleId === undefined ? {} : { ruleId: target.ruleId }),
    ...(target.approvers === undefined ? {} : { approvers: target.approvers }),
  };
}

/** A grant's verdict on a call, standing in for the person who gave it. */
function grantVerdict(grant: Grant, action: PolicyAction, target: ApproverTarget): Verdict {
  const reach = grant.scope === 'session' ? 'this session' : `agent ${grant.agentName}`;
  return {
    action,
    source: 'grant',
    ...whoMayDecide(target),
    grantId: grant.id,
    reason: `${grant.toolName} was ${grant.decision} for ${reach}`,
    ...(grant.grantedBy === undefined ? {} : { by: grant.grantedBy }),
  };
}

/**
 * What the policy says of a call: the agent's own verdict, then, on a sub-agent (`agentAsTool`), the rules of every
 * agent above it, which can only tighten it.
 */
export async function verdictOf(
  agent: Agent,
  snapshot: AgentSnapshot,
  call: ToolCall,
  input: unknown,
  ctx: ToolContext,
  storedRules: RuleSet | undefined,
  grants: TurnGrants,
): Promise<Verdict> {
  const own = await ownVerdict(agent, snapshot, call, input, ctx, storedRules, grants);
  return agent.settings.lineage === undefined ? own : inheritedVerdict(agent, call, input, ctx, own);
}

/**
 * A sub-agent's verdict under the rules of the agents above it: their deny denies, their ask asks (of their approvers
 * too, with their quorum, and only once: no standing permission of the sub-agent's stands in for it); their allow
 * loosens nothing.
 */
async function inheritedVerdict(
  agent: Agent,
  call: ToolCall,
  input: unknown,
  ctx: ToolContext,
  own: Verdict,
): Promise<Verdict> {
  let verdict = own;
  for (let above = agent.settings.lineage?.parent; above !== undefined; above = above.settings.lineage?.parent) {
    if (verdict.action === 'deny') return verdict;
    const stored = (await storedRulesOf(above))?.live;
    const rule = await ruleFor(agent, call, input, ctx, stored, above.settings.rules);
    if (rule === undefined || rule.rule.action === 'allow') continue;
    const ruleId = `${above.name}:${rule.id}`;
    const reason = rule.rule.reason === undefined ? {} : { reason: rule.rule.reason };
    if (rule.rule.action === 'deny') return { action: 'deny', source: 'rule', ruleId, ...reason };
    verdict = askedAbove(verdict, rule, ruleId, reason);
    if (verdict.approvers?.length === 0)
      return {
        action: 'deny',
        source: 'rule',
        ruleId,
        reason: `nobody may decide it: the approvers ${above.name}'s rule ${rule.id} names and those ${agent.name}'s policy names have nobody in common`,
      };
  }
  return verdict;
}

/** `verdict` turned into (or kept as) an ask that also answers to a rule above: both approver lists, the larger quorum, once only. */
function askedAbove(verdict: Verdict, rule: CompiledRule, ruleId: string, reason: { reason?: string }): Verdict {
  const theirs = approverListOf(rule, {});
  const approvers =
    theirs === undefined
      ? verdict.approvers
      : verdict.approvers === undefined
        ? theirs
        : verdict.approvers.filter((name) => listsPerson(theirs, name));
  const quorum = resolveQuorum(quorumOptionsOf(rule, {}));
  const stricter = quorum !== undefined && quorum.required > (verdict.quorum?.required ?? 1) ? quorum : verdict.quorum;
  const decisions = offeredDecisions(verdict.decisions, rule.rule.decisions, ['approve', 'edit', 'deny']);
  const asked =
    verdict.action === 'ask' ? verdict : { action: 'ask' as const, source: 'rule' as const, ruleId, ...reason };
  const { approvers: _approvers, quorum: _quorum, decisions: _decisions, by: _by, grantId: _grantId, ...rest } = asked;
  return {
    ...rest,
    ...(approvers === undefined ? {} : { approvers }),
    ...(stricter === undefined ? {} : { quorum: stricter }),
    ...(decisions === undefined ? {} : { decisions }),
  };
}

async function ownVerdict(
  agent: Agent,
  snapshot: AgentSnapshot,
  call: ToolCall,
  input: unknown,
  ctx: ToolContext,
  storedRules: RuleSet | undefined,
  grants: TurnGrants,
): Promise<Verdict> {
  const tool = agent.tools.get(call.name)!;
  const settings = agent.settings;
  const rule = await ruleFor(agent, call, input, ctx, storedRules);
  if (rule?.rule.action === 'deny')
    return {
      action: 'deny',
      source: 'rule',
      ruleId: rule.id,
      ...(rule.rule.reason === undefined ? {} : { reason: rule.rule.reason }),
    };

  const list = approverListOf(rule, tool);
  const quorum = resolveQuorum(quorumOptionsOf(rule, tool));
  const decisions = offeredDecisions(toolDecisions(tool), rule?.rule.decisions);
  const approvers = {
    ...(list === undefined ? {} : { approvers: list }),
    ...(quorum === undefined ? {} : { quorum }),
    ...(decisions === undefined ? {} : { decisions }),
  };
  const target: ApproverTarget = {
    toolName: call.name,
    ruleId: rule?.id,
    ...(list === undefined ? {} : { approvers: list }),
  };
  const denial = await grants.decide(call, input, target, 'denied');
  if (denial !== undefined) return grantVerdict(denial, 'deny', target);
  // Memory and approval grants stand in for the person who gave them, so they cover only calls that person may
  // decide, and never a call that needs several people: one person's word is not a quorum. Nor a call whose decisions
  // do not offer their scope: it could not have been decided so itself.
  const grantor =
    quorum === undefined && offers(decisions, 'run')
      ? runGrantors(snapshot, call.name, settings.decisionSecret).find((grant) => mayDecide(agent, target, grant.by))
      : undefined;
  if (grantor !== undefined) {
    return {
      action: 'allow',
      source: 'memory',
      ...whoMayDecide(target),
      reason: `${call.name} was approved for the rest of this run`,
      ...(grantor.by === undefined ? {} : { by: grantor.by }),
    };
  }
  const verdict = await policyVerdict(agent, rule, input, ctx, tool, approvers);
  // Only a call that would be put to one person spends a use of an approval grant: never one that needs several.
  if (verdict.action !== 'ask' || quorum !== undefined) return verdict;
  const approval = await grants.decide(call, input, target, 'approved', decisions);
  return approval === undefined ? verdict : grantVerdict(approval, 'allow', target);
}

/** What the rule, else the tool's `needsApproval`, else the agent's default says of a call. */
async function policyVerdict(
  agent: Agent,
  rule: CompiledRule | undefined,
  input: unknown,
  ctx: ToolContext,
  tool: AnyTool,
  approvers: Pick<Verdict, 'approvers' | 'quorum' | 'decisions'>,
): Promise<Verdict> {
  if (rule) {
    const nudges = nudgePlanOf(rule.rule, tool, agent.settings.remindAfterMs);
    return {
      action: rule.rule.action,
      source: 'rule',
      ruleId: rule.id,
      ...(rule.rule.reason === undefined ? {} : { reason: rule.rule.reason }),
      ...approvers,
      nudges,
    };
  }

  const needsApproval = tool.needsApproval;
  if (needsApproval === undefined) return { action: agent.settings.defaultAction, source: 'default', ...approvers };
  try {
    const answer = typeof needsApproval === 'function' ? await needsApproval(input, ctx) : needsApproval;
    const required = typeof answer === 'boolean' ? answer : answer.required;
    const reason = typeof answer === 'object' ? answer.reason : undefined;
    return {
      action: required ? 'ask' : 'allow',
      source: 'tool',
      ...(reason === undefined ? {} : { reason }),
      ...approvers,
    };
  } catch (error) {
    // A check that cannot decide must not let the call through unasked.
    return {
      action: 'ask',
      source: 'tool',
      reason: `needsApproval threw: ${(error as Error)?.message ?? String(error)}`,
      ...approvers,
    };
  }
}
