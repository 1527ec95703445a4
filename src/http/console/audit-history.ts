import type { AuditEntry } from '../../index.js';
import type { EventFeed } from '../events-route.js';

/** An approval's arguments before and after an approver edited them, both as display copies (redacted, escaped). */
export interface ArgsEdit {
  readonly before: unknown;
  readonly after: unknown;
}

/** One decision of the history: the audit entry and the run it belongs to, and, for an edit made on this console, the edit. */
export interface HistoryEntry extends AuditEntry {
  readonly runId: string;
  readonly agentName: string;
  /** When the decided request was made, where the event said (`approval-resolved`'s `requestedAt`). */
  readonly requestedAt?: number;
  readonly edit?: ArgsEdit;
}

/** What the history search asks for; every field optional. */
export interface HistoryQuery {
  /** Part of the tool's name. */
  readonly tool?: string | undefined;
  /** Part of who decided (`by`). */
  readonly by?: string | undefined;
  readonly decision?: 'approved' | 'denied' | undefined;
  /** Epoch ms, inclusive. */
  readonly since?: number | undefined;
  /** Epoch ms, inclusive. */
  readonly until?: number | undefined;
}

/**
 * The decisions this app has seen go by on its event feed (`approval-resolved`), newest first, the last `limit` of
 * them: the store keeps each run's audit with the run but has no index across runs, so the console's history is the
 * feed's, bounded in memory. It listens from the first time the console is used (`start`), so an app whose console
 * nobody opens adds no listener to the feed. With a feed that carries every process's events (a Redis stream
 * reader), it covers them all. An edit made on this console (`noteEdit`) is shown with the decision as what it changed.
 *
 * @example
 * const history = auditHistory({ subscribe: (listener) => runtime.subscribe(listener) }, 1000);
 * history.start();
 * history.search({ decision: 'denied' });
 */
export function auditHistory(feed: EventFeed, limit: number, clock: () => number = Date.now) {
  const entries: HistoryEntry[] = [];
  /** The edits made on this console, by approval id (the event carries only the edit's digest): the last `limit`. */
  const edits = new Map<string, ArgsEdit>();
  let startedAt: number | undefined;
  let dropped = false;
  const start = () => {
    if (startedAt !== undefined) return;
    startedAt = clock();
    feed.subscribe((event) => {
      if (event.type !== 'approval-resolved') return;
      const requestedAt = event.requestedAt === undefined ? {} : { requestedAt: event.requestedAt };
      entries.unshift({ ...event.entry, runId: event.runId, agentName: event.agentName, ...requestedAt });
      if (entries.length > limit) {
        entries.pop();
        dropped = true;
      }
    });
  };
  const lower = (text: string | undefined) => text?.toLowerCase();
  const withEdit = (entry: HistoryEntry): HistoryEntry => {
    const edit =
      entry.approvalId === undefined || entry.editedArgsDigest === undefined ? undefined : edits.get(entry.approvalId);
    return edit === undefined ? entry : { ...entry, edit };
  };
  return {
    start,
    /** What the history covers: since when it listens (undefined before `start`), how many it keeps, and whether it let older ones go. */
    coverage: () => ({ listeningSince: startedAt, limit, dropped }),
    /** Keeps what an edit on this console changed, for the history to show as a diff. */
    noteEdit(approvalId: string, edit: ArgsEdit): void {
      edits.set(approvalId, edit);
      if (edits.size > limit) edits.delete(edits.keys().next().value!);
    },
    search(query: HistoryQuery): readonly HistoryEntry[] {
      const tool = lower(query.tool);
      const by = lower(query.by);
      return entries
        .filter(
          (entry) =>
            (tool === undefined || entry.toolName.toLowerCase().includes(tool)) &&
            (by === undefined || (entry.by ?? '').toLowerCase().includes(by)) &&
            (query.decision === undefined || entry.decision === query.decision) &&
            (query.since === undefined || entry.at >= query.since) &&
            (query.until === undefined || entry.at <= query.until),
        )
        .map(withEdit);
    },
  };
}

export type AuditHistory = ReturnType<typeof auditHistory>;
