import { randomUUID } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import { ConfigError, SnapshotError, VersionConflictError } from '../../errors.js';
import { type RunEvent, SUPPORTED_SCHEMA_VERSIONS, type AgentSnapshot } from '../../index.js';
import { deepFreeze, checkMessages } from '../../kit/index.js';
import { redisKeys } from './keys.js';
import { sendBatch } from './redis-batch.js';
import { createDurability } from './redis-durability.js';
import { decodeIndex, decodeStoredHead, encodeIndex, encodeStoredHead, indexEntries, keysTtl } from './redis-encoding.js';
import { createIndexReads } from './redis-index-reads.js';
import { createRedisCancelSignal, DEFAULT_CANCEL_HEARTBEAT_MS } from './redis-cancel-signal.js';
import { createRedisOnceStore } from './redis-once-store.js';
import { createOutbox } from './redis-outbox.js';
import { DEFAULT_PEEK_CACHE_BYTES, RunCache } from './redis-run-cache.js';
import type { DrainOptions, RedisStore, RedisStoreOptions } from './redis-store-options.js';
import { redisCommitWrites } from './redis-commit-writes.js';
import { registerScripts } from './scripts.js';
import { addEventCommand } from './stream-event-entry.js';
import { guarded } from './unavailable.js';

const DAY = 86_400_000;
/** How old an outbox entry must be before a drain takes it from the commit that wrote it. */
const DEFAULT_DRAIN_AGE_MS = 5_000;

/** What the write script answers (see `WRITE_RUN`). */
type WriteReply = [code: number, detail: number | string | null, number?, number?];

/** ARGV 16 to 21 of the write script when the commit queues nothing and replaces no remembered key. */
const NOTHING_FOLDED: readonly string[] = ['', '', '', '', '', ''];

/**
 * A `SnapshotStore` on Redis (standalone or Cluster), through ioredis.
 *
 * Layout: each run keeps a small head hash, an append-only list of messages
 * and one of audit entries, and an outbox, all under the hash tag `{runId}`.
 * A commit is one Lua compare-and-set on the version that writes the new head,
 * appends only the new messages and audit entries, sets every key's TTL and
 * queues the commit's events in the outbox, atomically. Right after it, the
 * events go to the stream `${prefix}events` (fields `type`, `runId`, `event`)
 * and the pending and running indexes are updated; a process that dies in
 * between leaves that work in the outbox for `drainOutboxes`. A streaming
 * model's `model-delta` events go to the same stream at once, with no commit
 * (`publishTransient`).
 *
 * Indexes: `${prefix}pending`, `${prefix}pending:agent:<name>` and
 * `${prefix}pending:session:<id>` hold one member per pending approval, ordered
 * by expiry then approval id (all scores 0, the order is in the member's bytes,
 * so a page resumes exactly after its cursor); `expiredRuns` removes the
 * members of runs whose keys expired from all three, and a session's index
 * expires no sooner than its runs' keys; `${prefix}running:lease` and `${prefix}running:idle` hold running
 * runs by lease end and by `updatedAt`; `${prefix}nudges` holds waiting runs by when their next reminder or
 * escalation is due. They live outside the runs' slots, so
 * they are hints: every read checks them against the run's head and removes
 * what no longer holds.
 *
 * Cancels: `runtime.cancel` publishes a notice on the channel `${prefix}cancels`; a runtime executing runs listens
 * there on a connection of its own (a duplicate of `redis`) while it does (see `CancelSignal`).
 *
 * TTLs: a finished run's keys expire `retentionMs` after its last commit; a
 * waiting run's keys live until its latest `expiresAt` plus `graceMs` (no
 * expiry when a request has none); a running run's keys never expire.
 *
 * @example
 * import { Redis } from 'ioredis';
 * import { createRuntime } from 'countersign';
 * import { createRedisStore } from 'countersign/redis';
 *
 * const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
 * const store = createRedisStore({ redis, prefix: 'myapp:', retentionMs: 3 * 86_400_000 });
 * const runtime = createRuntime({ agents: [agent], store });
 */
