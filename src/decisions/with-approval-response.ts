import { z } from 'zod';
import { SNAPSHOT_ALTERED_OR_OTHER_SECRET } from './authority/signature-mismatch.js';
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
import { agentOfRun, agentOption } from '../agent/create-agent.js';
import type { Agent } from '../agent/agent-types.js';
import { compileRules } from '../policy/policy.js';
import { findShapeProblem, shapeIssue } from '../run/argument-shape.js';
import type { Decision } from '../loop/agent-machine.js';
import { signLegacyRequest, signRequest } from './approval-request.js';
import { coverageFields } from './authority/coverage-fields.js';
import { personNameSchema } from './authority/person-name.js';
import { approversNow, mayDecide } from './authority/who-may-decide.js';
import { historyVerifies } from '../policy/nudge.js';
import { castVote, isQuorumRequest, voteAfterOutcome } from './cast-vote.js';
import { SIGNATURE_V2, signDecision } from './decision-signature.js';
import { canonicalJson, digestOf, safeEqual } from '../run/digest.js';
import { argsMatch } from '../policy/grants/args-match.js';
import { assertArgsMatchIsData, grantBoundsSchema, scopeSchema } from '../policy/grants/grant-bounds.js';
import { grantIdOf } from '../policy/grants/grant-of-decision.js';
import { assertSnapshotShape } from '../run/snapshot-codec.js';
import { currentToolCalls } from '../run/current-tool-calls.js';
import { step } from '../loop/step.js';
import { denialResult } from '../run/tool-results.js';
import type { ApprovalRequest, ApprovalResponse, AuditEntry } from '../run/types.js';
import type { AgentSnapshot } from '../run/agent-snapshot.js';
import { optionsObject, parseOptions } from '../kit/options.js';

/**
 * Options of `withApprovalResponse`, `approveAll` and `denyAll`.
 *
 * @example
 * const options: DecideOptions = { agent };
 * const next = withApprovalResponse(snap, { approvalId, approved: true }, options);
 */
export interface DecideOptions {
  /**
   * The agent the run belongs to (`snapshot.agentName`), as `createAgent` returned it: its tools, clock, secret and
   * approvers decide. Needed only where the agent's own knowledge is: to sign with its `decisionSecret`, to check an
   * edit against the tool's schema, and to run a function that says who may decide (`approverFunction` on the
   * request); the request itself carries everything else.
   */
  readonly agent?: Agent;
}

const decideSchema = optionsObject({ agent: agentOption.optional() });

/**
 * What a decision reads of the agent: its name, its tools (edits, grant bounds, approver predicates), its rules, clock and secret.
 * @internal
 */
type Decider = Pick<Agent, 'name' | 'tools'> & { readonly settings: Pick<Agent['settings'], 'rules' | 'clock' | 'decisionSecret'> };

const NO_RULES = compileRules([]);

/**
 * The agent a decision reads, or, without one, the request's own word: no tools, no rules, the process clock and no
 * secret. Refused, naming the fix, where only the agent knows: a signed request, an edit, an approver function.
 */
function deciderOf(snapshot: AgentSnapshot, response: ApprovalResponse, agent: Agent | undefined): Decider {
  if (agent !== undefined) return agentOfRun(snapshot, agent, 'withApprovalResponse');
  const request = snapshot.pendingApprovals.find((item) => item.approvalId === response.approvalId);
  const needs =
    request?.signature !== undefined
      ? `its request is signed with agent ${snapshot.agentName}'s decisionSecret, which the decision must be signed with too`
      : response.args !== undefined
        ? `an edit is checked against the tool's input schema, which only the agent has`
        : request?.approverFunction === true
          ? `a function of agent ${snapshot.agentName}'s tool or rule says who may decide this call`
          : undefined;
  if (needs !== undefined) {
    throw new ConfigError(
      `withApprovalResponse (approval ${response.approvalId}): ${needs}; pass the agent as the third argument: withApprovalResponse(snapshot, response, { agent }).`,
      'missing_option',
    );
  }
  return { name: snapshot.agentName, tools: new Map(), settings: { rules: NO_RULES, clock: Date.now, decisionSecret: undefined } };
}

const responseSchema = optionsObject({
  approvalId: z.string().min(1, 'names no approval; copy approvalId from snapshot.pendingApprovals'),
  approved: z.boolean({ error: 'must be true or false' }),
  reason: z.string().max(4000).optional(),
  approvedBy: personNameSchema.optional(),
  respondedAt: z.number().finite().optional(),
  args: z.unknown().optional(),
  scope: scopeSchema.optional(),
  grant: grantBoundsSchema.optional(),
  signature: z.string().optional(),
  dismissed: z.boolean().optional(),
});

