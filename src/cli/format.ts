import type { AgentSnapshot, ApprovalRequest } from '../machine/types.js';

/** Shows control characters as `\xNN` so text from a model cannot move the cursor, recolour or retitle the reviewer's terminal. */
function inert(text: string): string {
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, (char) => `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

function when(epochMs: number | undefined): string {
  return epochMs === undefined ? 'never' : new Date(epochMs).toISOString();
}

/** A pending request as a reviewer reads it in a terminal: what, why, warnings first. */
export function formatRequest(runId: string, request: ApprovalRequest, now: number): string {
  const lines = [
    `${inert(request.toolName)}  ${inert(request.description)}`,
    `  run ${runId}  approval ${request.approvalId}`,
    `  requested ${when(request.requestedAt)}  expires ${when(request.expiresAt)}${
      request.expiresAt !== undefined && request.expiresAt <= now ? ' (EXPIRED)' : ''
    }`,
  ];
  if (request.reason) lines.push(`  why asked: ${inert(request.reason)}`);
  if (request.outcomeUnknown) lines.push('  ! this call was interrupted before it reported; it may already have had its effect');
  for (const warning of request.warnings) lines.push(`  ! ${warning.code} at ${inert(warning.path)}: ${inert(warning.message)}`);
  if (request.approvers) lines.push(`  approvers: ${request.approvers.join(', ')}`);
  lines.push(
    ...JSON.stringify(request.args, null, 2)
      .split('\n')
      .map((line) => `  | ${line}`),
  );
  return lines.join('\n');
}

/** A run's state in a few lines. */
export function formatRun(snapshot: AgentSnapshot, now: number): string {
  const lines = [
    `run ${snapshot.runId}  agent ${snapshot.agentName}`,
    `  status ${snapshot.status}${snapshot.stopReason ? ` (${snapshot.stopReason})` : ''}  turns ${snapshot.turns}/${snapshot.maxTurns}  version ${snapshot.version}`,
  ];
  if (snapshot.output !== undefined) lines.push(`  output: ${inert(snapshot.output)}`);
  if (snapshot.error) lines.push(`  error: ${snapshot.error.code}: ${inert(snapshot.error.message)}`);
  for (const request of snapshot.pendingApprovals) lines.push(formatRequest(snapshot.runId, request, now).replace(/^/gm, '  '));
  for (const entry of snapshot.audit) {
    lines.push(
      `  audit ${when(entry.at)} ${entry.toolName} ${entry.decision} by ${inert(entry.by ?? entry.source)}${entry.reason ? `: ${inert(entry.reason)}` : ''}`,
    );
  }
  return lines.join('\n');
}
