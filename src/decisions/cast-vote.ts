// A response to a quorum request is a vote: recorded on the request until the quorum is met (or a deny settles it),
// then the decision is recorded as for one person, with every vote in its audit entry.
import { ApproverNotAllowedError, ConfigError, DecisionConflictError, DuplicateVoteError } from '../errors.js';
import { samePerson } from './authority/person-name.js';
import { appendVote, quorumOutOfReach, tallyVotes, verifyVotes } from './authority/vote-count.js';
import { type DeciderConfig, voteRefusal } from './authority/who-may-decide.js';
import { coverageFields } from './authority/coverage-fields.js';
import { signDecision } from './decision-signature.js';
import { step } from '../machine/step.js';
import { denialResult } from '../run/tool-results.js';
import type { ApprovalRequest, ApprovalResponse, AuditEntry, Quorum, Vote } from '../run/types.js';
import type { AgentSnapshot } from '../run/agent-snapshot.js';

/** A request several people must approve. */
export type QuorumRequest = ApprovalRequest & { readonly quorum: Quorum };

/** Whether a request needs several people. */
export function isQuorumRequest(request: ApprovalRequest): request is QuorumRequest {
  return request.quorum !== undefined;
}

/**
 * A response on a quorum request that was settled already: the voter's own identical vote, repeated (a retried
 * webhook), returns the run unchanged; any other vote came after the outcome, a conflict that names it.
 */
export function voteAfterOutcome(
  snapshot: AgentSnapshot,
  entry: AuditEntry & { readonly votes: readonly Vote[] },
  response: ApprovalResponse,
): AgentSnapshot {
  if (entry.votes.some((vote) => samePerson(vote.by, response.approvedBy) && vote.approved === response.approved))
    return snapshot;
  const approvals = entry.votes.filter((vote) => vote.approved).map((vote) => vote.by ?? 'anonymous');
  throw new DecisionConflictError(
    entry.approvalId!,
    { decision: entry.decision, at: entry.at, scope: entry.scope, ...(entry.by === undefined ? {} : { by: entry.by }) },
    `Approval ${entry.approvalId} was already ${entry.decision} at ${new Date(entry.at).toISOString()}` +
      (entry.decision === 'approved'
        ? ` (approved by ${approvals.join(', ')})`
        : entry.by === undefined
          ? ''
          : ` (denied by ${entry.by})`) +
      '; a vote after the outcome is not counted.',
  );
}

/** Edits, run-wide scope and dismissals are one person's; a quorum request takes plain yes or no votes. */
function refuseSoloOnly(request: QuorumRequest, response: ApprovalResponse): void {
  const why =
    response.args !== undefined
      ? 'edited arguments: every voter would have to approve the same edit, so a quorum request cannot be edited; deny it and let the model ask again with the right arguments'
      : (response.scope ?? 'once') !== 'once'
        ? `scope '${response.scope}': one voter's word must not stand in for a quorum on later calls; vote with scope 'once'`
        : response.dismissed === true
          ? 'a dismissal: closing the dialog is not a vote; leave the request for the others, or deny it'
          : undefined;
  if (why !== undefined)
    throw new ConfigError(
      `withApprovalResponse: approval ${request.approvalId} needs ${request.quorum.required} approvals and takes no ${why}.`,
    );
}

/**
 * Records one vote (already checked: the request's signature, expiry, `mayDecide`, the echoed signature) and
 * returns the new run: still waiting with the vote added, or decided when the quorum is met or a deny settles it.
 */
export function castVote(
  agent: DeciderConfig & { readonly settings: { readonly decisionSecret: string | undefined } },
  snapshot: AgentSnapshot,
  request: QuorumRequest,
  response: ApprovalResponse,
  at: number,
): AgentSnapshot {
  refuseSoloOnly(request, response);
  const secret = agent.settings.decisionSecret;
  const votes = request.votes ?? [];
  verifyVotes(secret, snapshot, request.approvalId, votes);
  const by = response.approvedBy;
  const refusal = voteRefusal(agent, snapshot, request, request.quorum, by);
  if (refusal !== undefined) throw new ApproverNotAllowedError(request.approvalId, by, request.quorum.from, refusal);
  const earlier = request.quorum.distinctPeople ? votes.find((vote) => samePerson(vote.by, by)) : undefined;
  if (earlier !== undefined) {
    if (earlier.approved === response.approved) return snapshot;
    throw new DuplicateVoteError(request.approvalId, { by: by!, approved: earlier.approved, at: earlier.at });
  }
  const unsigned: Vote = {
    ...(by === undefined ? {} : { by }),
    approved: response.approved,
    at,
    ...(response.reason === undefined ? {} : { reason: response.reason }),
  };
  const all = appendVote(secret, snapshot, request.approvalId, votes, unsigned);
  const quorum = request.quorum;
  const tally = tallyVotes(quorum, all, snapshot.requestedBy);
  const approved = tally.remaining === 0;
  const denied = !response.approved && (quorum.anyDenyDenies || quorumOutOfReach(quorum, tally));
  if (!approved && !denied) return step(snapshot, { type: 'VOTED', at, approvalId: request.approvalId, votes: all });
  const reason =
    response.reason ??
    (denied && !quorum.anyDenyDenies ? `too few approvers left to reach ${quorum.required} approvals` : undefined);
  const audit = signDecision(secret, snapshot, {
    approvalId: request.approvalId,
    toolCallId: request.toolCallId,
    toolName: request.toolName,
    decision: approved ? 'approved' : 'denied',
    source: 'human',
    scope: 'once',
    at,
    argsDigest: request.argsDigest,
    ...(by === undefined ? {} : { by }),
    ...(reason === undefined ? {} : { reason }),
    ...(response.respondedAt === undefined ? {} : { claimedAt: response.respondedAt }),
    ...coverageFields(request),
    votes: all,
  });
  return step(snapshot, {
    type: 'DECIDED',
    at,
    decisions: [
      {
        approvalId: request.approvalId,
        approved,
        audit,
        ...(approved ? {} : { denialResult: denialResult(reason, 'person') }),
      },
    ],
  });
}
