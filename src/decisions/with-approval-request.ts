// A request added to a waiting run from outside the model's turn (an external system asks a person to approve a
// call on an existing run). It joins the turn as a call of its own: a record, a request signed like any other, and
// (once the turn's results are written) an assistant message of its own with its result, so an approval runs it
// through the same gate and the same runner as the model's calls, and a denial is recorded like theirs.
import { randomUUID } from 'node:crypto';
import { ConfigError, RunNotAwaitingApprovalError, ToolNotFoundError } from '../errors.js';
import { agentOfRun } from '../agent/create-agent.js';
import type { Agent } from '../agent/agent-types.js';
import { buildApprovalRequest, requestSettingsOf, type RequestSettings, type RequestTool } from './approval-request.js';
import { listsPerson } from './authority/person-name.js';
import { approverListOf, hasApproverFunction } from './authority/who-may-decide.js';
import { nudgePlanOf } from '../policy/nudge-plan.js';
import { resolveQuorum } from '../policy/quorum.js';
import { findShapeProblem, shapeIssue } from '../run/argument-shape.js';
import { offeredDecisions, toolDecisions } from '../run/decision-kinds.js';
import { isPlainJson } from '../run/plain-json.js';
import { assertSnapshotShape } from '../run/snapshot-codec.js';
import { step } from '../machine/step.js';
import type { ApprovalRequest, DecisionKind, Quorum, ToolCallRecord } from '../run/types.js';
import type { AgentSnapshot } from '../run/agent-snapshot.js';
import { parseOptions } from '../options.js';
import { type AddRequestOptions, addSchema, type NewApprovalRequest, requestSchema } from './new-approval-request.js';

const WHERE = 'withApprovalRequest';

/** The arguments as plain JSON, copied (the caller's object is never frozen or kept): refused past the depth limit, with a forbidden key, or holding what JSON cannot. */
function plainArgs(args: { readonly [key: string]: unknown }): { readonly [key: string]: unknown } {
  const badShape = findShapeProblem(args);
  if (badShape)
    throw new ConfigError(
      `${WHERE}: args${badShape.path ? `.${badShape.path}` : ''} ${shapeIssue(badShape)}. Nothing was added.`,
    );
  if (!isPlainJson(args)) {
    throw new ConfigError(
      `${WHERE}: args must be plain JSON (strings, finite numbers, booleans, null, arrays and plain objects), as a model's call would be. Nothing was added.`,
    );
  }
  return JSON.parse(JSON.stringify(args)) as { readonly [key: string]: unknown };
}

/** Every call id the run has used: a new call may not take one (its idempotency key would be an earlier call's). */
function usedCallIds(snapshot: AgentSnapshot): Set<string> {
  const ids = new Set<string>();
  for (const message of snapshot.messages) {
    for (const call of message.toolCalls ?? []) ids.add(call.id);
    if (message.toolCallId !== undefined) ids.add(message.toolCallId);
  }
  for (const record of snapshot.toolCalls) ids.add(record.toolCallId);
  for (const entry of snapshot.audit) ids.add(entry.toolCallId);
  return ids;
}

function refuseDuplicates(snapshot: AgentSnapshot, approvalId: string, toolCallId: string): void {
  if (
    snapshot.pendingApprovals.some((item) => item.approvalId === approvalId) ||
    snapshot.audit.some((entry) => entry.approvalId === approvalId)
  ) {
    throw new ConfigError(
      `${WHERE}: approval ${approvalId} already exists in run ${snapshot.runId}; give a new approvalId, or leave it out for a fresh one. Nothing was added.`,
    );
  }
  if (usedCallIds(snapshot).has(toolCallId)) {
    throw new ConfigError(
      `${WHERE}: tool call ${toolCallId} already exists in run ${snapshot.runId}; give every added call an id of its own. Nothing was added.`,
    );
  }
}

/** True when anything in the run is signed: its agent has a decisionSecret, which only the agent holds. */
function runIsSigned(snapshot: AgentSnapshot): boolean {
  return (
    snapshot.pendingApprovals.some((item) => item.signature !== undefined) ||
    snapshot.audit.some((entry) => entry.signature !== undefined)
  );
}

