import {
  ApprovalSignatureError,
  DecisionConflictError,
  UnknownApprovalError,
  type AgentSnapshot,
  type ApprovalResponse,
  type DecideResult,
  type Runtime,
} from '../index.js';

/**
 * A person's answer to one request, as a chat client proposes it (an AI SDK approval response, an AG-UI resume
 * entry): checked against the run before anything is recorded.
 *
 * @example
 * const answer: ChatAnswer = { approvalId: card.approvalId, approved: false, reason: 'not today', signature: card.signature };
 */
export interface ChatAnswer {
  readonly approvalId: string;
  readonly approved: boolean;
  readonly reason?: string;
  /** The request's signature, as the card received it. */
  readonly signature?: string;
  readonly scope?: 'once' | 'run' | 'session';
  /** Approve with changed arguments (the person's edit), checked against the tool's schema. */
  readonly args?: unknown;
  /** Closed without a decision (the card dismissed). */
  readonly dismissed?: boolean;
}

/**
 * The answers of `proposed` that `run` still waits for, checked: each must name a request the run waits for and echo
 * its signature. One the run already recorded the same way is the client repeating its history and is left out; one
 * that says otherwise is a `DecisionConflictError`, one the run never asked (another run's, made up) an
 * `UnknownApprovalError`, a wrong echo an `ApprovalSignatureError`. Nothing is recorded when any is refused.
 */
export function answersToRecord(run: AgentSnapshot, proposed: readonly ChatAnswer[]): ChatAnswer[] {
  const waiting = new Map(run.pendingApprovals.map((request) => [request.approvalId, request]));
  const toRecord: ChatAnswer[] = [];
  for (const answer of proposed) {
    const request = waiting.get(answer.approvalId);
    if (request === undefined) {
      const entry = run.audit.find((recorded) => recorded.approvalId === answer.approvalId);
      if (entry === undefined)
        throw new UnknownApprovalError(
          run.runId,
          answer.approvalId,
          run.pendingApprovals.map((pending) => pending.approvalId),
        );
      if ((entry.decision === 'approved') !== answer.approved)
        throw new DecisionConflictError(answer.approvalId, {
          decision: entry.decision,
          ...(entry.by === undefined ? {} : { by: entry.by }),
          at: entry.at,
          scope: entry.scope,
        });
      continue;
    }
    if (request.signature !== undefined && answer.signature !== request.signature)
      throw new ApprovalSignatureError(
        answer.approvalId,
        'the answer does not carry the signature of the request it answers; answer from the card the chat received',
      );
    toRecord.push(answer);
  }
  return toRecord;
}

/**
 * Records `answers` (checked with `answersToRecord`) as `user`'s, each through `runtime.decide` (mode `'record'`: the
 * chat's stream carries the run on), in order; a refusal of the runtime (a conflict, an expiry, an approver not
 * allowed) stops there and is thrown.
 */
export async function recordAnswers(
  runtime: Runtime,
  run: AgentSnapshot,
  user: string,
  answers: readonly ChatAnswer[],
): Promise<DecideResult[]> {
  const results: DecideResult[] = [];
  for (const answer of answersToRecord(run, answers)) {
    const response: ApprovalResponse = {
      approvalId: answer.approvalId,
      approved: answer.approved,
      approvedBy: user,
      ...(answer.reason === undefined || answer.reason === '' ? {} : { reason: answer.reason }),
      ...(answer.signature === undefined ? {} : { signature: answer.signature }),
      ...(answer.scope === undefined || !answer.approved ? {} : { scope: answer.scope }),
      ...(answer.args === undefined || !answer.approved ? {} : { args: answer.args }),
      ...(answer.dismissed ? { dismissed: true } : {}),
    };
    results.push(await runtime.decide(run.runId, response, { mode: 'record' }));
  }
  return results;
}