export function createRedisStore(options: RedisStoreOptions): RedisStore {
  const { redis } = options;
  const keys = redisKeys(options.prefix);
  const retentionMs = options.retentionMs ?? 7 * DAY;
  const graceMs = options.graceMs ?? DAY;
  const clock = options.clock ?? Date.now;
  if (!(Number.isFinite(retentionMs) && retentionMs >= 1)) throw new ConfigError(`createRedisStore: retentionMs must be a positive number of milliseconds, got ${retentionMs}.`);
  if (!(Number.isFinite(graceMs) && graceMs >= 0)) throw new ConfigError(`createRedisStore: graceMs must be zero or more milliseconds, got ${graceMs}.`);
  if (options.publish !== undefined && options.publish !== 'inline' && options.publish !== 'outbox') {
    throw new ConfigError(`createRedisStore: publish must be 'inline' or 'outbox', got ${String(options.publish)}.`);
  }
  const cancelHeartbeatMs = options.cancelHeartbeatMs ?? DEFAULT_CANCEL_HEARTBEAT_MS;
  if (!(Number.isInteger(cancelHeartbeatMs) && cancelHeartbeatMs >= 1)) {
    throw new ConfigError(`createRedisStore: cancelHeartbeatMs must be a whole number of milliseconds, at least 1, got ${cancelHeartbeatMs}.`);
  }
  const peekCacheBytes = options.peekCacheBytes ?? DEFAULT_PEEK_CACHE_BYTES;
  if (!(Number.isInteger(peekCacheBytes) && peekCacheBytes >= 0)) {
    throw new ConfigError(`createRedisStore: peekCacheBytes must be a whole number of bytes, 0 or more, got ${peekCacheBytes}.`);
  }
  const durability = createDurability(redis, options.durability);
  const scripts = registerScripts(redis);
  const report = (error: Error) => {
    try {
      options.onError?.(error);
    } catch {
      // A failing error hook must not turn a landed commit into a failure.
    }
  };

  const runs = new RunCache(peekCacheBytes);
  const inline = !redis.isCluster && options.publish !== 'outbox';

  // ioredis adds a connection's keyPrefix to command keys but not to SCAN patterns or SCAN results.
  const connectionPrefix = String(
    (redis.isCluster ? ((redis as Cluster).options.redisOptions?.keyPrefix ?? (redis as Cluster).options.keyPrefix) : (redis as Redis).options.keyPrefix) ?? '',
  );
  /** Where the inline script finds the stream and the indexes: keys it is not given, so ioredis does not prefix them. */
  const fullPrefix = `${connectionPrefix}${keys.prefix}`;
  const { appliesAtomically, fold } = redisCommitWrites({
    redis,
    folds: inline && !durability.waitsForReplicas,
    connectionPrefix,
    rememberKey: (key) => keys.remember(key),
  });
  const outbox = createOutbox({ redis, keys, connectionPrefix, report });
  const indexes = createIndexReads(redis, keys, outbox);

  /** Runs the write script; returns its reply. */
  const write = async (mode: 'create' | number, next: AgentSnapshot, seenMessages: number, seenAudit: number, prepared: Prepared, folded: readonly string[] = NOTHING_FOLDED) => {
    if (durability.checksBeforeWrite) await durability.beforeWrite();
    const newMessages = next.messages.slice(seenMessages).map((message) => JSON.stringify(message));
    const newAudit = next.audit.slice(seenAudit).map((entry) => JSON.stringify(entry));
    const guess = runs.known(next.runId);
    const latestCommit = mode !== 'create' && guess?.version === mode ? guess.commit : '';
    try {
      return (await guarded(mode === 'create' ? 'create a run' : 'commit a run', () =>
        scripts.countersignWriteRun(
          ...keys.run(next.runId),
          mode,
          next.version,
          seenMessages,
          seenAudit,
          prepared.head,
          prepared.index,
          prepared.ttl,
          prepared.field,
          inline ? '' : prepared.meta,
          prepared.events.length,
          newMessages.length,
          newAudit.length,
          inline ? 'inline' : 'outbox',
          inline ? fullPrefix : '',
          latestCommit,
          ...folded,
          ...newMessages,
          ...newAudit,
          ...(inline ? prepared.events.flatMap((event) => [event.type, event.runId, JSON.stringify(event)]) : []),
        ),
      )) as WriteReply;
    } catch (error) {
      // Landed or not, what this store knew of the run may no longer hold.
      runs.forget(next.runId);
      throw error;
    }
  };

  /**
   * After a write that landed: reply 1 is this call's own write; reply 3 is
   * the same commit resent by ioredis after its first reply was lost, which
   * had landed, so its outbox entry (if not yet drained) is finished here.
   */
  const landed = async (snapshot: AgentSnapshot, prepared: Prepared, reply: WriteReply): Promise<void> => {
    runs.remember(snapshot, prepared.field);
    if (durability.waitsForReplicas) await durability.afterWrite(snapshot);
    if (reply[0] === 1) {
      if (reply[2] === 1) await outbox.finish(snapshot.runId, prepared.field, prepared.events, String(reply[1]), prepared.index);
      return;
    }
    const entry = reply[1];
    if (typeof entry === 'string') await outbox.finish(snapshot.runId, prepared.field, prepared.events, entry.split('\n')[2] ?? '', prepared.index);
  };

  interface Prepared {
    readonly head: string;
    readonly index: string;
    readonly ttl: number;
    /** The commit's outbox field and id: the version first, so fields sort in commit order. */
    readonly field: string;
    readonly meta: string;
    readonly events: readonly RunEvent[];
  }

  const prepare = (snapshot: AgentSnapshot, events: readonly RunEvent[]): Prepared => {
    // The audit list is stored apart (it grows per decision); one copy of the head without it and the messages.
    const { messages: _messages, audit: _audit, ...head } = snapshot;
    const now = clock();
    const ttl = keysTtl(snapshot, now, retentionMs, graceMs);
    return {
      head: encodeStoredHead(Object.assign(head, { audit: [] })),
      index: encodeIndex(indexEntries(snapshot, ttl)),
      ttl,
      // Also the commit's id: the script recognises a resend of this very commit by it.
      field: `${String(snapshot.version).padStart(12, '0')}:${randomUUID()}`,
      meta: inline ? '' : JSON.stringify({ t: now, events }),
      events,
    };
  };

  const store: RedisStore = {
    keys,
    shared: true,

    async create(snapshot, events = []) {
      const prepared = prepare(snapshot, events);
      const reply = await write('create', snapshot, 0, 0, prepared);
      if (reply[0] === 1 || reply[0] === 3) return landed(snapshot, prepared, reply);
      throw new VersionConflictError(snapshot.runId, snapshot.version, Number(reply[1]));
    },

    async load(runId) {
      const reply = (await guarded('load a run', () => scripts.countersignLoadRun(...(keys.run(runId).slice(0, 3) as [string, string, string])))) as
        | [string, string, string[], string[], string]
        | null;
      if (!reply) {
        runs.forget(runId);
        return undefined;
      }
      const [version, headText, messageTexts, auditTexts, commit] = reply;
      const head = decodeStoredHead(headText, auditTexts);
      let messages: unknown;
      try {
        messages = messageTexts.length === 0 ? [] : JSON.parse(`[${messageTexts.join(',')}]`);
      } catch (error) {
        throw new SnapshotError(`Invalid snapshot in Redis: a message of run ${runId} is not JSON.`, {
          path: 'messages',
          supportedVersions: SUPPORTED_SCHEMA_VERSIONS,
          cause: error,
        });
      }
      checkMessages(messages);
      const snapshot = deepFreeze({ ...head, messages } as AgentSnapshot);
      // A head whose own version disagrees with the stored one is not vouched for: nothing is kept from it.
      if (Number(version) === snapshot.version) runs.remember(snapshot, commit);
      else runs.forget(runId);
      return snapshot;
    },

    peek: (runId) => runs.peek(runId),

    async commit(next, expectedVersion, events = [], commitOptions = {}) {
      if (next.version <= expectedVersion) {
        throw new ConfigError(
          `commit: run ${next.runId} has version ${next.version}, not above the expected ${expectedVersion}; ` +
            'commit the snapshot a step returned (every step raises the version), so a resent commit can be told apart.',
        );
      }
      const guess = runs.known(next.runId);
      // Without a count we know, guess that nothing is new: the script answers with the real counts if not.
      let seenMessages = guess?.version === expectedVersion ? guess.messages : next.messages.length;
      let seenAudit = guess?.version === expectedVersion ? guess.audit : next.audit.length;
      const prepared = prepare(next, events);
      const { folded, remembered } = fold(next.runId, commitOptions.writes ?? []);
      for (let attempt = 0; attempt < 2; attempt++) {
        const reply = await write(expectedVersion, next, seenMessages, seenAudit, prepared, folded);
        if (reply[0] === 4) return { replaced: false, held: String(reply[1]) };
        if (reply[0] === 1 || reply[0] === 3) {
          await landed(next, prepared, reply);
          // A resent commit (3) had queued the job with its first landing; whether that landing also set the remembered
          // key shows in what the key holds now (its value is unique to this commit's claim or answer).
          const replaced =
            reply[0] === 1
              ? reply[3] === 1
              : remembered !== undefined && (await guarded('read a remembered key', () => redis.get(keys.remember(remembered.key)))) === remembered.value;
          return { replaced };
        }
        const actual = Number(reply[1]);
        if (reply[0] === 0) {
          runs.forget(next.runId);
          throw new VersionConflictError(next.runId, expectedVersion, actual === -1 ? undefined : actual);
        }
        seenMessages = Number(reply[2]);
        seenAudit = Number(reply[3]);
        // History is append-only: a snapshot with fewer messages than stored is not a successor of the stored run.
        if (seenMessages > next.messages.length || seenAudit > next.audit.length) throw new VersionConflictError(next.runId, expectedVersion, actual);
      }
      throw new VersionConflictError(next.runId, expectedVersion, undefined);
    },

    listPending: (listOptions = {}) => indexes.listPending(listOptions),

    expiredRuns: (now, limit = 100) => indexes.expiredRuns(now, limit),
    nudgeDueRuns: (now, limit = 100) => indexes.nudgeDueRuns(now, limit),

    async runsToRecover(now, staleBefore, limit = 100) {
      // A commit from before staleBefore is abandoned too: its process would have finished it long ago.
      await store.drainOutboxes({ before: Math.max(clock() - DEFAULT_DRAIN_AGE_MS, staleBefore) });
      return indexes.abandonedRuns(now, staleBefore, limit);
    },

    async delete(runId) {
      runs.forget(runId);
      const previous = (await guarded('delete a run', () => scripts.countersignDeleteRun(...keys.run(runId)))) as string | null;
      const entries = decodeIndex(previous);
      if (entries.length > 0) await guarded('remove a run from the indexes', () => sendBatch(redis, outbox.applyIndex(entries, [])));
    },

    once: createRedisOnceStore({ redis, prefix: keys.prefix }),

    cancels: createRedisCancelSignal(redis, keys.cancels, cancelHeartbeatMs),

    appliesAtomically,

    async publishTransient(events) {
      await guarded('publish model deltas', () =>
        sendBatch(
          redis,
          events.map((event) => addEventCommand(keys.events, event)),
        ),
      );
    },

    drainOutboxes: (drainOptions: DrainOptions = {}) => outbox.drain(drainOptions.before ?? clock() - (drainOptions.minAgeMs ?? DEFAULT_DRAIN_AGE_MS)),
  };
  return store;
}
