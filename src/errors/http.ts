// The HTTP layer's refusals: a signed write that does not name its target, and the problem answers the approval app
// throws on purpose.
import { CountersignError } from './base.js';

/**
 * A write's body does not name the run (and approval) its URL names. A
 * Standard Webhooks signature covers only the id, timestamp and body, so a
 * signed body must say where it applies; otherwise a captured delivery could
 * be replayed to another run's URL.
 */
export class TargetMismatchError extends CountersignError {
  readonly runId: string;
  readonly approvalId: string | undefined;
  /** `missing`: a signed body left out its target; `mismatch`: the body names another run or approval. */
  readonly reason: 'missing' | 'mismatch';

  constructor(runId: string, approvalId: string | undefined, reason: 'missing' | 'mismatch') {
    const send = `"runId": ${JSON.stringify(runId)}${approvalId === undefined ? '' : ` and "approvalId": ${JSON.stringify(approvalId)}`}`;
    super(
      'target_mismatch',
      reason === 'missing'
        ? `A signed write must name its target in the signed body: send ${send}. Nothing was done.`
        : `The body names another run or approval than the URL; nothing was done. Send it to the URL of what it names, or send ${send} for this one.`,
    );
    this.runId = runId;
    this.approvalId = approvalId;
    this.reason = reason;
  }
}

/**
 * An RFC 9457 problem details body, as every error answer of the approval
 * app carries it (`application/problem+json`). `code` is stable and safe to
 * branch on; the other fields depend on the code (`winner`, `expiresAt`,
 * `issues`, ...).
 *
 * @example
 * const res = await fetch(`${base}/runs/${runId}/approvals/${approvalId}`, { method: 'POST', headers, body });
 * if (!res.ok) {
 *   const problem = (await res.json()) as Problem;
 *   if (problem.code === 'decision_conflict') showWinner(problem['winner']);
 * }
 */
export interface Problem {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly code: string;
  readonly detail: string;
  readonly [field: string]: unknown;
}

/**
 * An error the HTTP layer throws on purpose (bad body, bad credentials,
 * body too large): the app's error handler answers with its problem as is.
 *
 * @example
 * throw new HttpProblem(problem(400, 'invalid_body', 'The body is not JSON.'));
 */
export class HttpProblem extends Error {
  readonly problem: Problem;
  readonly headers: Readonly<Record<string, string>>;

  constructor(body: Problem, headers: Readonly<Record<string, string>> = {}) {
    super(body.detail);
    this.name = new.target.name;
    this.problem = body;
    this.headers = headers;
  }
}
