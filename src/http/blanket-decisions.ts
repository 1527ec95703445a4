import { ApprovalSignatureError, RunNotAwaitingApprovalError } from '../errors.js';
import type { ApprovalResponse, AgentSnapshot } from '../index.js';

/** An `approveAll` / `denyAll` body, its target checked. */
export interface BlanketDecision {
  readonly approved: boolean;
  readonly approvedBy: string;
  readonly reason?: string | undefined;
  readonly signatures?: readonly string[] | undefined;
  /**
   * The approvals the sender saw (the console's list): only these are decided, each as a decision of its own, so a
   * request that arrived since waits for its own decision, and one decided meanwhile is answered as a repeat would be.
   */
  readonly approvalIds?: readonly string[] | undefined;
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
export function blanketDecisions(
  run: AgentSnapshot,
  body: BlanketDecision,
  signsRequests: boolean,
): ApprovalResponse[] {
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
  if (body.approvalIds !== undefined) return listedDecisions(run, body.approvalIds, body, echoed);
  const requests =
    echoed === undefined
      ? run.pendingApprovals
      : run.pendingApprovals.filter((request) => request.signature !== undefined && echoed.has(request.signature));
  if (requests.length === 0) {
    throw new ApprovalSignatureError(
      ALL_PENDING,
      `none of the echoed signatures belongs to a pending request of run ${run.runId}; nothing was decided. Read the run again (GET /runs/${run.runId}) and echo the signatures it lists.`,
    );
  }
  return requests.map((request) => decisionFor(request.approvalId, body, request.signature));
}

function decisionFor(approvalId: string, body: BlanketDecision, signature: string | undefined): ApprovalResponse {
  return {
    approvalId,
    approved: body.approved,
    approvedBy: body.approvedBy,
    ...(body.reason === undefined ? {} : { reason: body.reason }),
    ...(signature === undefined ? {} : { signature }),
  };
}

/**
 * One decision per listed approval, in the order listed: a pending one echoes its request's signature (when the
 * sender echoed it, or sent none to echo), one no longer pending goes without, and the runtime answers it as it
 * answers any decision of an approval already decided (a duplicate, a conflict) or unknown.
 */
function listedDecisions(
  run: AgentSnapshot,
  approvalIds: readonly string[],
  body: BlanketDecision,
  echoed: ReadonlySet<string> | undefined,
): ApprovalResponse[] {
  const pending = new Map(run.pendingApprovals.map((request) => [request.approvalId, request]));
  return [...new Set(approvalIds)].map((approvalId) => {
    const signature = pending.get(approvalId)?.signature;
    return decisionFor(
      approvalId,
      body,
      signature !== undefined && (echoed === undefined || echoed.has(signature)) ? signature : undefined,
    );
  });
}
