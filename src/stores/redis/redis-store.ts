import type { Cluster, Redis } from 'ioredis';
import { ConfigError, SnapshotError } from '../../errors.js';
import { SUPPORTED_SCHEMA_VERSIONS, type AgentSnapshot } from '../../index.js';
import { deepFreeze, checkMessages } from '../../kit/index.js';
import { redisKeys } from './keys.js';
import { sendBatch } from './redis-batch.js';
import { createDurability } from './redis-durability.js';
import { decodeIndex, decodeStoredHead } from './redis-encoding.js';
import { createIndexReads } from './redis-index-reads.js';
import { createRedisCancelSignal, DEFAULT_CANCEL_HEARTBEAT_MS } from './redis-cancel-signal.js';
import { createRedisOnceStore } from './redis-once-store.js';
import { createOutbox } from './redis-outbox.js';
import { DEFAULT_PEEK_CACHE_BYTES, RunCache } from './redis-run-cache.js';
import type { DrainOptions, RedisStore, RedisStoreOptions } from './redis-store-options.js';
import { redisCommitWrites } from './redis-commit-writes.js';
import { RunWriter } from './redis-run-writer.js';
import { registerScripts, type ScriptCommands } from './scripts.js';
import { addEventCommand } from './stream-event-entry.js';
import { guarded } from './unavailable.js';

const DAY = 86_400_000;
/** How old an outbox entry must be before a drain takes it from the commit that wrote it. */
const DEFAULT_DRAIN_AGE_MS = 5_000;

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
  const { retentionMs, graceMs, cancelHeartbeatMs, peekCacheBytes } = checkedSettings(options);
  const clock = options.clock ?? Date.now;
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
  const connectionPrefix = connectionPrefixOf(redis);
  const commitWrites = redisCommitWrites({
    redis,
    folds: inline && !durability.waitsForReplicas,
    connectionPrefix,
    rememberKey: (key) => keys.remember(key),
  });
  const outbox = createOutbox({ redis, keys, connectionPrefix, report });
  const indexes = createIndexReads(redis, keys, outbox);
  const fullPrefix = `${connectionPrefix}${keys.prefix}`;
  const writer = new RunWriter({
    redis,
    keys,
    scripts,
    durability,
    runs,
    outbox,
    commitWrites,
    inline,
    fullPrefix,
    clock,
    retentionMs,
    graceMs,
  });

  const store: RedisStore = {
    keys,
    shared: true,
    create: (snapshot, events = []) => writer.create(snapshot, events),
    load: (runId) => loadRun(scripts, keys, runs, runId),
    peek: (runId) => runs.peek(runId),
    commit: (next, expectedVersion, events = [], commitOptions = {}) =>
      writer.commit(next, expectedVersion, events, commitOptions),
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
      const previous = (await guarded('delete a run', () => scripts.countersignDeleteRun(...keys.run(runId)))) as
        | string
        | null;
      const entries = decodeIndex(previous);
      if (entries.length > 0)
        await guarded('remove a run from the indexes', () => sendBatch(redis, outbox.applyIndex(entries, [])));
    },
    once: createRedisOnceStore({ redis, prefix: keys.prefix }),
    cancels: createRedisCancelSignal(redis, keys.cancels, cancelHeartbeatMs),
    appliesAtomically: commitWrites.appliesAtomically,
    async publishTransient(events) {
      await guarded('publish model deltas', () =>
        sendBatch(
          redis,
          events.map((event) => addEventCommand(keys.events, event)),
        ),
      );
    },
    drainOutboxes: (drainOptions: DrainOptions = {}) =>
      outbox.drain(drainOptions.before ?? clock() - (drainOptions.minAgeMs ?? DEFAULT_DRAIN_AGE_MS)),
  };
  return store;
}

/** The store's numeric settings, each checked: a wrong one is a `ConfigError` that names it. */
function checkedSettings(options: RedisStoreOptions) {
  const retentionMs = options.retentionMs ?? 7 * DAY;
  const graceMs = options.graceMs ?? DAY;
  if (!(Number.isFinite(retentionMs) && retentionMs >= 1))
    throw new ConfigError(
      `createRedisStore: retentionMs must be a positive number of milliseconds, got ${retentionMs}.`,
    );
  if (!(Number.isFinite(graceMs) && graceMs >= 0))
    throw new ConfigError(`createRedisStore: graceMs must be zero or more milliseconds, got ${graceMs}.`);
  if (options.publish !== undefined && options.publish !== 'inline' && options.publish !== 'outbox') {
    throw new ConfigError(`createRedisStore: publish must be 'inline' or 'outbox', got ${String(options.publish)}.`);
  }
  const cancelHeartbeatMs = options.cancelHeartbeatMs ?? DEFAULT_CANCEL_HEARTBEAT_MS;
  if (!(Number.isInteger(cancelHeartbeatMs) && cancelHeartbeatMs >= 1)) {
    throw new ConfigError(
      `createRedisStore: cancelHeartbeatMs must be a whole number of milliseconds, at least 1, got ${cancelHeartbeatMs}.`,
    );
  }
  const peekCacheBytes = options.peekCacheBytes ?? DEFAULT_PEEK_CACHE_BYTES;
  if (!(Number.isInteger(peekCacheBytes) && peekCacheBytes >= 0)) {
    throw new ConfigError(
      `createRedisStore: peekCacheBytes must be a whole number of bytes, 0 or more, got ${peekCacheBytes}.`,
    );
  }
  return { retentionMs, graceMs, cancelHeartbeatMs, peekCacheBytes };
}

/** ioredis adds a connection's keyPrefix to command keys but not to SCAN patterns or SCAN results. */
function connectionPrefixOf(redis: Redis | Cluster): string {
  return String(
    (redis.isCluster
      ? ((redis as Cluster).options.redisOptions?.keyPrefix ?? (redis as Cluster).options.keyPrefix)
      : (redis as Redis).options.keyPrefix) ?? '',
  );
}

/** A run as stored, checked and frozen; undefined when it is not there. */
async function loadRun(
  scripts: ScriptCommands,
  keys: ReturnType<typeof redisKeys>,
  runs: RunCache,
  runId: string,
): Promise<AgentSnapshot | undefined> {
  const reply = (await guarded('load a run', () =>
    scripts.countersignLoadRun(...(keys.run(runId).slice(0, 3) as [string, string, string])),
  )) as [string, string, string[], string[], string] | null;
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
}
