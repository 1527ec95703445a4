import { z } from 'zod';
import {
  ApprovalExpiredError,
  ApprovalSignatureError,
  ApproverNotAllowedError,
  ConfigError,
  DecisionConflictError,
  InvalidEditError,
  RunNotAwaitingApprovalError,
  ToolNotFoundError,
  UnknownApprovalError,
} from '../errors.js';
import { agentFor, type Agent } from './agent.js';
import { findShapeProblem, shapeIssue } from './argument-shape.js';
import type { Decision } from './agent-machine.js';
import { signRequest } from './approval-request.js';
import { signDecision } from './decision-signature.js';
import { digestOf, safeEqual } from './digest.js';
import { assertSnapshotShape } from './snapshot-codec.js';
import { currentToolCalls } from './evaluate-calls.js';
import { step } from './step.js';
import { denialResult } from './tool-results.js';
import type { AgentSnapshot, ApprovalRequest, ApprovalResponse, AuditEntry } from './types.js';

export interface DecideOptions {
  /** The agent the run belongs to; found by the snapshot's agent name otherwise. */
  readonly agent?: Agent;
}

const responseSchema = z.object({
  approvalId: z.string().min(1, 'names no approval; copy approvalId from snapshot.pendingApprovals'),
  approved: z.boolean({ error: 'must be true or false' }),
  reason: z.string().max(4000).optional(),
  approvedBy: z.string().min(1).max(256).optional(),
  respondedAt: z.number().finite().optional(),
  args: z.unknown().optional(),
  scope: z.enum(['once', 'run']).optional(),
  signature: z.string().optional(),
});

/** Same outcome: same verdict, same scope, same edit. Who and when do not matter. */
function sameOutcome(entry: AuditEntry, response: ApprovalResponse, editedArgsDigest: string | undefined): boolean {
  return (
    (entry.decision === 'approved') === response.approved &&
    entry.scope === (response.scope ?? 'once') &&
    entry.editedArgsDigest === editedArgsDigest
  );
}

function checkApprover(agent: Agent, request: ApprovalRequest, approvedBy: string | undefined): void {
  if (request.approvers && (approvedBy === undefined || !request.approvers.includes(approvedBy))) {
    throw new ApproverNotAllowedError(request.approvalId, approvedBy, request.approvers);
  }
  const predicates = [
    agent.tools.get(request.toolName)?.approvers,
    agent.settings.rules.find(request.ruleId)?.rule.approvers,
  ];
  for (const approvers of predicates) {
    if (typeof approvers === 'function' && !approvers(approvedBy)) {
      throw new ApproverNotAllowedError(request.approvalId, approvedBy, undefined);
    }
  }
}

/** The real arguments of a pending call must still be the ones the request was signed for. */
export function verifyRequestIntegrity(agent: Agent, snapshot: AgentSnapshot, request: ApprovalRequest): void {
  const secret = agent.settings.decisionSecret;
  if (secret === undefined) return;
  const call = currentToolCalls(snapshot).find((item) => item.id === request.toolCallId);
  if (!call || call.name !== request.toolName || digestOf(call.args) !== request.argsDigest) {
    throw new ApprovalSignatureError(request.approvalId, 'the pending call no longer matches what was put to the approver (arguments or tool changed). Nothing was run.');
  }
  const expected = signRequest(secret, request, snapshot.runId);
  if (request.signature === undefined || !safeEqual(request.signature, expected)) {
    throw new ApprovalSignatureError(request.approvalId, 'the request signature is missing or does not match; the snapshot was altered. Nothing was run.');
  }
}

/**
 * Records a decision and returns the new snapshot; the input is untouched.
 * When the last pending request is decided the run is ready to resume with
 * `agent.execute(next)`; until then it stays `awaitingApproval`. An identical
 * repeat of a recorded decision returns the snapshot unchanged.
 *
 * @example
 * const next = withApprovalResponse(snap, {
 *   approvalId: snap.pendingApprovals[0]!.approvalId,
 *   approved: true,
 *   approvedBy: 'alice',
 * });
 * const done = await agent.execute(next);
 */
