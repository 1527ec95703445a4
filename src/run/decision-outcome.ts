import type { AuditEntry } from './types.js';

/** How a decision settled its request: approved, denied, expired (nobody decided in time) or dismissed (closed undecided). */
export type DecisionOutcome = 'approved' | 'denied' | 'expired' | 'dismissed';

/** How `entry` settled its request. */
export function decisionOutcome(entry: Pick<AuditEntry, 'decision' | 'source'>): DecisionOutcome {
  if (entry.decision === 'approved') return 'approved';
  if (entry.source === 'expiry') return 'expired';
  return entry.source === 'dismissed' ? 'dismissed' : 'denied';
}
