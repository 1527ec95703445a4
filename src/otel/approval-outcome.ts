import type { AuditEntry } from '../index.js';

/** Who or what decided: the audit's source, with a quorum's human decision called `vote`. */
export function sourceOf(entry: AuditEntry): string {
  return entry.source === 'human' && entry.votes !== undefined && entry.votes.length > 0 ? 'vote' : entry.source;
}
