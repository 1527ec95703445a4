import type { Decision } from '../machine/agent-machine.js';
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
