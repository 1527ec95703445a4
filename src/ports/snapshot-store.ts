import type { CancelSignal } from './cancel-signal.js';
import type { OnceStore } from './once-store.js';
import type { ResumeQueue } from './resume-queue.js';
import type { RunEvent } from '../run/run-events.js';
import type { ApprovalRequest } from '../run/types.js';
import type { AgentSnapshot } from '../run/agent-snapshot.js';

/** One pending approval, as listed across runs. */
export interface PendingApprovalEntry {
  readonly runId: string;
  readonly agentName: string;
  /** The run's session, when it has one. */
  readonly sessionId?: string;
  /** Who asked for the run (`ExecuteInput.requestedBy`), so "may still vote" on a quorum request can leave them out. */
  readonly requestedBy?: string;
  readonly request: ApprovalRequest;
}

export interface PendingPage {
  readonly items: readonly PendingApprovalEntry[];
  /** Pass back to get the next page; absent on the last page. */
  readonly cursor?: string;
}

export interface ListPendingOptions {
  /** Page size; 50 by default, at most 500. */
  readonly limit?: number;
  readonly cursor?: string;
  /** Only this agent's runs. */
  readonly agent?: string;
  /** Only the runs of this session (`ExecuteInput.sessionId`). */
  readonly sessionId?: string;
}

/**
 * Puts the run on `queue` (`enqueue(runId)`) in the commit: the job is queued if and only if the run is written.
 *
 * @example
 * const write: EnqueueWrite = { kind: 'enqueue', queue };
 */
export interface EnqueueWrite {
  readonly kind: 'enqueue';
  readonly queue: ResumeQueue;
}

/**
 * Claims `key` on the store's `once` with `value` for `ttlMs` (as `OnceStore.putIfAbsent`), checked before the
 * commit writes: when the key already holds another value, nothing at all is written and the receipt's `held` is
 * what it holds. A key holding `value` itself counts as this claim (a resend).
 *
 * @example
 * const write: PutIfAbsentWrite = { kind: 'putIfAbsent', key: 'webhook:msg_1', value: answer, ttlMs: 86_400_000 };
 */
export interface PutIfAbsentWrite {
  readonly kind: 'putIfAbsent';
  readonly key: string;
  readonly value: string;
  readonly ttlMs: number;
}

/**
 * Replaces what `key` holds on the store's `once` with `value` for `ttlMs` when it still holds `expected` (as
 * `OnceStore.replace`), once the run is written; the receipt's `replaced` says whether it did. The run is written
 * either way.
 *
 * @example
 * const write: ReplaceIfWrite = { kind: 'replaceIf', key: 'webhook:msg_1', expected: claim, value: answer, ttlMs: 86_400_000 };
 */
export interface ReplaceIfWrite {
  readonly kind: 'replaceIf';
  readonly key: string;
  readonly expected: string;
  readonly value: string;
  readonly ttlMs: number;
}

/**
 * A write a commit makes in the same atomic step as the run's own, where the store can (`appliesAtomically`):
 * one round trip for the decision and what goes with it, and never one without the other. A closed union: a store
 * handles every kind, refusing those it cannot make atomically.
 *
 * @example
 * const writes: readonly CommitWrite[] = store.appliesAtomically?.({ kind: 'enqueue', queue }) ? [{ kind: 'enqueue', queue }] : [];
 * await store.commit(next, previous.version, events, { writes });
 */
export type CommitWrite = EnqueueWrite | PutIfAbsentWrite | ReplaceIfWrite;

/** The kinds of `CommitWrite`. */
export type CommitWriteKind = CommitWrite['kind'];

/**
 * What a commit carries beyond the run and its events.
 *
 * @example
 * await store.commit(next, previous.version, events, { writes: [{ kind: 'enqueue', queue }] });
 */
export interface CommitOptions {
  /**
   * Made in the same atomic step as the run's write, each of a kind the store `appliesAtomically`; the store
   * refuses the commit with `UnsupportedCommitWriteError` before writing anything when it cannot make one.
   */
  readonly writes?: readonly CommitWrite[];
}

/**
 * What a commit's writes did: `replaced` when its `replaceIf` or `putIfAbsent` write set its key, `held` when its
 * `putIfAbsent` write found the key held by another value (then nothing was written). An `enqueue` write the
 * store accepted was made. A store that returns nothing made no write beyond the run.
 *
 * @example
 * const receipt: CommitReceipt | void = await store.commit(next, 3, [], { writes });
 */
export interface CommitReceipt {
  readonly replaced: boolean;
  /** What a `putIfAbsent` write's key already held: then nothing was written. */
  readonly held?: string;
}

