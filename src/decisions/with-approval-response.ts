import {
  ApprovalExpiredError,
  ApprovalSignatureError,
  ConfigError,
  DecisionConflictError,
  InvalidEditError,
  RunNotAwaitingApprovalError,
  ToolNotFoundError,
  UnknownApprovalError,
} from '../errors.js';
import { findShapeProblem, shapeIssue } from '../run/argument-shape.js';
import type { Decision } from '../machine/agent-machine.js';
import { coverageFields } from './authority/coverage-fields.js';
import { castVote, isQuorumRequest, voteAfterOutcome } from './cast-vote.js';
import { signDecision } from './decision-signature.js';
import { digestOf, safeEqual } from '../run/digest.js';
import { assertArgsMatchIsData } from '../run/grant-bounds.js';
import { assertSnapshotShape } from '../run/snapshot-codec.js';
import {
  checkApprover,
  checkOffered,
  checkScope,
  type Decider,
  isExpired,
  sameOutcome,
  verifyRequestIntegrity,
} from './response-checks.js';
import { answeredResponse } from './answered-response.js';
import { delegateHolding, withChildDecision } from './child-decision.js';
import { siblingsApprovedByMemory, siblingsCoveredByGrant } from './sibling-decisions.js';
import { type DecideOptions, decideSchema, deciderOf, responseSchema } from './decider-of.js';
import { step } from '../machine/step.js';
import { denialResult } from '../run/tool-results.js';
import type { ApprovalRequest, ApprovalResponse, AuditEntry } from '../run/types.js';
import type { AgentSnapshot } from '../run/agent-snapshot.js';
import { parseOptions } from '../options.js';

/**
 * Records a decision and returns the new snapshot; the input is untouched.
 * When the last pending request is decided the run is ready to resume with
 * `agent.execute(next)`; until then it stays `awaitingApproval`. An identical
 * repeat of a recorded decision returns the snapshot unchanged. On a request
 * several people must approve (`approvals` on its rule or tool) the response
 * is one vote: it is added to `request.votes` until the quorum is met (or a
 * deny settles it), and only then is the decision recorded.
 *
 * @example
 * const next = withApprovalResponse(snap, {
 *   approvalId: snap.pendingApprovals[0]!.approvalId,
 *   approved: true,
 *   approvedBy: 'alice',
 * }, { agent });
 * const done = await agent.execute(next);
 */
export function withApprovalResponse(
  snapshot: AgentSnapshot,
  given: ApprovalResponse,
  options: DecideOptions = {},
): AgentSnapshot {
  assertSnapshotShape(snapshot);
  assertArgsMatchIsData(given?.grant?.argsMatch, 'withApprovalResponse');
  parseOptions(responseSchema, given, 'withApprovalResponse', { subject: 'response' });
  parseOptions(decideSchema, options, 'withApprovalResponse');
  const holder = delegateHolding(snapshot, given.approvalId);
  if (holder !== undefined)
    return withChildDecision(snapshot, holder, given.approvalId, options.agent, (child, agent) =>
      withApprovalResponse(child, given, agent === undefined ? {} : { agent }),
    );
  const response = answeredResponse(snapshot, given);
  const agent = deciderOf(snapshot, response, options.agent);
  if (
    response.dismissed === true &&
    (response.approved || response.args !== undefined || (response.scope ?? 'once') !== 'once')
  ) {
    throw new ConfigError(
      'withApprovalResponse: a dismissed request was not decided, so it goes with approved: false and no args or scope; send { approvalId, approved: false, dismissed: true }.',
    );
  }
  checkScope(snapshot, response);
  const editedArgsDigest = response.args === undefined ? undefined : digestOf(response.args);
  const recorded = snapshot.audit.find((entry) => entry.approvalId === response.approvalId);
  if (recorded?.votes !== undefined)
    return voteAfterOutcome(snapshot, { ...recorded, votes: recorded.votes }, response);
  if (recorded) return repeatOf(agent, snapshot, recorded, response, editedArgsDigest);
  const request = decidableRequest(agent, snapshot, response);
  checkOffered(request, response);
  // The agent's clock decides expiry and the decision's time; a caller's respondedAt is only recorded (claimedAt).
  const respondedAt = agent.settings.clock();
  if (isExpired(request, respondedAt)) {
    throw new ApprovalExpiredError(request.approvalId, request.expiresAt!, respondedAt);
  }
  checkApprover(agent, request, response.approvedBy);
  if (agent.settings.decisionSecret !== undefined) {
    if (
      response.signature === undefined ||
      request.signature === undefined ||
      !safeEqual(response.signature, request.signature)
    ) {
      throw new ApprovalSignatureError(
        request.approvalId,
        'the response must echo the signature of the request it decides (request.signature).',
      );
    }
  }
  if (isQuorumRequest(request)) return castVote(agent, snapshot, request, response, respondedAt);
  const editedArgs = checkedEdit(agent, request, response);
  return decide(agent, snapshot, request, response, { respondedAt, editedArgs, editedArgsDigest });
}

/** A response for an approval already decided: the same snapshot for an identical repeat, else why it is refused. */
function repeatOf(
  agent: Decider,
  snapshot: AgentSnapshot,
  recorded: AuditEntry,
  response: ApprovalResponse,
  editedArgsDigest: string | undefined,
): AgentSnapshot {
  if (sameOutcome(recorded, response, editedArgsDigest)) return snapshot;
  // The expiry already denied it: say so, as before the expiry was applied (the request, and its exact expiresAt, are gone).
  if (recorded.source === 'expiry') {
    throw new ApprovalExpiredError(response.approvalId, recorded.at, agent.settings.clock());
  }
  throw new DecisionConflictError(response.approvalId, {
    decision: recorded.decision,
    at: recorded.at,
    scope: recorded.scope,
    ...(recorded.by === undefined ? {} : { by: recorded.by }),
    ...(recorded.editedArgsDigest === undefined ? {} : { editedArgsDigest: recorded.editedArgsDigest }),
  });
}

