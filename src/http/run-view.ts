import type { ApprovalRequest, AuditEntry, RunError, RunStatus, StopReason, AgentSnapshot } from '../index.js';

/**
 * What the approval app shows of a run: status, pending approvals (their
 * arguments are the redacted display copy), audit, output. Never the raw
 * messages or tool results, which may hold secrets.
 *
 * @example
 * const res = await app.request(`/runs/${runId}`, { headers: { authorization: `Bearer ${token}` } });
 * const view = (await res.json()) as RunView;
 * view.pendingApprovals[0]?.toolName; // 'delete_file'
 */
export interface RunView {
  readonly runId: string;
  readonly agentName: string;
  readonly sessionId?: string;
  readonly status: RunStatus;
  readonly stopReason?: StopReason;
  readonly pendingApprovals: readonly ApprovalRequest[];
  readonly audit: readonly AuditEntry[];
  readonly output?: string;
  readonly error?: RunError;
  readonly version: number;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/**
 * The public view of a snapshot (see `RunView`).
 *
 * @example
 * const view = runView(await runtime.get(runId));
 */
export function runView(snapshot: AgentSnapshot): RunView {
  return {
    runId: snapshot.runId,
    agentName: snapshot.agentName,
    ...(snapshot.sessionId === undefined ? {} : { sessionId: snapshot.sessionId }),
    status: snapshot.status,
    ...(snapshot.stopReason === undefined ? {} : { stopReason: snapshot.stopReason }),
    pendingApprovals: snapshot.pendingApprovals,
    audit: snapshot.audit,
    ...(snapshot.output === undefined ? {} : { output: snapshot.output }),
    ...(snapshot.error === undefined ? {} : { error: snapshot.error }),
    version: snapshot.version,
    createdAt: snapshot.createdAt,
    updatedAt: snapshot.updatedAt,
  };
}