/**
 * Where runs live between steps. Implementations: `createMemoryStore()`
 * (countersign) and `createRedisStore()` (countersign/redis).
 *
 * Contract:
 * - `commit` is a compare-and-set on `version`: it stores `next` only if the
 *   stored run is at `expectedVersion`, else throws `VersionConflictError`.
 *   A call is one commit: when its write lands but the reply is lost and the
 *   store's client resends it, the resend is recognised by the id the store
 *   gave that call and the commit succeeds (a caller never sees its own
 *   commit as a conflict). A second call with the same snapshot is another
 *   commit, and fails with `VersionConflictError`.
 * - History is append-only: `next.messages` starts with the stored messages,
 *   and a commit writes only the ones after them.
 * - `events` are published only once the state they announce is committed
 *   (atomically with it where the store can).
 * - `options.writes` are made in the same atomic step as the run, or the
 *   commit is refused before anything is written (`UnsupportedCommitWriteError`);
 *   ask `appliesAtomically` first.
 * - A store that cannot be reached throws `StoreUnavailableError`.
 */
export interface SnapshotStore {
  /** Stores a new run (version as in the snapshot); throws `VersionConflictError` if the id is taken. */
  create(snapshot: AgentSnapshot, events?: readonly RunEvent[]): Promise<void>;
  load(runId: string): Promise<AgentSnapshot | undefined>;
  commit(
    next: AgentSnapshot,
    expectedVersion: number,
    events?: readonly RunEvent[],
    options?: CommitOptions,
    // biome-ignore lint/suspicious/noConfusingVoidType: a store that does nothing beyond the write returns nothing
  ): Promise<CommitReceipt | void>;
  /** Pending approvals across runs, soonest expiry first (requests without expiry last). */
  listPending(options?: ListPendingOptions): Promise<PendingPage>;
  /** Runs with at least one pending approval whose `expiresAt` is at or before `now`. */
  expiredRuns(now: number, limit?: number): Promise<readonly string[]>;
  /**
   * Runs waiting for a person with a reminder or an escalation due at or before `now`: those whose
   * `runNextNudgeAt(snapshot)` (the soonest `nextNudgeAt` of its pending requests) is at or before it. The sweeper
   * makes them; keep an index by that time, maintained with each commit, as for `expiredRuns`.
   */
  nudgeDueRuns(now: number, limit?: number): Promise<readonly string[]>;
  /** Runs left `running` with no live lease: a tool lease that ended, or no progress since `staleBefore`. */
  runsToRecover(now: number, staleBefore: number, limit?: number): Promise<readonly string[]>;
  delete(runId: string): Promise<void>;
  /**
   * Optional: the run's latest snapshot as this store last committed or loaded it, without asking the server, or
   * undefined. It may be stale (another process committed since); a commit from it then fails with
   * `VersionConflictError`, so a caller that changes it must load and try again on that, or when it finds
   * nothing to change. Lets a decision cost one round trip when this process wrote the run.
   */
  peek?(runId: string): AgentSnapshot | undefined;
  /**
   * Optional: a `OnceStore` on the same backend (same server, same prefix), which `createRuntime` uses when
   * given no `once`. A store that makes `putIfAbsent` or `replaceIf` writes must offer one: their keys live there.
   */
  readonly once?: OnceStore;
  /**
   * Optional: whether `commit` makes `write` in the same atomic step as the run's write (the Redis store on one
   * server, not waiting for replicas: every kind, an `enqueue` onto a queue on its own connection only). Without
   * it, a store makes no write: callers make them themselves, before or after the commit.
   */
  appliesAtomically?(write: CommitWrite): boolean;
  /**
   * Optional: publishes events that announce no state (a streaming model's `model-delta`) where this store
   * publishes its commits' events, at once and with no commit, so readers of that feed see a model's answer as it
   * comes. Best-effort: nothing is stored or retried, and a reader that was not listening never gets them.
   * `createRuntime` calls it for every delta; leave it out where nobody reads the store's events (memory).
   */
  publishTransient?(events: readonly RunEvent[]): Promise<void>;
  /**
   * Optional: how `runtime.cancel` reaches a run executing in another process (see `CancelSignal`). A store without
   * one keeps today's behaviour: a cancel fires the signals of calls running in the process that cancels, and a tool
   * running elsewhere runs to its end (its result is then refused by the compare-and-set, never recorded).
   */
  readonly cancels?: CancelSignal;
  /**
   * True when other processes and machines read and write these runs (Redis).
   * Whatever can write there can then forge a run's state, so `createRuntime`
   * warns once when an agent has no `decisionSecret`. Leave it out for a store
   * only this process uses.
   */
  readonly shared?: boolean;
}
