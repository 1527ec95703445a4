import { randomUUID } from 'node:crypto';
import type { Agent } from '../agent/agent-types.js';
import type { CallEvaluation } from '../machine/agent-machine.js';
import { buildApprovalRequest, requestSettingsOf } from '../decisions/approval-request.js';
import { findShapeProblem, shapeIssue } from '../run/argument-shape.js';
import type { ToolContext } from '../tools/define-tool.js';
import { digestOf } from '../run/digest.js';
import type { CompiledRule, PolicyAction, PolicyContext, RuleSet } from '../policy/policy.js';
import {
  approverListOf,
  type ApproverTarget,
  hasApproverFunction,
  mayDecide,
} from '../decisions/authority/who-may-decide.js';
import { nudgePlanOf, type NudgePlan } from '../policy/nudge-plan.js';
import { quorumOptionsOf, resolveQuorum } from '../policy/quorum.js';
import { signDecision } from '../decisions/decision-signature.js';
import { runGrantors } from '../decisions/run-memory.js';
import { errorResult, denialResult } from '../run/tool-results.js';
import { rememberParsedInput } from '../tools/parsed-inputs.js';
import { currentToolCalls } from '../run/current-tool-calls.js';
import type { AuditEntry, DecisionSource, Quorum, ToolCall } from '../run/types.js';
import type { AgentSnapshot } from '../run/agent-snapshot.js';
import type { AnyTool } from '../tools/define-tool.js';
import type { Grant } from '../ports/grant-store.js';
import { type GrantRefusal, TurnGrants } from '../policy/grants/grant-coverage.js';
import type { RuleRefusal } from '../policy/stored-rules.js';

interface Verdict {
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
}

const rank: Record<PolicyAction, number> = { allow: 0, ask: 1, deny: 2 };

/** The rule that decides a call (deny beats ask beats allow), from the agent's policy and the rule store. */
async function ruleFor(
  agent: Agent,
  call: ToolCall,
  input: unknown,
  ctx: ToolContext,
  storedRules: RuleSet | undefined,
): Promise<CompiledRule | undefined> {
  // No rule anywhere (the usual agent without a policy): nothing to match, so no policy context to build.
  if (agent.settings.rules.size === 0 && (storedRules === undefined || storedRules.size === 0)) return undefined;
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
  const target = { toolName: call.name, connector: tool.connector, args: input, ctx: policyCtx };
  const fromConfig = await agent.settings.rules.strongest(target);
  const fromStore = storedRules ? await storedRules.strongest(target) : undefined;
  return fromConfig && fromStore
    ? rank[fromStore.rule.action] > rank[fromConfig.rule.action]
      ? fromStore
      : fromConfig
    : (fromConfig ?? fromStore);
}

