import { ApprovalSignatureError } from '../errors.js';
import { digestOf, hmac, safeEqual } from './digest.js';
import type { AgentSnapshot, AuditEntry, ToolCallRecord } from './types.js';
import { currentToolCalls } from './evaluate-calls.js';

function decisionMac(secret: string, runId: string, entry: AuditEntry): string {
  return hmac(secret, [
    'countersign.decision.v1',
    runId,
    entry.approvalId ?? '',
    entry.toolCallId,
    entry.toolName,
    entry.decision,
    entry.argsDigest,
    entry.editedArgsDigest ?? '',
  ]);
}

/** Adds the HMAC that binds a decision to its run, call, tool and exact arguments (when there is a secret). */
export function signDecision(secret: string | undefined, runId: string, entry: AuditEntry): AuditEntry {
  return secret === undefined ? entry : { ...entry, signature: decisionMac(secret, runId, entry) };
}

/**
 * Before an approved call runs: its approval must be signed, and the
 * arguments about to run must be the ones approved (the model's, or the
 * approved edit). Throws `ApprovalSignatureError`; nothing runs.
 */
export function verifyApprovedCall(secret: string | undefined, snapshot: AgentSnapshot, record: ToolCallRecord): void {
  if (secret === undefined) return;
  const entry = snapshot.audit.findLast((item) => item.toolCallId === record.toolCallId && item.decision === 'approved');
  const label = record.approvalId ?? record.toolCallId;
  if (!entry?.signature || !safeEqual(entry.signature, decisionMac(secret, snapshot.runId, entry))) {
    throw new ApprovalSignatureError(label, `call ${record.toolCallId} has no validly signed approval; the snapshot was altered. Nothing was run.`);
  }
  const call = currentToolCalls(snapshot).find((item) => item.id === record.toolCallId);
  const argsMatch = call !== undefined && call.name === entry.toolName && digestOf(call.args) === entry.argsDigest;
  const editMatch = record.editedArgs === undefined ? entry.editedArgsDigest === undefined : digestOf(record.editedArgs) === entry.editedArgsDigest;
  if (!argsMatch || !editMatch) {
    throw new ApprovalSignatureError(label, `the arguments of call ${record.toolCallId} are not the ones approved; the snapshot was altered. Nothing was run.`);
  }
}
