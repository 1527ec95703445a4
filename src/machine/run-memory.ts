import { step } from './step.js';
import type { AgentSnapshot, AuditEntry } from './types.js';

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
  if (snapshot.runApprovals.length === 0 || ['completed', 'failed', 'cancelled'].includes(snapshot.status)) return snapshot;
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
