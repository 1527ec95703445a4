import type { AgentEvent, Decision } from '../machine/agent-machine.js';
import { stepAll } from '../machine/step.js';
import { liftedRequests } from '../run/child-requests.js';
import { historyOf } from './nudge.js';
import { denialResult } from '../run/tool-results.js';
import type { AgentSnapshot } from '../run/agent-snapshot.js';

/**
 * Denials for every pending request of `snapshot` whose `expiresAt` has
 * passed at `now` and whose `onExpire` is `'deny'` (the default). Requests
 * set to `'keep'` stay pending and decidable.
 * @internal the loop, the runtime's sweep and the MCP gateway apply these; a user sees the result as audit entries
 * with source `expiry` when the run is executed.
 */
export function expiryDecisions(snapshot: AgentSnapshot, now: number): Decision[] {
  const decisions: Decision[] = [];
  if (snapshot.status !== 'awaitingApproval') return decisions;
  // A loop, not filter and map: the requests are a frozen array, which those are slow over on Node 20, and this runs at every pause.
  for (const request of snapshot.pendingApprovals) {
    // A sub-agent's request (listed with its path) expires in the sub-agent's own run: see expiryEvents.
    if (request.path !== undefined) continue;
    if (request.expiresAt === undefined || request.expiresAt > now || (request.onExpire ?? 'deny') !== 'deny') continue;
    decisions.push({
      approvalId: request.approvalId,
      approved: false,
      denialResult: denialResult('expired', 'expiry'),
      audit: {
        approvalId: request.approvalId,
        toolCallId: request.toolCallId,
        toolName: request.toolName,
        decision: 'denied',
        source: 'expiry',
        scope: 'once',
        at: now,
        reason: 'expired',
        argsDigest: request.argsDigest,
        ...historyOf(request),
      },
    });
  }
  return decisions;
}

/**
 * The steps that apply expiry at `now` to a run and to the sub-agent runs its delegate calls wait on (`agentAsTool`),
 * each in its own run: the sub-agents' first (each a `CHILD_UPDATED` with what its run became), then the run's own
 * denials. Empty when nothing expired.
 * @internal the loop and the runtime's sweep apply these.
 */
export function expiryEvents(snapshot: AgentSnapshot, now: number): AgentEvent[] {
  if (snapshot.status !== 'awaitingApproval') return [];
  const events: AgentEvent[] = [];
  for (const record of snapshot.toolCalls) {
    const child = record.child as AgentSnapshot | undefined;
    if (child === undefined) continue;
    const own = expiryEvents(child, now);
    if (own.length === 0) continue;
    const after = stepAll(child, own);
    events.push({
      type: 'CHILD_UPDATED',
      at: now,
      toolCallId: record.toolCallId,
      child: after,
      requests: liftedRequests(record, after),
    });
  }
  const decisions = expiryDecisions(snapshot, now);
  if (decisions.length > 0) events.push({ type: 'DECIDED', at: now, decisions });
  return events;
}