/** Same outcome: same verdict (a dismissal is its own), same scope and bounds, same edit. Who and when do not matter. */
function sameOutcome(entry: AuditEntry, response: ApprovalResponse, editedArgsDigest: string | undefined): boolean {
  return (
    (entry.decision === 'approved') === response.approved &&
    (entry.source === 'dismissed') === (response.dismissed === true) &&
    entry.scope === (response.scope ?? 'once') &&
    canonicalJson(entry.grant ?? null) === canonicalJson(response.grant ?? null) &&
    entry.editedArgsDigest === editedArgsDigest
  );
}

/** A scope and bounds that can be carried out on this run: refused with the fix before anything is recorded. */
function checkScope(snapshot: AgentSnapshot, response: ApprovalResponse): void {
  const scope = response.scope ?? 'once';
  const where = `withApprovalResponse (approval ${response.approvalId})`;
  if (scope === 'session' && snapshot.sessionId === undefined) {
    throw new ConfigError(
      `${where}: scope 'session' needs a run that belongs to a session, and run ${snapshot.runId} has none; start runs with execute({ input, sessionId }) or runtime.start(agent, { input, sessionId }), or use scope 'run' or 'agent'.`,
    );
  }
  if (scope === 'agent' && response.grant?.ttlMs === undefined) {
    throw new ConfigError(`${where}: scope 'agent' covers every run of the agent, so it needs an end: give grant: { ttlMs } (e.g. 15 * 60_000 for 15 minutes).`, 'missing_option');
  }
  if (response.grant !== undefined && scope !== 'session' && scope !== 'agent') {
    throw new ConfigError(`${where}: grant bounds go with scope 'session' or 'agent'; this decision has scope '${scope}'.`);
  }
}

function checkApprover(agent: Decider, request: ApprovalRequest, approvedBy: string | undefined): void {
  if (!mayDecide(agent, request, approvedBy)) throw new ApproverNotAllowedError(request.approvalId, approvedBy, approversNow(request));
}

/**
 * With a decision secret: the request must be signed, over everything the
 * person relied on (display copy, approvers, rule, expiry), and the real
 * arguments of the pending call must still be the ones it was signed for.
 * A request signed the v1 way (before snapshot format 2) did not bind its
 * approvers, rule or expiry, so it may be denied but not approved.
 * @internal the runtime checks a request with it too; users decide through `withApprovalResponse`.
 */
export function verifyRequestIntegrity(agent: Decider, snapshot: AgentSnapshot, request: ApprovalRequest, approving: boolean): void {
  const secret = agent.settings.decisionSecret;
  if (secret === undefined) return;
  const call = currentToolCalls(snapshot).find((item) => item.id === request.toolCallId);
  if (!call || call.name !== request.toolName || digestOf(call.args) !== request.argsDigest) {
    throw new ApprovalSignatureError(request.approvalId, 'the pending call no longer matches what was put to the approver (arguments or tool changed). Nothing was run.');
  }
  // The format is read from the signature itself; without the secret nobody can make a v1 one, so a v2 request cannot be passed off as v1.
  const signature = request.signature ?? '';
  // Reminders and escalations are signed on their own: one added in storage (a forged escalation) is refused.
  if (!historyVerifies(secret, request, snapshot)) {
    throw new ApprovalSignatureError(
      request.approvalId,
      `the request history (reminders and escalations) is not the one the sweeper signed; ${SNAPSHOT_ALTERED_OR_OTHER_SECRET}. Nothing was run.`,
    );
  }
  if (signature.startsWith(SIGNATURE_V2)) {
    if (safeEqual(signature, signRequest(secret, request, snapshot))) return;
  } else if (signature !== '' && safeEqual(signature, signLegacyRequest(secret, request, snapshot.runId))) {
    if (!approving) return;
    throw new ApprovalSignatureError(
      request.approvalId,
      'the request was signed by an older countersign (snapshot format 1), whose signature does not cover its approvers, rule, expiry or display, so it cannot be approved safely. Deny it (the model may ask again) or cancel the run. Nothing was run.',
    );
  }
  throw new ApprovalSignatureError(
    request.approvalId,
    `the request signature is missing or does not match what was put to the approver (arguments, display, approvers, rule or expiry); ${SNAPSHOT_ALTERED_OR_OTHER_SECRET}. Nothing was run.`,
  );
}

