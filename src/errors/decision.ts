// A decision that cannot be applied: to what, when, by whom, of which kind and with which arguments.
import type { DecisionKind } from '../run/types.js';
import { CountersignError } from './base.js';

/** The decision names an approval the run never asked for. */
export class UnknownApprovalError extends CountersignError {
  readonly approvalId: string;
  readonly runId: string;

  constructor(runId: string, approvalId: string, pending: readonly string[]) {
    super(
      'unknown_approval',
      `Run ${runId} has no approval ${approvalId}. ` +
        (pending.length > 0
          ? `Pending approvals: ${pending.join(', ')}.`
          : 'It has no pending approvals; load the latest snapshot of the run.'),
    );
    this.runId = runId;
    this.approvalId = approvalId;
  }
}

/** The run is not waiting for a decision (it finished, failed, or was cancelled). */
export class RunNotAwaitingApprovalError extends CountersignError {
  readonly approvalId: string;
  readonly runId: string;
  readonly status: string;

  /** `added`: a request was being added to the run (`withApprovalRequest`), which only a run waiting for people takes. */
  constructor(runId: string, approvalId: string, status: string, doing: 'decided' | 'added' = 'decided') {
    super(
      'run_not_awaiting_approval',
      doing === 'decided'
        ? `Run ${runId} is ${status}, not awaiting approval, so approval ${approvalId} can no longer be decided.`
        : `Run ${runId} is ${status}, not awaiting approval, so approval ${approvalId} cannot be added: a request joins a run only while it waits for people (an ended run stays ended); start a new run for it instead.`,
    );
    this.runId = runId;
    this.approvalId = approvalId;
    this.status = status;
  }
}

/** A different decision for this approval was recorded first. */
export class DecisionConflictError extends CountersignError {
  readonly approvalId: string;
  readonly winner: {
    readonly decision: 'approved' | 'denied';
    readonly by?: string;
    readonly at: number;
    readonly scope: 'once' | 'run' | 'session' | 'agent';
    readonly editedArgsDigest?: string;
  };

  constructor(approvalId: string, winner: DecisionConflictError['winner'], message?: string) {
    super(
      'decision_conflict',
      message ??
        `Approval ${approvalId} was already ${winner.decision}${winner.by ? ` by ${winner.by}` : ''} at ` +
          `${new Date(winner.at).toISOString()}; a different decision cannot replace it.`,
    );
    this.approvalId = approvalId;
    this.winner = winner;
  }
}

/**
 * A person voted twice on a quorum request that counts each person once; `winner` is their first vote, which
 * stands. (An identical repeat of one's own vote is not an error: it returns the run unchanged.)
 */
export class DuplicateVoteError extends DecisionConflictError {
  constructor(approvalId: string, first: { readonly by: string; readonly approved: boolean; readonly at: number }) {
    super(
      approvalId,
      { decision: first.approved ? 'approved' : 'denied', by: first.by, at: first.at, scope: 'once' },
      `${first.by} already voted to ${first.approved ? 'approve' : 'deny'} approval ${approvalId} at ${new Date(first.at).toISOString()}; ` +
        'each person votes once on it, and a vote cannot be changed. Ask another approver.',
    );
  }
}

/** The approval expired before the decision arrived. */
export class ApprovalExpiredError extends CountersignError {
  readonly approvalId: string;
  readonly expiresAt: number;
  readonly respondedAt: number;

  constructor(approvalId: string, expiresAt: number, respondedAt: number) {
    super(
      'approval_expired',
      `Approval ${approvalId} expired at ${new Date(expiresAt).toISOString()}; the decision came at ` +
        `${new Date(respondedAt).toISOString()}. Ask the agent again, or configure onExpire: 'keep'.`,
    );
    this.approvalId = approvalId;
    this.expiresAt = expiresAt;
    this.respondedAt = respondedAt;
  }
}

/** Edited arguments do not satisfy the tool's input schema. */
export class InvalidEditError extends CountersignError {
  readonly approvalId: string;
  readonly issues: readonly { path: string; message: string }[];

  constructor(approvalId: string, toolName: string, issues: readonly { path: string; message: string }[]) {
    super(
      'invalid_edit',
      `Edited arguments for approval ${approvalId} do not match the input schema of ${toolName}: ` +
        issues.map((issue) => `${issue.path || '(root)'}: ${issue.message}`).join('; ') +
        '. Send arguments the tool accepts, or approve without editing.',
    );
    this.approvalId = approvalId;
    this.issues = issues;
  }
}

/** An answer does not fit the question's form (`request.question`). */
export class InvalidAnswerError extends CountersignError {
  readonly approvalId: string;
  readonly issues: readonly { path: string; message: string }[];

  constructor(approvalId: string, issues: readonly { path: string; message: string }[]) {
    super(
      'invalid_answer',
      `The answer to question ${approvalId} does not fit its form: ` +
        issues.map((issue) => `${issue.path || '(answer)'} ${issue.message}`).join('; ') +
        '. Answer every required field with a value it accepts.',
    );
    this.approvalId = approvalId;
    this.issues = issues;
  }
}

/** The person deciding is not among the approvers the rule or tool names. */
export class ApproverNotAllowedError extends CountersignError {
  readonly approvalId: string;
  readonly approvedBy: string | undefined;

  /** `why`, when given, replaces the list of who is allowed (a quorum's own rules: the requester, who may vote). */
  constructor(
    approvalId: string,
    approvedBy: string | undefined,
    approvers: readonly string[] | undefined,
    why?: string,
  ) {
    super(
      'approver_not_allowed',
      `${approvedBy === undefined ? 'An anonymous approver' : `Approver ${approvedBy}`} may not decide approval ${approvalId}` +
        (why !== undefined
          ? `: ${why}.`
          : approvers && approvers.length > 0
            ? `; allowed: ${approvers.join(', ')}.`
            : '.') +
        (approvedBy === undefined ? ' Set approvedBy on the response.' : ''),
    );
    this.approvalId = approvalId;
    this.approvedBy = approvedBy;
  }
}

/** What each kind of decision is, in the words an error uses. */
const KIND_MEANING: Readonly<Record<DecisionKind, string>> = {
  approve: 'approve this call once',
  edit: 'approve with changed arguments',
  deny: 'deny',
  run: "decide with scope 'run'",
  session: "decide with scope 'session'",
  agent: "decide with scope 'agent'",
};

/**
 * The response asks for a kind of decision its request does not offer (`decisions` on the tool or its rule): refused
 * before anything is recorded.
 */
export class DecisionNotOfferedError extends CountersignError {
  readonly approvalId: string;
  /** The kind the response asked for that is not offered. */
  readonly asked: DecisionKind;
  /** The kinds the request offers (`request.decisions`); empty when only a dismissal is left. */
  readonly offered: readonly DecisionKind[];

  constructor(approvalId: string, asked: DecisionKind, offered: readonly DecisionKind[]) {
    super(
      'decision_not_offered',
      `Approval ${approvalId} does not offer '${asked}' (${KIND_MEANING[asked]}); it offers ` +
        (offered.length === 0 ? 'no decision, only a dismissal' : offered.map((kind) => `'${kind}'`).join(', ')) +
        `. Send one of the decisions it offers (request.decisions), or add '${asked}' to the decisions of its tool and of its rule. Nothing was recorded.`,
    );
    this.approvalId = approvalId;
    this.asked = asked;
    this.offered = offered;
  }
}
