// The wait for a person as a span: from the request to its decision, reported by whichever process recorded the
// decision, under the trace the request was asked in.
import { context, type Attributes, type Tracer, SpanKind } from '@opentelemetry/api';
import type { ApprovalRequest, AuditEntry } from '../index.js';
import { sourceOf } from './approval-outcome.js';
import { decisionOutcome } from '../kit/index.js';
import { contextOf } from './trace-context.js';

/** What a wait span says of a request and its decision; who decided only with `recordDeciders`. */
function waitAttributes(request: ApprovalRequest, entry: AuditEntry, runId: string, recordDeciders: boolean) {
  const votes = entry.votes ?? [];
  const attributes: Attributes = {
    'gen_ai.tool.name': request.toolName,
    'gen_ai.tool.call.id': request.toolCallId,
    'countersign.run.id': runId,
    'countersign.approval.id': request.approvalId,
    'countersign.approval.outcome': decisionOutcome(entry),
    'countersign.approval.source': sourceOf(entry),
    'countersign.approval.scope': entry.scope,
    'countersign.approval.reminders': request.history?.reminders ?? 0,
  };
  if (request.expiresAt !== undefined)
    attributes['countersign.approval.deadline'] = new Date(request.expiresAt).toISOString();
  if (request.ruleId !== undefined) attributes['countersign.approval.rule_id'] = request.ruleId;
  if (request.quorum !== undefined) {
    attributes['countersign.approval.quorum.required'] = request.quorum.required;
    attributes['countersign.approval.quorum.approvals'] = votes.filter((vote) => vote.approved).length;
    attributes['countersign.approval.quorum.votes'] = votes.length;
  }
  if (recordDeciders) {
    if (entry.by !== undefined) attributes['countersign.approval.decided_by'] = entry.by;
    const voters = votes.flatMap((vote) => (vote.by === undefined ? [] : [vote.by]));
    if (voters.length > 0) attributes['countersign.approval.voters'] = voters;
  }
  return attributes;
}

/** Reports the wait `request` → `entry` as a span from `requestedAt` to the decision, with its escalations as events. */
export function recordWait(
  tracer: Tracer,
  request: ApprovalRequest,
  entry: AuditEntry,
  runId: string,
  recordDeciders: boolean,
): void {
  const span = tracer.startSpan(
    `countersign.approval ${request.toolName}`,
    {
      kind: SpanKind.INTERNAL,
      startTime: request.requestedAt,
      attributes: waitAttributes(request, entry, runId, recordDeciders),
    },
    contextOf(request.traceparent) ?? context.active(),
  );
  for (const escalation of entry.history?.escalations ?? []) {
    const target = escalation.to;
    const to = 'channel' in target ? `channel:${target.channel}` : target.join(',');
    span.addEvent(
      'countersign.approval.escalated',
      recordDeciders ? { 'countersign.escalated.to': to } : {},
      escalation.at,
    );
  }
  span.end(entry.at);
}
