import type { CancelSignal } from './cancel-signal.js';
import type { OnceStore } from './once-store.js';
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
 * Optional work a commit may do atomically with the write, where the store can.
 *
 * @example
 * const receipt = await store.commit(next, previous.version, events, { queue });
 * if (!receipt?.queued) await queue.enqueue(next.runId);
 */
export interface CommitOptions {
  /**
   * A resume queue to put the run on once the commit lands. A store that can do it in the commit itself (the Redis
   * store on one server, with the queue made on its connection) does, and answers `{ queued: true }`; otherwise
   * the caller enqueues after the commit.
   */
  readonly queue?: { enqueue(runId: string): Promise<void> };
  /**
   * A `replaceRemembered(key, expected, value, ttlMs)` to make once the commit lands. A store that can do it in the
   * commit itself (the Redis store on one server) does, and answers `{ replaced: true }` when the key still held
   * `expected`; otherwise (`replaced: false`, or no receipt) the caller makes it.
   */
  readonly replaceRemembered?: { readonly key: string; readonly expected: string; readonly value: string; readonly ttlMs: number };
  /**
   * A `putIfAbsent(key, value, ttlMs)` on the store's `once`, made by the commit itself before it writes: when the key
   * is already held, nothing is written and the receipt's `held` is what it holds. Only for a store whose
   * `claimsInCommit` is true (one that cannot make it atomically with the write must refuse it, never drop it).
   */
  readonly claimRemembered?: { readonly key: string; readonly value: string; readonly ttlMs: number };
}

/**
 * What a commit did beyond the write: `queued` when it also put the run on `CommitOptions.queue`, `replaced` when
 * it made `CommitOptions.replaceRemembered` or `claimRemembered`. A store that returns nothing did neither.
 *
 * @example
 * const receipt: CommitReceipt | void = await store.commit(next, 3, [], { queue });
 */
export interface CommitReceipt {
  readonly queued: boolean;
  readonly replaced: boolean;
  /** What `CommitOptions.claimRemembered`'s key already held: then nothing was written. */
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
 * - A store that cannot be reached throws `StoreUnavailableError`.
 */
export interface SnapshotStore {
  /** Stores a new run (version as in the snapshot); throws `VersionConflictError` if the id is taken. */
  create(snapshot: AgentSnapshot, events?: readonly RunEvent[]): Promise<void>;
  load(runId: string): Promise<AgentSnapshot | undefined>;
  // biome-ignore lint/suspicious/noConfusingVoidType: a store that does nothing beyond the write returns nothing
  commit(next: AgentSnapshot, expectedVersion: number, events?: readonly RunEvent[], options?: CommitOptions): Promise<CommitReceipt | void>;
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
   * given no `once`. A store that folds `CommitOptions.replaceRemembered` into its commit must offer one: the
   * key it replaces lives there.
   */
  readonly once?: OnceStore;
  /**
   * True when `commit` takes `CommitOptions.claimRemembered` (in the same atomic write, on its `once`): a signed
   * delivery's webhook-id is then claimed by the commit of its decision, one round trip for both (the Redis store on
   * one server, not waiting for replicas).
   */
  readonly claimsInCommit?: boolean;
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
