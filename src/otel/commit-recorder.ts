// What a landed commit tells the metrics and the wait spans: read from the events it announced and the run before it
// (where the decided request still is), so every surface that records a decision is covered by the one path.
import type { Tracer } from '@opentelemetry/api';
import type { AgentSnapshot, ApprovalRequest, RunEvent, Telemetry } from '../index.js';
import { sourceOf } from './approval-outcome.js';
import { decisionOutcome } from '../kit/index.js';
import { recordWait } from './approval-span.js';
import type { Instruments } from './instruments.js';

type Change = Parameters<Telemetry['recorded']>[0];

/** How many requests wait, by tool. */
function pendingByTool(requests: readonly ApprovalRequest[] | undefined): Map<string, number> {
  const counts = new Map<string, number>();
  for (const request of requests ?? []) counts.set(request.toolName, (counts.get(request.toolName) ?? 0) + 1);
  return counts;
}

/** The pending gauge moves by what the commit changed, so a request dropped by a cancel or a failure leaves it too. */
function countPending(instruments: Instruments, before: AgentSnapshot | undefined, after: AgentSnapshot): void {
  if (before?.pendingApprovals === after.pendingApprovals) return;
  const earlier = pendingByTool(before?.pendingApprovals);
  const now = pendingByTool(after.pendingApprovals);
  for (const tool of new Set([...earlier.keys(), ...now.keys()])) {
    const delta = (now.get(tool) ?? 0) - (earlier.get(tool) ?? 0);
    if (delta !== 0) instruments.pending.add(delta, { 'gen_ai.tool.name': tool });
  }
}

function recordEvent(event: RunEvent, instruments: Instruments): void {
  if (event.type === 'approval-reminder') instruments.reminders.add(1, { 'gen_ai.tool.name': event.request.toolName });
  else if (event.type === 'approval-escalated')
    instruments.escalations.add(1, { 'gen_ai.tool.name': event.request.toolName });
}

/** Records a landed commit: pending requests, decisions, grant uses, nudges, and the wait of each decided request. */
export function commitRecorder(tracer: Tracer, instruments: Instruments, recordDeciders: boolean) {
  return ({ before, after, events }: Change): void => {
    countPending(instruments, before, after);
    for (const event of events) {
      if (event.type !== 'approval-resolved') {
        recordEvent(event, instruments);
        continue;
      }
      const { entry } = event;
      const attributes = {
        'gen_ai.tool.name': entry.toolName,
        'countersign.approval.outcome': decisionOutcome(entry),
        'countersign.approval.source': sourceOf(entry),
      };
      instruments.decisions.add(1, attributes);
      if (entry.source === 'grant') instruments.grantUses.add(1, { 'gen_ai.tool.name': entry.toolName });
      const request =
        entry.approvalId === undefined
          ? undefined
          : before?.pendingApprovals.find((pending) => pending.approvalId === entry.approvalId);
      if (request === undefined) continue;
      instruments.wait.record(Math.max(0, entry.at - request.requestedAt), attributes);
      recordWait(tracer, request, entry, after.runId, recordDeciders);
    }
  };
}