/** Whether a request can be decided now, by the runtime's (or caller's) clock. */
function isExpired(request: ApprovalRequest, at: number): boolean {
  return request.expiresAt !== undefined && at >= request.expiresAt && (request.onExpire ?? 'deny') === 'deny';
}

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
export function withApprovalResponse(snapshot: AgentSnapshot, response: ApprovalResponse, options: DecideOptions = {}): AgentSnapshot {
  assertSnapshotShape(snapshot);
  assertArgsMatchIsData(response?.grant?.argsMatch, 'withApprovalResponse');
  parseOptions(responseSchema, response, 'withApprovalResponse', { subject: 'response' });
  parseOptions(decideSchema, options, 'withApprovalResponse');
  const agent = deciderOf(snapshot, response, options.agent);
  if (response.dismissed === true && (response.approved || response.args !== undefined || (response.scope ?? 'once') !== 'once')) {
    throw new ConfigError(
      'withApprovalResponse: a dismissed request was not decided, so it goes with approved: false and no args or scope; send { approvalId, approved: false, dismissed: true }.',
    );
  }
  checkScope(snapshot, response);
  const editedArgsDigest = response.args === undefined ? undefined : digestOf(response.args);
  const recorded = snapshot.audit.find((entry) => entry.approvalId === response.approvalId);
  if (recorded?.votes !== undefined) return voteAfterOutcome(snapshot, { ...recorded, votes: recorded.votes }, response);
  if (recorded) return repeatOf(agent, snapshot, recorded, response, editedArgsDigest);
  const request = decidableRequest(agent, snapshot, response);
  // The agent's clock decides expiry and the decision's time; a caller's respondedAt is only recorded (claimedAt).
  const respondedAt = agent.settings.clock();
  if (isExpired(request, respondedAt)) {
    throw new ApprovalExpiredError(request.approvalId, request.expiresAt!, respondedAt);
  }
  checkApprover(agent, request, response.approvedBy);
  if (agent.settings.decisionSecret !== undefined) {
    if (response.signature === undefined || request.signature === undefined || !safeEqual(response.signature, request.signature)) {
      throw new ApprovalSignatureError(request.approvalId, 'the response must echo the signature of the request it decides (request.signature).');
    }
  }
  if (isQuorumRequest(request)) return castVote(agent, snapshot, request, response, respondedAt);
  const editedArgs = checkedEdit(agent, request, response);
  return decide(agent, snapshot, request, response, { respondedAt, editedArgs, editedArgsDigest });
}

/** A response for an approval already decided: the same snapshot for an identical repeat, else why it is refused. */
function repeatOf(agent: Decider, snapshot: AgentSnapshot, recorded: AuditEntry, response: ApprovalResponse, editedArgsDigest: string | undefined): AgentSnapshot {
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
  return response.args;
}

/** One person's decision, signed, with the calls its scope covers too, applied to the run. */
function decide(
  agent: Decider,
  snapshot: AgentSnapshot,
  request: ApprovalRequest,
  response: ApprovalResponse,
  { respondedAt, editedArgs, editedArgsDigest }: { respondedAt: number; editedArgs: unknown; editedArgsDigest: string | undefined },
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
      ...(response.approved ? {} : { denialResult: denialResult(response.reason, response.dismissed === true ? 'dismissal' : 'person') }),
    },
  ];
  if (response.approved && scope === 'run') {
    decisions.push(...siblingsApprovedByMemory(agent, snapshot, request, response.approvedBy, respondedAt));
  }
  if (standing && response.dismissed !== true) decisions.push(...siblingsCoveredByGrant(agent, snapshot, request, response, respondedAt));
  return step(snapshot, { type: 'DECIDED', at: respondedAt, decisions });
}

/**
 * Approving a tool for the run also answers its other calls waiting in this
 * turn, each checked on its own: one whose request was altered, has expired,
 * or that the decider may not decide stays pending for someone who may.
 */
function siblingsApprovedByMemory(agent: Decider, snapshot: AgentSnapshot, granted: ApprovalRequest, approvedBy: string | undefined, at: number): Decision[] {
  const decisions: Decision[] = [];
  for (const sibling of snapshot.pendingApprovals) {
    // One person's memory is never a quorum: a sibling that needs several people stays pending for them.
    if (sibling.approvalId === granted.approvalId || sibling.toolName !== granted.toolName || isQuorumRequest(sibling)) continue;
    try {
      verifyRequestIntegrity(agent, snapshot, sibling, true);
    } catch {
      continue;
    }
    if (isExpired(sibling, at) || !mayDecide(agent, sibling, approvedBy)) continue;
    decisions.push({
      approvalId: sibling.approvalId,
      approved: true,
      audit: signDecision(agent.settings.decisionSecret, snapshot, {
        approvalId: sibling.approvalId,
        toolCallId: sibling.toolCallId,
        toolName: sibling.toolName,
        decision: 'approved',
        source: 'memory',
        scope: 'once',
        at,
        argsDigest: sibling.argsDigest,
        reason: `${sibling.toolName} was approved for the rest of this run`,
        ...(approvedBy === undefined ? {} : { by: approvedBy }),
        ...coverageFields(sibling),
      }),
    });
  }
  return decisions;
}