export function withApprovalResponse(snapshot: AgentSnapshot, response: ApprovalResponse, options: DecideOptions = {}): AgentSnapshot {
  assertSnapshotShape(snapshot);
  const parsed = responseSchema.safeParse(response);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`withApprovalResponse: ${issue.path.join('.') || 'response'} ${issue.message}.`);
  }
  const agent = agentFor(snapshot, options.agent);
  const editedArgsDigest = response.args === undefined ? undefined : digestOf(response.args);

  const recorded = snapshot.audit.find((entry) => entry.approvalId === response.approvalId);
  if (recorded) {
    if (sameOutcome(recorded, response, editedArgsDigest)) return snapshot;
    // The expiry already denied it: say so, as before the expiry was applied (the request, and its exact expiresAt, are gone).
    if (recorded.source === 'expiry') {
      throw new ApprovalExpiredError(response.approvalId, recorded.at, response.respondedAt ?? agent.settings.clock());
    }
    throw new DecisionConflictError(response.approvalId, {
      decision: recorded.decision,
      at: recorded.at,
      scope: recorded.scope,
      ...(recorded.by === undefined ? {} : { by: recorded.by }),
      ...(recorded.editedArgsDigest === undefined ? {} : { editedArgsDigest: recorded.editedArgsDigest }),
    });
  }
  const request = snapshot.pendingApprovals.find((item) => item.approvalId === response.approvalId);
  if (!request) {
    throw new UnknownApprovalError(snapshot.runId, response.approvalId, snapshot.pendingApprovals.map((item) => item.approvalId));
  }
  if (snapshot.status !== 'awaitingApproval') {
    throw new RunNotAwaitingApprovalError(snapshot.runId, response.approvalId, snapshot.status);
  }
  const respondedAt = response.respondedAt ?? agent.settings.clock();
  if (request.expiresAt !== undefined && respondedAt >= request.expiresAt && (request.onExpire ?? 'deny') === 'deny') {
    throw new ApprovalExpiredError(request.approvalId, request.expiresAt, respondedAt);
  }
  checkApprover(agent, request, response.approvedBy);
  if (agent.settings.decisionSecret !== undefined) {
    if (response.signature === undefined || request.signature === undefined || !safeEqual(response.signature, request.signature)) {
      throw new ApprovalSignatureError(request.approvalId, 'the response must echo the signature of the request it decides (request.signature).');
    }
  }
  verifyRequestIntegrity(agent, snapshot, request);

  let editedArgs: unknown;
  if (response.args !== undefined) {
    if (!response.approved) throw new ConfigError(`withApprovalResponse: approval ${request.approvalId} is denied; edited args only go with approved: true.`);
    const tool = agent.tools.get(request.toolName);
    if (!tool) throw new ToolNotFoundError(request.toolName, agent.name);
    const badShape = findShapeProblem(response.args);
    if (badShape) throw new InvalidEditError(request.approvalId, request.toolName, [{ path: badShape.path, message: shapeIssue(badShape) }]);
    const check = tool.input.safeParse(response.args);
    if (!check.success) {
      throw new InvalidEditError(
        request.approvalId,
        request.toolName,
        check.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message })),
      );
    }
    editedArgs = response.args;
  }

  const scope = response.scope ?? 'once';
  const secret = agent.settings.decisionSecret;
  const audit = signDecision(secret, snapshot.runId, {
    approvalId: request.approvalId,
    toolCallId: request.toolCallId,
    toolName: request.toolName,
    decision: response.approved ? 'approved' : 'denied',
    source: 'human',
    scope,
    at: respondedAt,
    argsDigest: request.argsDigest,
    ...(response.approvedBy === undefined ? {} : { by: response.approvedBy }),
    ...(response.reason === undefined ? {} : { reason: response.reason }),
    ...(editedArgsDigest === undefined ? {} : { editedArgsDigest }),
  });
  const decisions: Decision[] = [
    {
      approvalId: request.approvalId,
      approved: response.approved,
      audit,
      ...(editedArgs === undefined ? {} : { editedArgs }),
      ...(response.approved ? {} : { denialResult: denialResult(response.reason, 'person') }),
    },
  ];
  if (response.approved && scope === 'run') {
    // Approving a tool for the run also answers its other calls waiting in this turn.
    for (const sibling of snapshot.pendingApprovals) {
      if (sibling.approvalId === request.approvalId || sibling.toolName !== request.toolName) continue;
      decisions.push({
        approvalId: sibling.approvalId,
        approved: true,
        audit: signDecision(secret, snapshot.runId, {
          approvalId: sibling.approvalId,
          toolCallId: sibling.toolCallId,
          toolName: sibling.toolName,
          decision: 'approved',
          source: 'memory',
          scope: 'once',
          at: respondedAt,
          argsDigest: sibling.argsDigest,
          reason: `${sibling.toolName} was approved for the rest of this run`,
          ...(response.approvedBy === undefined ? {} : { by: response.approvedBy }),
        }),
      });
    }
  }
  return step(snapshot, { type: 'DECIDED', at: respondedAt, decisions });
}

/**
 * Approves every pending request of the run.
 *
 * @example
 * const next = approveAll(snap, 'alice');
 */
export function approveAll(snapshot: AgentSnapshot, approvedBy?: string, options: DecideOptions = {}): AgentSnapshot {
  return decideAll(snapshot, { approved: true, ...(approvedBy === undefined ? {} : { approvedBy }) }, options);
}

/**
 * Denies every pending request of the run, with one reason for all.
 *
 * @example
 * const next = denyAll(snap, 'alice', 'not during the freeze');
 */
export function denyAll(snapshot: AgentSnapshot, approvedBy?: string, reason?: string, options: DecideOptions = {}): AgentSnapshot {
  return decideAll(
    snapshot,
    { approved: false, ...(approvedBy === undefined ? {} : { approvedBy }), ...(reason === undefined ? {} : { reason }) },
    options,
  );
}

function decideAll(
  snapshot: AgentSnapshot,
  decision: Omit<ApprovalResponse, 'approvalId'>,
  options: DecideOptions,
): AgentSnapshot {
  let next = snapshot;
  for (const request of snapshot.pendingApprovals) {
    if (!next.pendingApprovals.some((item) => item.approvalId === request.approvalId)) continue;
    next = withApprovalResponse(next, { ...decision, approvalId: request.approvalId, ...(request.signature === undefined ? {} : { signature: request.signature }) }, options);
  }
  return next;
}