/** The rule store's rules, compiled; undefined, with nothing to wait for, when the agent has no rule store. */
function storedRulesOf(agent: Agent, refuse?: RuleRefusal): Promise<RuleSet> | undefined {
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
): Promise<{ ruleId?: string; approvers?: readonly string[]; nudges: NudgePlan; quorum?: Quorum }> {
  const ctx: ToolContext = { runId: snapshot.runId, toolCallId: call.id, messages: snapshot.messages };
  const rule = await ruleFor(agent, call, call.args, ctx, await storedRulesOf(agent));
  const tool = agent.tools.get(call.name)!;
  const approvers = approverListOf(rule, tool);
  const nudges = nudgePlanOf(rule?.rule, tool, agent.settings.remindAfterMs);
  const quorum = resolveQuorum(quorumOptionsOf(rule, tool));
  return {
    ...(rule === undefined ? {} : { ruleId: rule.id }),
    ...(approvers === undefined ? {} : { approvers }),
    nudges,
    ...(quorum === undefined ? {} : { quorum }),
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

async function verdictOf(
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
  const approvers = { ...(list === undefined ? {} : { approvers: list }), ...(quorum === undefined ? {} : { quorum }) };
  const target: ApproverTarget = {
    toolName: call.name,
    ruleId: rule?.id,
    ...(list === undefined ? {} : { approvers: list }),
  };
  const denial = await grants.decide(call, input, target, 'denied');
  if (denial !== undefined) return grantVerdict(denial, 'deny', target);
  // Memory and approval grants stand in for the person who gave them, so they cover only calls that person may
  // decide, and never a call that needs several people: one person's word is not a quorum.
  const grantor =
    quorum === undefined
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
  const approval = await grants.decide(call, input, target, 'approved');
  return approval === undefined ? verdict : grantVerdict(approval, 'allow', target);
}

/** What the rule, else the tool's `needsApproval`, else the agent's default says of a call. */
async function policyVerdict(
  agent: Agent,
  rule: CompiledRule | undefined,
  input: unknown,
  ctx: ToolContext,
  tool: AnyTool,
  approvers: { approvers?: readonly string[] },
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

type CallBase = { readonly toolCallId: string; readonly toolName: string; readonly attempts: 0 };

/**
 * A call's tool and its parsed input, or why it cannot run: an id already seen this turn, an unknown tool, or
 * arguments that fail their shape or the tool's schema (the model reads the reason and calls again).
 */
async function parseCall(
  agent: Agent,
  call: ToolCall,
  seen: Set<string>,
): Promise<{ tool: AnyTool; input: unknown } | { failure: string }> {
  if (seen.has(call.id)) return { failure: `Duplicate tool call id ${call.id} in one turn; use a unique id per call.` };
  seen.add(call.id);
  // `has`, not `get`: a tool a source stopped offering is found for runs paused on it, never for a new call.
  const tool = agent.tools.has(call.name) ? agent.tools.get(call.name) : undefined;
  if (!tool)
    return {
      failure: `Unknown tool ${call.name}. Available tools: ${[...agent.tools.keys()].join(', ') || '(none)'}.`,
    };
  // Before the schema, which could pass such keys through: a "__proto__" key hides from plain copies and a deep value overflows recursive code.
  const badShape = findShapeProblem(call.args);
  if (badShape) {
    const fix =
      badShape.kind === 'forbidden-key'
        ? 'without that key'
        : `with arguments at most ${badShape.maxDepth} levels deep`;
    return {
      failure: `Invalid arguments for ${call.name}: ${badShape.path || '(root)'}: ${shapeIssue(badShape)}. Call again ${fix}.`,
    };
  }
  const parsed = await tool.input.safeParseAsync(call.args);
  if (!parsed.success) {
    const detail = parsed.error.issues
      .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
      .join('; ');
    return { failure: `Invalid arguments for ${call.name}: ${detail}. Fix them and call again.` };
  }
  return { tool, input: parsed.data };
}

/** A call the verdict puts to a person: its pending record and the request, signed. */
function askFor(
  agent: Agent,
  snapshot: AgentSnapshot,
  call: ToolCall,
  parsed: { tool: AnyTool; input: unknown },
  verdict: Verdict,
  base: CallBase,
  now: number,
): CallEvaluation {
  const approvalId = `apr_${randomUUID()}`;
  const request = buildApprovalRequest(
    {
      run: snapshot,
      approvalId,
      toolCallId: call.id,
      tool: parsed.tool,
      args: call.args,
      parsedInput: parsed.input,
      reason: verdict.reason,
      approvers: verdict.approvers,
      approverFunction: hasApproverFunction(agent, call.name, verdict.ruleId),
      ruleId: verdict.ruleId,
      nudges: verdict.nudges ?? nudgePlanOf(undefined, parsed.tool, agent.settings.remindAfterMs),
      quorum: verdict.quorum,
    },
    requestSettingsOf(agent.settings, now),
  );
  return { kind: 'ask', record: { ...base, status: 'pending', approvalId }, request };
}

/** A call the verdict allows or denies without a person: its record and its signed decision entry. */
function settledBy(
  agent: Agent,
  snapshot: AgentSnapshot,
  call: ToolCall,
  verdict: Verdict,
  base: CallBase,
  now: number,
): CallEvaluation {
  const unsigned: AuditEntry = {
    toolCallId: call.id,
    toolName: call.name,
    decision: verdict.action === 'allow' ? 'approved' : 'denied',
    source: verdict.source,
    scope: 'once',
    at: now,
    argsDigest: digestOf(call.args),
    ...(verdict.ruleId === undefined ? {} : { ruleId: verdict.ruleId }),
    ...(verdict.approvers === undefined || (verdict.source !== 'memory' && verdict.source !== 'grant')
      ? {}
      : { approvers: verdict.approvers }),
    ...(verdict.reason === undefined ? {} : { reason: verdict.reason }),
    ...(verdict.by === undefined ? {} : { by: verdict.by }),
    ...(verdict.grantId === undefined ? {} : { grantId: verdict.grantId }),
  };
  const audit = signDecision(agent.settings.decisionSecret, snapshot, unsigned);
  return verdict.action === 'allow'
    ? { kind: 'run', record: { ...base, status: 'approved' }, audit }
    : { kind: 'settled', record: { ...base, status: 'denied', result: denialResult(verdict.reason, 'policy') }, audit };
}

/**
 * Decides every call of the current turn: validate its input, then ask the
 * policy whether it runs, waits for a person, or is refused. Effects (ids,
 * time, tool predicates) happen here; the result is plain data for the
 * statechart.
 */
export async function evaluateCalls(
  agent: Agent,
  snapshot: AgentSnapshot,
  refuse: (error: Parameters<GrantRefusal>[0] | Parameters<RuleRefusal>[0]) => void,
): Promise<CallEvaluation[]> {
  const grants = new TurnGrants(agent, snapshot, refuse);
  const now = agent.settings.clock();
  const pendingRules = storedRulesOf(agent, refuse);
  const storedRules = pendingRules && (await pendingRules);
  const seen = new Set<string>();
  const evaluations: CallEvaluation[] = [];
  const calls = currentToolCalls(snapshot);
  for (const call of calls) {
    const base: CallBase = { toolCallId: call.id, toolName: call.name, attempts: 0 };
    const parsed = await parseCall(agent, call, seen);
    if ('failure' in parsed) {
      evaluations.push({ kind: 'settled', record: { ...base, status: 'failed', result: errorResult(parsed.failure) } });
      continue;
    }
    rememberParsedInput(calls, call, parsed.tool.input, parsed.input);
    const ctx: ToolContext = { runId: snapshot.runId, toolCallId: call.id, messages: snapshot.messages };
    const verdict = await verdictOf(agent, snapshot, call, parsed.input, ctx, storedRules, grants);
    evaluations.push(
      verdict.action === 'ask'
        ? askFor(agent, snapshot, call, parsed, verdict, base, now)
        : settledBy(agent, snapshot, call, verdict, base, now),
    );
  }
  return evaluations;
}