/**
 * A session or agent decision also answers the calls of the same tool waiting in this turn that its grant covers
 * (arguments matching, uses left), each checked on its own as for run memory; each is a use of the grant (the decided
 * call itself is not: `uses` counts the calls the grant decides). An approval never answers a sibling that needs a
 * quorum (one person's grant is not several people's votes); a denial does, as a deny grant would.
 */
function siblingsCoveredByGrant(agent: Decider, snapshot: AgentSnapshot, granted: ApprovalRequest, response: ApprovalResponse, at: number): Decision[] {
  const decisions: Decision[] = [];
  const grantId = grantIdOf(snapshot.runId, granted.approvalId);
  const usesLeft = response.grant?.uses ?? Number.POSITIVE_INFINITY;
  const tool = agent.tools.get(granted.toolName);
  const calls = currentToolCalls(snapshot);
  const reason = `${granted.toolName} was ${response.approved ? 'approved' : 'denied'} for ${response.scope === 'session' ? 'this session' : `agent ${agent.name}`}`;
  for (const sibling of snapshot.pendingApprovals) {
    if (decisions.length >= usesLeft) break;
    if (sibling.approvalId === granted.approvalId || sibling.toolName !== granted.toolName || !tool) continue;
    if (response.approved && isQuorumRequest(sibling)) continue;
    try {
      verifyRequestIntegrity(agent, snapshot, sibling, response.approved);
    } catch {
      continue;
    }
    if (isExpired(sibling, at) || !mayDecide(agent, sibling, response.approvedBy)) continue;
    const parsed = tool.input.safeParse(calls.find((call) => call.id === sibling.toolCallId)?.args);
    if (!parsed.success || !argsMatch(response.grant?.argsMatch, parsed.data)) continue;
    decisions.push({
      approvalId: sibling.approvalId,
      approved: response.approved,
      audit: signDecision(agent.settings.decisionSecret, snapshot, {
        approvalId: sibling.approvalId,
        toolCallId: sibling.toolCallId,
        toolName: sibling.toolName,
        decision: response.approved ? 'approved' : 'denied',
        source: 'grant',
        scope: 'once',
        at,
        argsDigest: sibling.argsDigest,
        reason,
        grantId,
        ...(response.approvedBy === undefined ? {} : { by: response.approvedBy }),
        ...coverageFields(sibling),
      }),
      ...(response.approved ? {} : { denialResult: denialResult(reason, 'policy') }),
    });
  }
  return decisions;
}

/**
 * Approves every pending request of the run.
 *
 * @example
 * const next = approveAll(snap, 'alice', { agent });
 */
export function approveAll(snapshot: AgentSnapshot, approvedBy: string | undefined, options: DecideOptions = {}): AgentSnapshot {
  return decideAll(snapshot, { approved: true, ...(approvedBy === undefined ? {} : { approvedBy }) }, options);
}

/**
 * Denies every pending request of the run, with one reason for all.
 *
 * @example
 * const next = denyAll(snap, 'alice', 'not during the freeze', { agent });
 */
export function denyAll(snapshot: AgentSnapshot, approvedBy: string | undefined, reason: string | undefined, options: DecideOptions = {}): AgentSnapshot {
  return decideAll(snapshot, { approved: false, ...(approvedBy === undefined ? {} : { approvedBy }), ...(reason === undefined ? {} : { reason }) }, options);
}

function decideAll(snapshot: AgentSnapshot, decision: Omit<ApprovalResponse, 'approvalId'>, options: DecideOptions): AgentSnapshot {
  let next = snapshot;
  for (const request of snapshot.pendingApprovals) {
    if (!next.pendingApprovals.some((item) => item.approvalId === request.approvalId)) continue;
    next = withApprovalResponse(next, { ...decision, approvalId: request.approvalId, ...(request.signature === undefined ? {} : { signature: request.signature }) }, options);
  }
  return next;
}
