import { UnsupportedCommitWriteError, VersionConflictError } from '../../errors.js';
import { createMemoryCancelSignal } from './memory-cancel-signal.js';
import { heldKeys } from './memory-once-store.js';
import type { CancelSignal } from '../../ports/cancel-signal.js';
import type { OnceStore } from '../../ports/once-store.js';
import type { RunEvent } from '../../run/run-events.js';
import type {
  CommitReceipt,
  CommitWrite,
  ListPendingOptions,
  PendingApprovalEntry,
  PendingPage,
  SnapshotStore,
} from '../../ports/snapshot-store.js';
import type { AgentSnapshot } from '../../run/agent-snapshot.js';
import { runNextNudgeAt } from '../../policy/nudge.js';

export interface MemoryStore extends SnapshotStore {
  /** Webhook ids, spent links and button ids, in this process's memory beside the runs. */
  readonly once: OnceStore;
  /** True for a `putIfAbsent` or `replaceIf` write (on `once`), made in the same step as the commit; false for an `enqueue`. */
  appliesAtomically(write: CommitWrite): boolean;
  /** Cancels told to the runtimes of this process that share the store. */
  readonly cancels: CancelSignal;
  /** Called with the events of every commit, after it lands. Returns a function that unsubscribes. */
  subscribe(listener: (event: RunEvent) => void): () => void;
}

/** Where a pending entry sorts: soonest expiry first, then by id; no expiry last. */
function sortKey(entry: PendingApprovalEntry): string {
  const expiresAt = entry.request.expiresAt ?? Number.MAX_SAFE_INTEGER;
  return `${expiresAt.toString().padStart(16, '0')}|${entry.request.approvalId}`;
}

function pageLimit(limit: number | undefined): number {
  return Math.min(Math.max(Math.trunc(limit ?? 50), 1), 500);
}

/**
 * The memory store makes a claim or a replace of a key on its own `once` with a commit (one step, nothing awaited
 * between); a job on a queue lives outside it, so an `enqueue` cannot be made with the run.
 */
const appliesAtomically = (write: CommitWrite): boolean => write.kind !== 'enqueue';

/** Refuses, before anything is written, a write the memory store cannot make, and more than one key write. */
function checkWrites(runId: string, writes: readonly CommitWrite[]): void {
  let keyWrites = 0;
  for (const write of writes) {
    if (!appliesAtomically(write))
      throw new UnsupportedCommitWriteError(
        runId,
        write.kind,
        'a job on a queue cannot be queued in the same step as a run kept in memory',
      );
    keyWrites += 1;
    if (keyWrites > 1) throw new UnsupportedCommitWriteError(runId, write.kind, 'a commit claims or replaces one key');
  }
}

/** The pending approvals of the runs, soonest expiry first, one page after `cursor`. */
function pendingPage(runs: Iterable<AgentSnapshot>, listOptions: ListPendingOptions): PendingPage {
  const limit = pageLimit(listOptions.limit);
  const entries: { key: string; entry: PendingApprovalEntry }[] = [];
  for (const run of runs) {
    if (run.status !== 'awaitingApproval' || (listOptions.agent !== undefined && run.agentName !== listOptions.agent))
      continue;
    if (listOptions.sessionId !== undefined && run.sessionId !== listOptions.sessionId) continue;
    for (const request of run.pendingApprovals) {
      const entry = {
        runId: run.runId,
        agentName: run.agentName,
        ...(run.sessionId === undefined ? {} : { sessionId: run.sessionId }),
        ...(run.requestedBy === undefined ? {} : { requestedBy: run.requestedBy }),
        request,
      };
      const key = sortKey(entry);
      if (listOptions.cursor === undefined || key > listOptions.cursor) entries.push({ key, entry });
    }
  }
  entries.sort((a, b) => (a.key < b.key ? -1 : 1));
  const page = entries.slice(0, limit);
  return {
    items: page.map((item) => item.entry),
    ...(entries.length > limit ? { cursor: page.at(-1)!.key } : {}),
  };
}

/** The ids of at most `limit` runs that `due` picks. */
function dueRuns(runs: Iterable<AgentSnapshot>, limit: number, due: (run: AgentSnapshot) => boolean): string[] {
  const picked: string[] = [];
  for (const run of runs) {
    if (picked.length >= limit) break;
    if (due(run)) picked.push(run.runId);
  }
  return picked;
}

