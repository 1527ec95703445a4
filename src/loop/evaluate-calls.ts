import { randomUUID } from 'node:crypto';
import type { Agent } from '../agent/agent-types.js';
import type { CallEvaluation } from '../machine/agent-machine.js';
import { buildApprovalRequest, requestSettingsOf } from '../decisions/approval-request.js';
import { findShapeProblem, shapeIssue } from '../run/argument-shape.js';
import type { ToolContext } from '../tools/define-tool.js';
import { digestOf } from '../run/digest.js';
import { hasApproverFunction } from '../decisions/authority/who-may-decide.js';
import { nudgePlanOf } from '../policy/nudge-plan.js';
import { askedTerms, type CallAsk } from '../policy/call-ask.js';
import { signDecision } from '../decisions/decision-signature.js';
import { errorResult, denialResult } from '../run/tool-results.js';
import { rememberParsedInput } from '../tools/parsed-inputs.js';
import { currentToolCalls } from '../run/current-tool-calls.js';
import type { AuditEntry, ToolCall } from '../run/types.js';
import type { AgentSnapshot } from '../run/agent-snapshot.js';
import type { AnyTool } from '../tools/define-tool.js';
import { type GrantRefusal, TurnGrants } from '../policy/grants/grant-coverage.js';
import type { RuleRefusal } from '../policy/stored-rules.js';
import { shadowRuleFor, storedRulesOf, type Verdict, verdictOf } from './call-verdict.js';

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

/**
 * A call the verdict puts to a person: its pending record and the request, signed; its terms narrowed by the call's
 * own ask (a request from a caller outside the loop), or a denial when that ask leaves nobody who may decide.
 */
function askFor(
  agent: Agent,
  snapshot: AgentSnapshot,
  call: ToolCall,
  parsed: { tool: AnyTool; input: unknown },
  verdict: Verdict,
  base: CallBase,
  now: number,
  ask: CallAsk | undefined,
  shadowRuleId: string | undefined,
): CallEvaluation {
  const expiry = { ttlMs: parsed.tool.approvalTtlMs ?? agent.settings.approvalTtlMs, now };
  const terms = askedTerms(ask, verdict, expiry, ask?.question ?? parsed.tool.question);
  if ('refused' in terms)
    return settledBy(agent, snapshot, call, { ...verdict, action: 'deny', reason: terms.refused }, base, now);
  const approvalId = `apr_${randomUUID()}`;
  const request = buildApprovalRequest(
    {
      run: snapshot,
      approvalId,
      toolCallId: call.id,
      tool: parsed.tool,
      args: call.args,
      parsedInput: parsed.input,
      description: terms.description,
      expiresAt: terms.expiresAt,
      reason: terms.reason,
      approvers: terms.approvers,
      approverFunction: hasApproverFunction(agent, call.name, verdict.ruleId),
      ruleId: verdict.ruleId,
      nudges: verdict.nudges ?? nudgePlanOf(undefined, parsed.tool, agent.settings.remindAfterMs),
      quorum: terms.quorum,
      question: terms.question,
      decisions: verdict.decisions,
      // The call's own ask may name approvers or a quorum the verdict did not: a rule must not stand in for them either.
      shadowRuleId: terms.approvers === undefined && terms.quorum === undefined ? shadowRuleId : undefined,
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
    const ask = agent.settings.callAsk?.(snapshot, call);
    const found = await verdictOf(agent, snapshot, call, parsed.input, ctx, storedRules?.live, grants);
    // A question is for a person to answer: nothing but a person's answer lets it through (a rule may still deny it).
    const asksQuestion = (ask?.question ?? parsed.tool.question) !== undefined;
    const verdict: Verdict = asksQuestion && found.action === 'allow' ? { ...found, action: 'ask' } : found;
    if (verdict.action !== 'ask') {
      evaluations.push(settledBy(agent, snapshot, call, verdict, base, now));
      continue;
    }
    const shadowRuleId =
      storedRules === undefined || asksQuestion
        ? undefined
        : await shadowRuleFor(agent, call, parsed.input, ctx, storedRules.shadow, verdict);
    evaluations.push(askFor(agent, snapshot, call, parsed, verdict, base, now, ask, shadowRuleId));
  }
  return evaluations;
}
