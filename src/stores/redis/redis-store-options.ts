import type { Cluster, Redis } from 'ioredis';
import type { RunEvent, CancelSignal, CommitWrite, OnceStore, SnapshotStore } from '../../index.js';
import type { RedisKeys } from './keys.js';

/**
 * Options of `createRedisStore`.
 *
 * @example
 * const options: RedisStoreOptions = { redis: new Redis(process.env.REDIS_URL!), prefix: 'myapp:', retentionMs: 86_400_000 };
 * const store = createRedisStore(options);
 */
export interface RedisStoreOptions {
  /** An ioredis connection or Cluster. The store defines its Lua commands on it. */
  readonly redis: Redis | Cluster;
  /** Put before every key; `cs:` by default (the notifier, queue and worker default to it too). No braces: the run id is the hash tag. */
  readonly prefix?: string;
  /** How long the keys of a finished (completed, failed, cancelled) run are kept: 7 days by default. */
  readonly retentionMs?: number;
  /** How long a waiting run is kept past its latest `expiresAt`: 1 day by default. A request without expiry keeps its run forever. */
  readonly graceMs?: number;
  /** Milliseconds since the epoch; `Date.now` by default. Used for TTLs and outbox ages. */
  readonly clock?: () => number;
  /**
   * What a commit waits for before it resolves, beyond the primary's memory. Without it, a commit is as durable
   * as the server's persistence, which this store does not check.
   *
   * - `{ replicas, timeoutMs }`: until `replicas` replicas hold it (Redis `WAIT`, up to `timeoutMs`, default
   *   1,000 ms). A commit not acknowledged in time rejects with a retryable `StoreUnavailableError`: it landed on
   *   the primary but might not survive a failover, so nothing is acknowledged on it (a retry of the decision finds
   *   it recorded). One server only, not a Cluster.
   * - `{ appendfsync: 'always' }`: the server must run `appendonly yes` with `appendfsync always` (Redis then
   *   fsyncs every write before replying). Checked with `CONFIG GET` before the first write, and again until it
   *   holds; a server that does not is a `ConfigError`, and nothing is written.
   */
  readonly durability?: { readonly replicas: number; readonly timeoutMs?: number } | { readonly appendfsync: 'always' };
  /**
   * Called when a step after a commit fails (publishing its events, updating
   * the indexes). The commit itself landed; its work stays in the run's
   * outbox until `drainOutboxes` (or `runsToRecover`) finishes it.
   */
  readonly onError?: (error: Error) => void;
  /**
   * Where a commit's events and index updates are applied. `'inline'` (the default on one server): inside the
   * commit's own script, so a commit is one round trip and publishes atomically with the state it announces.
   * `'outbox'` (always on a Cluster, whose indexes and stream live in other slots): the script queues them in the
   * run's outbox and a second round trip applies them; a process that dies in between leaves them for
   * `drainOutboxes`.
   */
  readonly publish?: 'inline' | 'outbox';
  /**
   * How often the connection that listens for cancels (while a run executes here) is pinged, in ms (default
   * 10,000). A ping unanswered by the next one means the link went quiet without closing (half-open): the
   * connection is dropped and made again, and every run executing here is read again, so a cancel sent meanwhile
   * still fires the running tool's signal.
   */
  readonly cancelHeartbeatMs?: number;
  /**
   * How many bytes of recent runs' snapshots the store keeps for `peek` (default 16 MiB, counted as the length of
   * their messages' text): a decision on one of them skips the load. The oldest go first; 0 keeps none.
   */
  readonly peekCacheBytes?: number;
}

/**
 * Options of `RedisStore.drainOutboxes`.
 *
 * @example
 * const options: DrainOptions = { minAgeMs: 30_000 };
 * setInterval(() => void store.drainOutboxes(options), 60_000);
 */
export interface DrainOptions {
  /** Leave entries younger than this to the commit that wrote them (5 s by default). */
  readonly minAgeMs?: number;
  /** Finish only entries written before this time (ms since the epoch); overrides `minAgeMs`. */
  readonly before?: number;
}

/**
 * A `SnapshotStore` on Redis, plus the repair of commits whose process died
 * between the commit and publishing its events.
 *
 * @example
 * const store: RedisStore = createRedisStore({ redis });
 * const moved = await store.drainOutboxes();
 */
export interface RedisStore extends SnapshotStore {
  /** The key names this store uses. */
  readonly keys: RedisKeys;
  /** A `OnceStore` on the same connection and prefix (`createRedisOnceStore`); where a commit settles a webhook-id's claim. */
  readonly once: OnceStore;
  /**
   * Whether a commit makes `write` in its own script: on one server publishing inline and not waiting for replicas,
   * every kind (an `enqueue` only onto a `createRedisResumeQueue` on this store's connection); otherwise none.
   */
  appliesAtomically(write: CommitWrite): boolean;
  /** Cancel notices on the pub/sub channel `${prefix}cancels`: one PUBLISH per cancel, one subscribed connection while a run executes here. */
  readonly cancels: CancelSignal;
  /**
   * Publishes the events and applies the index updates a commit left behind
   * when its process died right after it (SCANs every run's outbox: run it
   * from a periodic job, not per request). Returns how many outbox entries it
   * finished. `runsToRecover` calls it first.
   */
  drainOutboxes(options?: DrainOptions): Promise<number>;
  /** Adds events to the stream `${prefix}events` with no commit (one pipelined XADD each): see `SnapshotStore.publishTransient`. */
  publishTransient(events: readonly RunEvent[]): Promise<void>;
}
