import { decisionSignatureOf } from './decision-signature.js';
import { step } from '../machine/step.js';
import type { AuditEntry } from '../run/types.js';
import type { AgentSnapshot } from '../run/agent-snapshot.js';

/** A `scope: 'run'` approval still in force, and who gave it. */
export interface RunGrant {
  readonly approvalId: string | undefined;
  readonly by: string | undefined;
}

/**
 * The `scope: 'run'` approvals of `toolName` still in force: human approvals
 * recorded since memory was last cleared, for a tool still remembered. With
 * a decision secret only approvals signed in the v2 format count (v1 did
 * not bind the scope), so a tool name written into `runApprovals`, or a
 * once-only approval turned into a run-wide one, grants nothing.
 */
export function runGrantors(
  snapshot: AgentSnapshot,
  toolName: string,
  secret: string | undefined,
): readonly RunGrant[] {
  if (!snapshot.runApprovals.includes(toolName)) return [];
  return snapshot.audit
    .slice(snapshot.runApprovalsSince ?? 0)
    .filter(
      (entry) =>
        entry.toolName === toolName &&
        entry.source === 'human' &&
        entry.scope === 'run' &&
        entry.decision === 'approved' &&
        (secret === undefined || decisionSignatureOf(secret, snapshot, entry) === 'v2'),
    )
    .map((entry) => ({ approvalId: entry.approvalId, by: entry.by }));
}

/**
 * Forgets every `scope: 'run'` approval of the run: from now on those tools
 * are asked about again. Returns a new snapshot (the same one if there was
 * nothing to forget).
 *
 * @example
 * const stricter = clearRunApprovals(snap);
 * stricter.runApprovals; // []
 */
export function clearRunApprovals(snapshot: AgentSnapshot, options: { now?: number } = {}): AgentSnapshot {
  if (snapshot.runApprovals.length === 0 || ['completed', 'failed', 'cancelled'].includes(snapshot.status))
    return snapshot;
  return step(snapshot, { type: 'FORGET_RUN_APPROVALS', at: options.now ?? Date.now() });
}

/**
 * Every decision of the run, human or automatic, oldest first: who, when,
 * what, scope, source (human, rule, memory, expiry, tool, default), the rule
 * that applied and the digests of the original and edited arguments.
 *
 * @example
 * for (const entry of auditLog(done)) console.log(entry.toolName, entry.decision, entry.source, entry.by);
 */
export function auditLog(snapshot: AgentSnapshot): readonly AuditEntry[] {
  return snapshot.audit;
}
