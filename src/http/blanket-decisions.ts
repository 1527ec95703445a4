import { ApprovalSignatureError, RunNotAwaitingApprovalError } from '../errors.js';
import type { AgentSnapshot, ApprovalResponse } from '../machine/types.js';

/** An `approveAll` / `denyAll` body, its target checked. */
export interface BlanketDecision {
  readonly approved: boolean;
  readonly approvedBy: string;
  readonly reason?: string | undefined;
  readonly signatures?: readonly string[] | undefined;
}

const ALL_PENDING = '(all pending)';

/**
 * The decisions an `approveAll` / `denyAll` stands for: one per pending
 * request, each echoing that request's signature. When the agent signs its
 * requests (`decisionSecret`), a blanket decision covers only the requests
 * whose signatures the caller echoes in `signatures`: echoing is what proves
 * the sender saw each request, so "approve everything" (replayed, or sent
 * before a new request arrived) cannot approve one it never saw. Throws
 * `ApprovalSignatureError` (400 `invalid_signature`) saying what to send
 * when nothing would be decided.
 *
 * @example
 * const items = blanketDecisions(run, { approved: true, approvedBy: 'alice', signatures: [request.signature!] }, true);
 */
export function blanketDecisions(run: AgentSnapshot, body: BlanketDecision, signsRequests: boolean): ApprovalResponse[] {
  if (run.status !== 'awaitingApproval') throw new RunNotAwaitingApprovalError(run.runId, ALL_PENDING, run.status);
  const verb = body.approved ? 'approveAll' : 'denyAll';
  const echoed = body.signatures === undefined ? undefined : new Set(body.signatures);
  if (signsRequests && echoed === undefined) {
    throw new ApprovalSignatureError(
      ALL_PENDING,
      `this agent signs its requests (decisionSecret), so ${verb} decides only the requests whose signatures you echo: ` +
        `send "signatures": [the "signature" of each pending request you mean to decide, as GET /runs/${run.runId} lists them]. Nothing was decided.`,
    );
  }
  const requests = echoed === undefined ? run.pendingApprovals : run.pendingApprovals.filter((request) => request.signature !== undefined && echoed.has(request.signature));
  if (requests.length === 0) {
    throw new ApprovalSignatureError(
      ALL_PENDING,
      `none of the echoed signatures belongs to a pending request of run ${run.runId}; nothing was decided. Read the run again (GET /runs/${run.runId}) and echo the signatures it lists.`,
    );
  }
  return requests.map((request) => ({
    approvalId: request.approvalId,
    approved: body.approved,
    approvedBy: body.approvedBy,
    ...(body.reason === undefined ? {} : { reason: body.reason }),
    ...(request.signature === undefined ? {} : { signature: request.signature }),
  }));
}
