import type { AgentSnapshot, ApprovalRequest, AuditEntry, RunError } from './types.js';

/** What happened to a run, announced to `onEvent`, notifiers and streams. */
export type RunEvent =
  | { readonly type: 'approval-requested'; readonly runId: string; readonly agentName: string; readonly request: ApprovalRequest }
  | { readonly type: 'approval-resolved'; readonly runId: string; readonly agentName: string; readonly entry: AuditEntry }
  | { readonly type: 'run-completed'; readonly runId: string; readonly agentName: string; readonly output: string }
  | { readonly type: 'run-failed'; readonly runId: string; readonly agentName: string; readonly error: RunError }
  | { readonly type: 'run-cancelled'; readonly runId: string; readonly agentName: string; readonly reason: string };

/** The events that lead from `before` to `after` (a later snapshot of the same run). */
export function eventsBetween(before: AgentSnapshot | undefined, after: AgentSnapshot): RunEvent[] {
  const { runId, agentName } = after;
  const events: RunEvent[] = [];
  // Index loops, and nothing to compare when a step kept the list: most steps of a long turn touch neither.
  if (after.audit !== before?.audit) {
    for (let index = before?.audit.length ?? 0; index < after.audit.length; index++) {
      events.push({ type: 'approval-resolved', runId, agentName, entry: after.audit[index]! });
    }
  }
  if (after.pendingApprovals !== before?.pendingApprovals) {
    const known = new Set(before?.pendingApprovals.map((request) => request.approvalId));
    for (const request of after.pendingApprovals) {
      if (!known.has(request.approvalId)) events.push({ type: 'approval-requested', runId, agentName, request });
    }
  }
  if (before?.status !== after.status) {
    if (after.status === 'completed') events.push({ type: 'run-completed', runId, agentName, output: after.output ?? '' });
    if (after.status === 'failed' && after.error) events.push({ type: 'run-failed', runId, agentName, error: after.error });
    if (after.status === 'cancelled') {
      events.push({ type: 'run-cancelled', runId, agentName, reason: after.error?.message ?? '' });
    }
  }
  return events;
}
