// Re-announcing the requests still waiting when a process starts (createRuntime({ announcePendingOnStart })): the
// process that announced a request may have died before its notifier delivered it. Each request is announced once
// however many processes start: the first to claim `announce:<runId>:<approvalId>` in the once store sends it, and
// the claim lasts until the request expires, so a crash-looping process does not post the same card again and again
// (reminders, `remindAfterMs`, are how a request is said again while it waits).
import { randomUUID } from 'node:crypto';
import { approvalRequested, type RunEvent } from '../run/run-events.js';
import type { OnceStore } from '../ports/once-store.js';
import type { PendingApprovalEntry, SnapshotStore } from '../ports/snapshot-store.js';

/** How long the claim on a request without an expiry lasts: a week, after which a start announces it again. */
export const ANNOUNCE_CLAIM_WITHOUT_EXPIRY_MS = 7 * 24 * 60 * 60 * 1000;

/** The page size of the pass over the store's pending requests (the most `listPending` gives). */
const PAGE = 500;

/**
 * What one pass of `runtime.announcePending()` did: `announced` the requests this process sent, `skipped` those
 * another process (or an earlier pass) had claimed, that expired, or that were decided meanwhile.
 *
 * @example
 * const { announced, skipped } = await runtime.announcePending();
 * console.log(`re-announced ${announced} waiting requests (${skipped} already announced elsewhere)`);
 */
export interface AnnounceReport {
  readonly announced: number;
  readonly skipped: number;
}

/** The key that claims the re-announcement of one request across every process. */
export function announceKey(runId: string, approvalId: string): string {
  return `announce:${runId}:${approvalId}`;
}

interface AnnouncerDeps {
  readonly store: SnapshotStore;
  readonly once: OnceStore;
  readonly clock: () => number;
  /** The runtime's own announcement: its listeners and its notifier, the path a new request's announcement takes. */
  readonly announce: (events: readonly RunEvent[]) => void;
  readonly reportError: (error: unknown, operation: string, runId?: string) => void;
  /** Names this process in its claims (the runtime's `workerId`). */
  readonly owner: string;
}

/**
 * `announcePending`: one pass over the store's pending requests, announcing each this process claims. A call while a
 * pass is under way returns that pass, so a caller can wait for the one `announcePendingOnStart` began.
 */
export function pendingAnnouncer(deps: AnnouncerDeps): () => Promise<AnnounceReport> {
  let running: Promise<AnnounceReport> | undefined;
  return () => {
    running ??= announceAll(deps).finally(() => {
      running = undefined;
    });
    return running;
  };
}

async function announceAll(deps: AnnouncerDeps): Promise<AnnounceReport> {
  let announced = 0;
  let skipped = 0;
  let cursor: string | undefined;
  try {
    do {
      const page = await deps.store.listPending({ limit: PAGE, ...(cursor === undefined ? {} : { cursor }) });
      const claimed = await claimAll(deps, page.items);
      skipped += page.items.length - claimed.length;
      for (const [runId, approvalIds] of groupByRun(claimed)) {
        const sent = await announceRun(deps, runId, approvalIds);
        announced += sent;
        skipped += approvalIds.size - sent;
      }
      cursor = page.cursor;
    } while (cursor !== undefined);
  } catch (error) {
    // The store could not be read: nothing more is announced now; a later start (or call) tries again.
    deps.reportError(error, 'announce');
  }
  return { announced, skipped };
}

/** The requests of the page this process claims: not expired, and not claimed by another process (claimed together, one round trip each). */
async function claimAll(deps: AnnouncerDeps, items: readonly PendingApprovalEntry[]): Promise<PendingApprovalEntry[]> {
  const now = deps.clock();
  const claims = await Promise.all(
    items.map(async (item) => {
      const { runId, request } = item;
      if (request.expiresAt !== undefined && request.expiresAt <= now) return undefined;
      const ttlMs =
        request.expiresAt === undefined
          ? ANNOUNCE_CLAIM_WITHOUT_EXPIRY_MS
          : Math.max(1, Math.ceil(request.expiresAt - now));
      try {
        const held = await deps.once.putIfAbsent(
          announceKey(runId, request.approvalId),
          `${deps.owner}:${randomUUID()}`,
          ttlMs,
        );
        return held === undefined ? item : undefined;
      } catch (error) {
        deps.reportError(error, 'announce', runId);
        return undefined;
      }
    }),
  );
  return claims.filter((item) => item !== undefined);
}

/** The claimed approval ids of each run, so each run is loaded once. */
function groupByRun(claimed: readonly PendingApprovalEntry[]): Map<string, Set<string>> {
  const runs = new Map<string, Set<string>>();
  for (const item of claimed) {
    const ids = runs.get(item.runId) ?? new Set<string>();
    ids.add(item.request.approvalId);
    runs.set(item.runId, ids);
  }
  return runs;
}

/**
 * Announces the claimed requests of one run as the run holds them now (its origin, session and requester go with
 * them, as on the first announcement); a request decided since it was listed is not announced. Returns how many were.
 */
async function announceRun(deps: AnnouncerDeps, runId: string, approvalIds: ReadonlySet<string>): Promise<number> {
  try {
    const run = await deps.store.load(runId);
    if (run === undefined || run.status !== 'awaitingApproval') return 0;
    const events = run.pendingApprovals
      .filter((request) => approvalIds.has(request.approvalId))
      .map((request) => approvalRequested(run, request));
    deps.announce(events);
    return events.length;
  } catch (error) {
    deps.reportError(error, 'announce', runId);
    return 0;
  }
}