/** Who may decide, from the request, within what the tool itself names: an added request may narrow them, never widen them. */
function deciders(
  agent: Agent | undefined,
  request: NewApprovalRequest,
): { approvers?: readonly string[]; quorum?: Quorum } {
  const tool = agent?.tools.get(request.toolName);
  const own = tool === undefined ? undefined : approverListOf(undefined, tool);
  const ownQuorum = tool === undefined ? undefined : resolveQuorum(tool.approvals);
  if (own !== undefined && request.approvers !== undefined) {
    const outside = request.approvers.filter((name) => !listsPerson(own, name));
    if (outside.length > 0) {
      throw new ConfigError(
        `${WHERE}: ${outside.join(', ')} may not decide ${request.toolName}, whose approvers are ${own.join(', ')}; name approvers from that list. Nothing was added.`,
      );
    }
  }
  if (ownQuorum !== undefined && request.quorum !== undefined && request.quorum.required < ownQuorum.required) {
    throw new ConfigError(
      `${WHERE}: ${request.toolName} needs ${ownQuorum.required} approvals and the request asks for ${request.quorum.required}; ask for at least ${ownQuorum.required}. Nothing was added.`,
    );
  }
  const approvers = request.approvers ?? own;
  const quorum = request.quorum === undefined ? ownQuorum : resolveQuorum(request.quorum);
  return { ...(approvers === undefined ? {} : { approvers }), ...(quorum === undefined ? {} : { quorum }) };
}

/** The decisions the request offers: its own list, within the tool's; an added request may narrow them, never widen them. */
function offered(agent: Agent | undefined, request: NewApprovalRequest): readonly DecisionKind[] | undefined {
  const tool = agent?.tools.get(request.toolName);
  const own = tool === undefined ? undefined : toolDecisions(tool);
  const outside = own === undefined ? [] : (request.decisions ?? []).filter((kind) => !own.includes(kind));
  if (outside.length > 0) {
    throw new ConfigError(
      `${WHERE}: ${request.toolName} does not offer ${outside.map((kind) => `'${kind}'`).join(', ')} (its decisions are ${own!.map((kind) => `'${kind}'`).join(', ')}); name decisions from that list, or leave decisions out. Nothing was added.`,
    );
  }
  return offeredDecisions(own, request.decisions);
}

/** The tool the request is about, its arguments checked against its input schema; without the agent, its name and the request's description. */
function toolOf(
  agent: Agent | undefined,
  request: NewApprovalRequest,
  args: unknown,
): { tool: RequestTool; parsedInput: unknown } {
  if (agent === undefined)
    return {
      tool: { name: request.toolName, description: request.description ?? `Run ${request.toolName}` },
      parsedInput: args,
    };
  // `has`, as for a model's call: a tool a source stopped offering is not offered to a new call.
  const tool = agent.tools.has(request.toolName) ? agent.tools.get(request.toolName) : undefined;
  if (!tool) throw new ToolNotFoundError(request.toolName, agent.name);
  const parsed = tool.input.safeParse(args);
  if (!parsed.success) {
    const detail = parsed.error.issues
      .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
      .join('; ');
    throw new ConfigError(
      `${WHERE}: the args do not fit ${tool.name}'s input schema (${detail}); fix them. Nothing was added.`,
    );
  }
  return { tool, parsedInput: parsed.data };
}

/** An expiry in the future, and no later than the tool's or the agent's `approvalTtlMs` allows: an added request may wait less long, never longer. */
function checkExpiry(request: NewApprovalRequest, agent: Agent | undefined, now: number): void {
  const expiresAt = request.expiresAt;
  if (expiresAt === undefined) return;
  if (expiresAt <= now) {
    throw new ConfigError(
      `${WHERE}: expiresAt ${new Date(expiresAt).toISOString()} has passed; give a time in the future, or leave it out. Nothing was added.`,
    );
  }
  const ttl =
    agent === undefined
      ? undefined
      : (agent.tools.get(request.toolName)?.approvalTtlMs ?? agent.settings.approvalTtlMs);
  if (ttl !== undefined && expiresAt > now + ttl) {
    throw new ConfigError(
      `${WHERE}: expiresAt ${new Date(expiresAt).toISOString()} is later than ${request.toolName}'s approvalTtlMs (${ttl} ms) allows; give ${new Date(now + ttl).toISOString()} or earlier, or leave it out. Nothing was added.`,
    );
  }
}