/** The pending request a response decides, on a run that waits for people, its signature checked first. */
function decidableRequest(agent: Decider, snapshot: AgentSnapshot, response: ApprovalResponse): ApprovalRequest {
  const request = snapshot.pendingApprovals.find((item) => item.approvalId === response.approvalId);
  if (!request) {
    throw new UnknownApprovalError(
      snapshot.runId,
      response.approvalId,
      snapshot.pendingApprovals.map((item) => item.approvalId),
    );
  }
  if (snapshot.status !== 'awaitingApproval') {
    throw new RunNotAwaitingApprovalError(snapshot.runId, response.approvalId, snapshot.status);
  }
  // First the request itself: the checks that follow read its expiry and approvers, which only its signature vouches for.
  verifyRequestIntegrity(agent, snapshot, request, response.approved);
  return request;
}

/** Edited arguments, checked against the tool's schema; undefined when the response edits nothing. */
function checkedEdit(agent: Decider, request: ApprovalRequest, response: ApprovalResponse): unknown {
  if (response.args === undefined) return undefined;
  if (!response.approved)
    throw new ConfigError(
      `withApprovalResponse: approval ${request.approvalId} is denied; edited args only go with approved: true.`,
    );
  const tool = agent.tools.get(request.toolName);
  if (!tool) throw new ToolNotFoundError(request.toolName, agent.name);
  const badShape = findShapeProblem(response.args);
  if (badShape)
    throw new InvalidEditError(request.approvalId, request.toolName, [
      { path: badShape.path, message: shapeIssue(badShape) },
    ]);
  const check = tool.input.safeParse(response.args);
  if (!check.success) {
    throw new InvalidEditError(
      request.approvalId,
      request.toolName,
      check.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message })),
    );
  }
  return response.args;
}

/** One person's decision, signed, with the calls its scope covers too, applied to the run. */
function decide(
  agent: Decider,
  snapshot: AgentSnapshot,
  request: ApprovalRequest,
  response: ApprovalResponse,
  {
    respondedAt,
    editedArgs,
    editedArgsDigest,
  }: { respondedAt: number; editedArgs: unknown; editedArgsDigest: string | undefined },
): AgentSnapshot {
  const scope = response.scope ?? 'once';
  const standing = scope === 'session' || scope === 'agent';
  const audit = signDecision(agent.settings.decisionSecret, snapshot, {
    approvalId: request.approvalId,
    toolCallId: request.toolCallId,
    toolName: request.toolName,
    decision: response.approved ? 'approved' : 'denied',
    source: response.dismissed === true ? 'dismissed' : 'human',
    scope,
    at: respondedAt,
    argsDigest: request.argsDigest,
    ...(response.approvedBy === undefined ? {} : { by: response.approvedBy }),
    ...(response.reason === undefined ? {} : { reason: response.reason }),
    ...(editedArgsDigest === undefined ? {} : { editedArgsDigest }),
    ...(standing && response.grant !== undefined ? { grant: response.grant } : {}),
    ...coverageFields(request),
    ...(response.respondedAt === undefined ? {} : { claimedAt: response.respondedAt }),
  });
  const decisions: Decision[] = [
    {
      approvalId: request.approvalId,
      approved: response.approved,
      audit,
      ...(editedArgs === undefined ? {} : { editedArgs }),
      ...(response.approved
        ? {}
        : { denialResult: denialResult(response.reason, response.dismissed === true ? 'dismissal' : 'person') }),
    },
  ];
  if (response.approved && scope === 'run') {
    decisions.push(...siblingsApprovedByMemory(agent, snapshot, request, response.approvedBy, respondedAt));
  }
  if (standing && response.dismissed !== true)
    decisions.push(...siblingsCoveredByGrant(agent, snapshot, request, response, respondedAt));
  return step(snapshot, { type: 'DECIDED', at: respondedAt, decisions });
}

/**
 * Approves every pending request of the run.
 *
 * @example
 * const next = approveAll(snap, 'alice', { agent });
 */
export function approveAll(
  snapshot: AgentSnapshot,
  approvedBy: string | undefined,
  options: DecideOptions = {},
): AgentSnapshot {
  return decideAll(snapshot, { approved: true, ...(approvedBy === undefined ? {} : { approvedBy }) }, options);
}

/**
 * Denies every pending request of the run, with one reason for all.
 *
 * @example
 * const next = denyAll(snap, 'alice', 'not during the freeze', { agent });
 */
export function denyAll(
  snapshot: AgentSnapshot,
  approvedBy: string | undefined,
  reason: string | undefined,
  options: DecideOptions = {},
): AgentSnapshot {
  return decideAll(
    snapshot,
    {
      approved: false,
      ...(approvedBy === undefined ? {} : { approvedBy }),
      ...(reason === undefined ? {} : { reason }),
    },
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
    next = withApprovalResponse(
      next,
      {
        ...decision,
        approvalId: request.approvalId,
        ...(request.signature === undefined ? {} : { signature: request.signature }),
      },
      options,
    );
  }
  return next;
}
