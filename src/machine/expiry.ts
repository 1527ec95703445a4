import type { Decision } from './agent-machine.js';
import { denialResult } from './tool-results.js';
import type { AgentSnapshot } from './types.js';

/**
 * Denials for every pending request of `snapshot` whose `expiresAt` has
 * passed at `now` and whose `onExpire` is `'deny'` (the default). Requests
 * set to `'keep'` stay pending and decidable.
 */
export function expiryDecisions(snapshot: AgentSnapshot, now: number): Decision[] {
  if (snapshot.status !== 'awaitingApproval') return [];
  return snapshot.pendingApprovals
    .filter((request) => request.expiresAt !== undefined && request.expiresAt <= now && (request.onExpire ?? 'deny') === 'deny')
    .map((request) => ({
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
      },
    }));
}
