/**
 * What a Redis store commit waits for beyond the primary's memory
 * (`RedisStoreOptions.durability`): replicas holding it (`WAIT`), or a server
 * that fsyncs every write (`appendfsync always`, checked with `CONFIG GET`).
 */
import type { Cluster, Redis } from 'ioredis';
import { ConfigError, StoreUnavailableError } from '../../errors.js';
import type { AgentSnapshot } from '../../index.js';
import type { RedisStoreOptions } from './redis-store-options.js';
import { guarded } from './unavailable.js';

export interface Durability {
  /** Whether a commit waits for replicas after its script (it must then fold nothing into the script: no job, no claim). */
  readonly waitsForReplicas: boolean;
  /** Whether `beforeWrite` checks anything (with `appendfsync: 'always'`): a commit skips the wait otherwise. */
  readonly checksBeforeWrite: boolean;
  /** Before every write: with `appendfsync: 'always'`, checks the server once it holds; else nothing. */
  beforeWrite(): Promise<void>;
  /** After a write landed: with `replicas`, resolves once that many hold it, else throws a retryable `StoreUnavailableError`. */
  afterWrite(snapshot: AgentSnapshot): Promise<void>;
}

export function createDurability(redis: Redis | Cluster, wanted: RedisStoreOptions['durability']): Durability {
  const fsyncAlways = wanted !== undefined && 'appendfsync' in wanted;
  if (fsyncAlways && wanted.appendfsync !== 'always')
    throw new ConfigError(
      `createRedisStore: durability.appendfsync can only be 'always', got ${String(wanted.appendfsync)}.`,
    );
  const durability =
    wanted === undefined || 'appendfsync' in wanted
      ? undefined
      : { replicas: wanted.replicas, timeoutMs: wanted.timeoutMs ?? 1_000 };
  if (durability) {
    if (!(Number.isInteger(durability.replicas) && durability.replicas >= 1))
      throw new ConfigError(
        `createRedisStore: durability.replicas must be a whole number of at least 1, got ${durability.replicas}.`,
      );
    if (!(Number.isInteger(durability.timeoutMs) && durability.timeoutMs >= 1))
      throw new ConfigError(
        `createRedisStore: durability.timeoutMs must be a whole number of milliseconds, at least 1, got ${durability.timeoutMs}.`,
      );
    // WAIT counts the writes of the connection it is sent on; a Cluster sends it to any node.
    if (redis.isCluster)
      throw new ConfigError(
        'createRedisStore: durability waits for replicas with WAIT on the connection that wrote, which a Cluster cannot do; use appendfsync always on every node instead.',
        'redis_unsupported',
      );
  }

  let fsyncChecked: Promise<void> | undefined;
  const checkFsync = (): Promise<void> =>
    (fsyncChecked ??= (async () => {
      const [[, appendonly], [, appendfsync]] = (await guarded('read its persistence settings', () =>
        Promise.all([redis.config('GET', 'appendonly'), redis.config('GET', 'appendfsync')]).catch((error: unknown) => {
          // A managed server that renames or hides CONFIG cannot be checked: no retry will help.
          if (error instanceof Error && /unknown command/i.test(error.message)) {
            throw new ConfigError(
              `createRedisStore: durability { appendfsync: 'always' } checks the server with CONFIG GET, which it refuses (${error.message}); use durability: { replicas } instead.`,
              'redis_unsupported',
            );
          }
          throw error;
        }),
      )) as unknown as [[string, string?], [string, string?]];
      if (appendonly !== 'yes' || appendfsync !== 'always') {
        throw new ConfigError(
          `createRedisStore: durability { appendfsync: 'always' } needs a server with appendonly yes and appendfsync always; this one has appendonly ${appendonly ?? '(unknown)'} and appendfsync ${appendfsync ?? '(unknown)'}, so an acknowledged decision could be lost in a crash. Set both (redis.conf or CONFIG SET), or use durability: { replicas }. Nothing was written.`,
          'redis_unsupported',
        );
      }
    })().catch((error: unknown) => {
      fsyncChecked = undefined;
      throw error;
    }));

  /** Resolves once `durability.replicas` replicas hold every write this connection made, else throws (retryable). */
  const replicated = async (snapshot: AgentSnapshot): Promise<void> => {
    const { replicas, timeoutMs } = durability!;
    const acknowledged = await guarded('wait for replicas', () => (redis as Redis).wait(replicas, timeoutMs));
    if (acknowledged < replicas) {
      throw new StoreUnavailableError(
        `Redis replicated version ${snapshot.version} of run ${snapshot.runId} to ${acknowledged} of ${replicas} replicas within ${timeoutMs} ms, so it is not acknowledged (it may not survive a failover; a retry finds it recorded).`,
      );
    }
  };

  return {
    waitsForReplicas: durability !== undefined,
    checksBeforeWrite: fsyncAlways,
    beforeWrite: () => (fsyncAlways ? checkFsync() : Promise.resolve()),
    afterWrite: (snapshot) => (durability ? replicated(snapshot) : Promise.resolve()),
  };
}