/** A running run whose process is gone: every lease of its executing calls ended, or no progress since `staleBefore`. */
function abandoned(run: AgentSnapshot, now: number, staleBefore: number): boolean {
  if (run.status !== 'running') return false;
  const leased = run.toolCalls.filter((record) => record.status === 'executing');
  return leased.length > 0 ? leased.every((record) => (record.lease?.until ?? 0) <= now) : run.updatedAt < staleBefore;
}

/** A commit in memory: the version checked, a claim made or a remembered key replaced with the run, in one step. */
function commitTo(
  runs: Map<string, AgentSnapshot>,
  keys: ReturnType<typeof heldKeys>,
  next: AgentSnapshot,
  expectedVersion: number,
  writes: readonly CommitWrite[],
): CommitReceipt {
  checkWrites(next.runId, writes);
  const stored = runs.get(next.runId);
  if (!stored || stored.version !== expectedVersion)
    throw new VersionConflictError(next.runId, expectedVersion, stored?.version);
  if (next.messages.length < stored.messages.length) {
    throw new VersionConflictError(next.runId, expectedVersion, stored.version);
  }
  const claim = writes.find((write) => write.kind === 'putIfAbsent');
  const held = claim === undefined ? undefined : keys.putIfAbsent(claim.key, claim.value, claim.ttlMs);
  if (held !== undefined) return { replaced: false, held };
  runs.set(next.runId, next);
  const replace = writes.find((write) => write.kind === 'replaceIf');
  const replaced =
    replace === undefined
      ? claim !== undefined
      : keys.replace(replace.key, replace.expected, replace.value, replace.ttlMs);
  return { replaced };
}

/**
 * The embedded store: runs live in this process's memory. Nothing to
 * install, nothing survives a restart; use `createRedisStore` for that.
 *
 * @example
 * const runtime = createRuntime({ agents: [agent], store: createMemoryStore() });
 */
export function createMemoryStore(options: { clock?: () => number } = {}): MemoryStore {
  const clock = options.clock ?? Date.now;
  const runs = new Map<string, AgentSnapshot>();
  const keys = heldKeys(clock);
  const once: OnceStore = {
    putIfAbsent: async (key, value, ttlMs) => keys.putIfAbsent(key, value, ttlMs),
    get: async (key) => keys.get(key),
    replace: async (key, expected, value, ttlMs) => keys.replace(key, expected, value, ttlMs),
  };
  const listeners = new Set<(event: RunEvent) => void>();

  const publish = (events: readonly RunEvent[] | undefined) => {
    for (const event of events ?? []) {
      for (const listener of listeners) {
        try {
          listener(event);
        } catch {
          // One listener's failure must not stop the others or the commit.
        }
      }
    }
  };

  return {
    async create(snapshot, events) {
      if (runs.has(snapshot.runId))
        throw new VersionConflictError(snapshot.runId, snapshot.version, runs.get(snapshot.runId)!.version);
      runs.set(snapshot.runId, snapshot);
      publish(events);
    },
    async load(runId) {
      return runs.get(runId);
    },
    // Nothing awaits between the checks and the writes, so the run and its key writes land in one step.
    async commit(next, expectedVersion, events, commitOptions) {
      const receipt = commitTo(runs, keys, next, expectedVersion, commitOptions?.writes ?? []);
      if (receipt.held === undefined) publish(events);
      return receipt;
    },
    appliesAtomically,
    listPending: async (listOptions = {}) => pendingPage(runs.values(), listOptions),
    expiredRuns: async (now, limit = 100) =>
      dueRuns(
        runs.values(),
        limit,
        (run) =>
          run.status === 'awaitingApproval' &&
          run.pendingApprovals.some((r) => r.expiresAt !== undefined && r.expiresAt <= now),
      ),
    nudgeDueRuns: async (now, limit = 100) =>
      dueRuns(runs.values(), limit, (run) => {
        const at = runNextNudgeAt(run);
        return at !== undefined && at <= now;
      }),
    runsToRecover: async (now, staleBefore, limit = 100) =>
      dueRuns(runs.values(), limit, (run) => abandoned(run, now, staleBefore)),
    async delete(runId) {
      runs.delete(runId);
    },
    once,
    cancels: createMemoryCancelSignal(),
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
