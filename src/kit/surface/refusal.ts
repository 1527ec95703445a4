// What chat integrations (Slack, Telegram) tell a clicker when a one-click
// token could not decide: the refusal is classified here once, and each
// integration words it in its own markup.
import { isCountersignError } from '../../errors.js';
import type { VoteTally } from '../../decisions/authority/vote-count.js';
import { voteProgress } from '../../policy/quorum.js';
import type { AnswerIssue } from '../../run/question.js';
import type { AuditEntry } from '../../run/types.js';
import type { LinkedRuntime, Runtime } from '../../runtime/runtime.js';

/**
 * The run a link token names, for an error report, asked of the runtime: tokens
 * are opaque. Empty when the runtime cannot tell (a forged or expired token).
 */
export async function linkRun(runtime: LinkedRuntime, token: string): Promise<{ readonly runId?: string }> {
  try {
    return { runId: (await runtime.inspectLink(token)).claim.runId };
  } catch {
    return {};
  }
}

/**
 * Why `respondWithLink` refused a click. `used`, `expired`, `conflict`,
 * `approval_expired` and `gone` leave nothing to decide; `invalid`,
 * `not_allowed`, `not_offered` (a decision the request does not offer), `store`, `invalid_answer` and `unexpected`
 * leave the approval open.
 */
export type Refusal =
  | { readonly kind: 'used'; readonly entry: AuditEntry | undefined; readonly vote?: VoteTally }
  | { readonly kind: 'expired' }
  | { readonly kind: 'invalid' }
  | { readonly kind: 'conflict'; readonly winner: { readonly decision?: string; readonly by?: string } | undefined }
  | { readonly kind: 'approval_expired' }
  | { readonly kind: 'gone' }
  | { readonly kind: 'not_allowed' }
  | { readonly kind: 'not_offered' }
  | { readonly kind: 'store' }
  | { readonly kind: 'invalid_answer'; readonly issues: readonly AnswerIssue[] }
  | { readonly kind: 'unexpected'; readonly config: boolean };

/** Classifies an error thrown by `respondWithLink(token)`; for a used token, finds who decided. */
export async function classifyRefusal(runtime: Runtime, error: unknown): Promise<Refusal> {
  const code = isCountersignError(error) ? error.code : undefined;
  const reason = (error as { reason?: unknown } | null | undefined)?.reason;
  if (code === 'invalid_link_token' && reason === 'used') {
    const { runId, approvalId } = error as { runId?: string; approvalId?: string };
    const snapshot = runId === undefined ? undefined : await runtime.get(runId).catch(() => undefined);
    const entry = snapshot?.audit.find((item) => item.approvalId === approvalId);
    // A spent vote on a quorum request still pending: the clicker is told where the votes stand.
    const vote =
      entry === undefined && snapshot !== undefined && approvalId !== undefined
        ? voteProgress(snapshot, approvalId)
        : undefined;
    return { kind: 'used', entry, ...(vote === undefined ? {} : { vote }) };
  }
  if (code === 'invalid_link_token' && reason === 'expired') return { kind: 'expired' };
  if (code === 'invalid_link_token') return { kind: 'invalid' };
  if (code === 'decision_conflict')
    return { kind: 'conflict', winner: (error as { winner?: { decision?: string; by?: string } }).winner };
  if (code === 'approval_expired') return { kind: 'approval_expired' };
  if (code === 'run_not_awaiting_approval' || code === 'unknown_approval' || code === 'run_not_found')
    return { kind: 'gone' };
  if (code === 'approver_not_allowed') return { kind: 'not_allowed' };
  if (code === 'decision_not_offered') return { kind: 'not_offered' };
  if (code === 'store_unavailable') return { kind: 'store' };
  if (code === 'invalid_answer') return { kind: 'invalid_answer', issues: (error as { issues: AnswerIssue[] }).issues };
  return { kind: 'unexpected', config: code === 'invalid_config' };
}
