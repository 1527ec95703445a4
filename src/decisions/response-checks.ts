// What a response is checked against before it is recorded: an identical repeat, the scope it asks for, the kinds of
// decision its request offers, who may decide, the request's own integrity (its signature, its arguments still the
// ones shown) and its expiry.
import { SNAPSHOT_ALTERED_OR_OTHER_SECRET } from './authority/signature-mismatch.js';
import { ApprovalSignatureError, ApproverNotAllowedError, ConfigError, DecisionNotOfferedError } from '../errors.js';
import type { Agent } from '../agent/agent-types.js';
import type { RuleSet } from '../policy/policy.js';
import { signLegacyRequest, signRequest } from './approval-request.js';
import { approversNow, mayDecide } from './authority/who-may-decide.js';
import { historyVerifies } from '../policy/nudge.js';
import { SIGNATURE_V2 } from './decision-signature.js';
import { canonicalJson, digestOf, safeEqual } from '../run/digest.js';
import { currentToolCalls } from '../run/current-tool-calls.js';
import { DECISION_KINDS, offers } from '../run/decision-kinds.js';
import type { ApprovalRequest, ApprovalResponse, AuditEntry, DecisionKind } from '../run/types.js';
import type { AgentSnapshot } from '../run/agent-snapshot.js';

/**
 * What a decision reads of the agent: its name, its tools (edits, grant bounds, approver predicates), its rules, clock and secret.
 */
export type Decider = Pick<Agent, 'name' | 'tools'> & {
  readonly settings: {
    readonly rules: RuleSet;
    readonly clock: () => number;
    readonly decisionSecret: string | undefined;
  };
};

/** Same outcome: same verdict (a dismissal is its own), same scope and bounds, same edit. Who and when do not matter. */
export function sameOutcome(
  entry: AuditEntry,
  response: ApprovalResponse,
  editedArgsDigest: string | undefined,
): boolean {
  return (
    (entry.decision === 'approved') === response.approved &&
    (entry.source === 'dismissed') === (response.dismissed === true) &&
    entry.scope === (response.scope ?? 'once') &&
    canonicalJson(entry.grant ?? null) === canonicalJson(response.grant ?? null) &&
    entry.editedArgsDigest === editedArgsDigest
  );
}

/** A scope and bounds that can be carried out on this run: refused with the fix before anything is recorded. */
export function checkScope(snapshot: AgentSnapshot, response: ApprovalResponse): void {
  const scope = response.scope ?? 'once';
  const where = `withApprovalResponse (approval ${response.approvalId})`;
  if (scope === 'session' && snapshot.sessionId === undefined) {
    throw new ConfigError(
      `${where}: scope 'session' needs a run that belongs to a session, and run ${snapshot.runId} has none; start runs with execute({ input, sessionId }) or runtime.start(agent, { input, sessionId }), or use scope 'run' or 'agent'.`,
    );
  }
  if (scope === 'agent' && response.grant?.ttlMs === undefined) {
    throw new ConfigError(
      `${where}: scope 'agent' covers every run of the agent, so it needs an end: give grant: { ttlMs } (e.g. 15 * 60_000 for 15 minutes).`,
      'missing_option',
    );
  }
  if (response.grant !== undefined && scope !== 'session' && scope !== 'agent') {
    throw new ConfigError(
      `${where}: grant bounds go with scope 'session' or 'agent'; this decision has scope '${scope}'.`,
    );
  }
}

/**
 * The kinds of decision a response asks for: its verdict (`deny`; `edit` for an approval with changed arguments;
 * `approve` for approving this call once, also with the answer to a question, which travels as arguments) and its
 * scope beyond the call; an unedited approval with a wider scope asks for that scope's kind alone. A dismissal decides
 * nothing and asks for none.
 */
function kindsAsked(request: ApprovalRequest, response: ApprovalResponse): readonly DecisionKind[] {
  if (response.dismissed === true) return [];
  const scope = response.scope ?? 'once';
  const verdict: DecisionKind | undefined = !response.approved
    ? 'deny'
    : response.args !== undefined && request.question === undefined
      ? 'edit'
      : scope === 'once'
        ? 'approve'
        : undefined;
  return [...(verdict === undefined ? [] : [verdict]), ...(scope === 'once' ? [] : [scope])];
}

/** Refuses a response asking for a kind of decision the request does not offer (`request.decisions`), before anything is recorded. */
export function checkOffered(request: ApprovalRequest, response: ApprovalResponse): void {
  const missing = kindsAsked(request, response).find((kind) => !offers(request.decisions, kind));
  if (missing !== undefined)
    throw new DecisionNotOfferedError(request.approvalId, missing, request.decisions ?? DECISION_KINDS);
}

export function checkApprover(agent: Decider, request: ApprovalRequest, approvedBy: string | undefined): void {
  if (!mayDecide(agent, request, approvedBy))
    throw new ApproverNotAllowedError(request.approvalId, approvedBy, approversNow(request));
}

/**
 * With a decision secret: the request must be signed, over everything the
 * person relied on (display copy, approvers, rule, expiry), and the real
 * arguments of the pending call must still be the ones it was signed for.
 * A request signed the v1 way (before snapshot format 2) did not bind its
 * approvers, rule or expiry, so it may be denied but not approved.
 * @internal the runtime checks a request with it too; users decide through `withApprovalResponse`.
 */
export function verifyRequestIntegrity(
  agent: Decider,
  snapshot: AgentSnapshot,
  request: ApprovalRequest,
  approving: boolean,
): void {
  const secret = agent.settings.decisionSecret;
  if (secret === undefined) return;
  const call = currentToolCalls(snapshot).find((item) => item.id === request.toolCallId);
  if (!call || call.name !== request.toolName || digestOf(call.args) !== request.argsDigest) {
    throw new ApprovalSignatureError(
      request.approvalId,
      'the pending call no longer matches what was put to the approver (arguments or tool changed). Nothing was run.',
    );
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
export function isExpired(request: ApprovalRequest, at: number): boolean {
  return request.expiresAt !== undefined && at >= request.expiresAt && (request.onExpire ?? 'deny') === 'deny';
}
