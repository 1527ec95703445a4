import type { AuditEntry } from '../index.js';

/** How a decision ended the wait: `approved`, `denied`, `expired` or `dismissed`. */
export function outcomeOf(entry: AuditEntry): 'approved' | 'denied' | 'expired' | 'dismissed' {
  if (entry.decision === 'approved') return 'approved';
  if (entry.source === 'expiry') return 'expired';
  return entry.source === 'dismissed' ? 'dismissed' : 'denied';
}

/** Who or what decided: the audit's source, with a quorum's human decision called `vote`. */
export function sourceOf(entry: AuditEntry): string {
  return entry.source === 'human' && entry.votes !== undefined && entry.votes.length > 0 ? 'vote' : entry.source;
}