/** The agent's request settings at `now`; without the agent, no expiry of its own, denial at expiry, no secret. */
function settingsOf(agent: Agent | undefined, now: number): RequestSettings {
  return agent === undefined
    ? { now, approvalTtlMs: undefined, onExpire: 'deny', decisionSecret: undefined, present: {} }
    : requestSettingsOf(agent.settings, now);
}

/**
 * Adds a request to a run that waits for people, from outside the model's turn (an external system asks a person to
 * approve a call on an existing run), and returns the new snapshot; the input is untouched. The run stays
 * `awaitingApproval` with one more pending request, built and signed like the model's (display copy, digest, expiry,
 * the agent's `decisionSecret`). Decide it with `withApprovalResponse` as any other: once every request of the turn is
 * decided, `agent.execute(next)` runs the approved call once, through the same gate, and the model reads its result
 * (or the denial) after the results of its own calls, as an assistant message of the added call followed by its
 * result. Pass `{ agent }` to check the tool and its arguments and to sign; it is required for a run whose agent has a
 * decisionSecret. Refused: a run that is not waiting (ended, cancelled or running), an approval or call id the run
 * already has, an unknown tool, arguments the tool's schema refuses, approvers, a quorum or decisions wider than the
 * tool's own.
 *
 * @example
 * const next = withApprovalRequest(snap, {
 *   toolCallId: 'billing_refund_8812',
 *   toolName: 'refund',
 *   args: { orderId: '8812', amount: 40 },
 *   reason: 'Billing flagged a double charge',
 * }, { agent });
 * const { approvalId, signature } = next.pendingApprovals.at(-1)!; // decided like any other request
 * const approved = withApprovalResponse(next, { approvalId, approved: true, approvedBy: 'alice', ...(signature ? { signature } : {}) }, { agent });
 * const done = await agent.execute(approved); // once the turn's other requests are decided too: runs refund once
 */
export function withApprovalRequest(
  snapshot: AgentSnapshot,
  request: NewApprovalRequest,
  options: AddRequestOptions = {},
): AgentSnapshot {
  assertSnapshotShape(snapshot);
  parseOptions(requestSchema, request, WHERE, { subject: 'request' });
  parseOptions(addSchema, options, WHERE);
  const approvalId = request.approvalId ?? `apr_${randomUUID()}`;
  if (snapshot.status !== 'awaitingApproval')
    throw new RunNotAwaitingApprovalError(snapshot.runId, approvalId, snapshot.status, 'added');
  const agent = options.agent === undefined ? undefined : agentOfRun(snapshot, options.agent, WHERE);
  if (agent === undefined && runIsSigned(snapshot)) {
    throw new ConfigError(
      `${WHERE}: run ${snapshot.runId} is signed with agent ${snapshot.agentName}'s decisionSecret, which the added request must be signed with too; pass the agent as the third argument: withApprovalRequest(snapshot, request, { agent }).`,
      'missing_option',
    );
  }
  refuseDuplicates(snapshot, approvalId, request.toolCallId);
  const args = plainArgs(request.args);
  const { tool, parsedInput } = toolOf(agent, request, args);
  const now = agent === undefined ? Date.now() : agent.settings.clock();
  checkExpiry(request, agent, now);
  const built: ApprovalRequest = buildApprovalRequest(
    {
      run: snapshot,
      approvalId,
      toolCallId: request.toolCallId,
      tool,
      args,
      parsedInput,
      description: request.description,
      expiresAt: request.expiresAt,
      reason: request.reason,
      ...deciders(agent, request),
      decisions: offered(agent, request),
      approverFunction: agent === undefined ? undefined : hasApproverFunction(agent, request.toolName, undefined),
      nudges:
        agent === undefined
          ? undefined
          : nudgePlanOf(undefined, agent.tools.get(request.toolName)!, agent.settings.remindAfterMs),
    },
    settingsOf(agent, now),
  );
  const record: ToolCallRecord = {
    toolCallId: request.toolCallId,
    toolName: request.toolName,
    status: 'pending',
    approvalId,
    attempts: 0,
    added: { args },
  };
  return step(snapshot, { type: 'REQUEST_ADDED', at: now, record, request: built });
}
