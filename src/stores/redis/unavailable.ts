import { ConfigError, isCountersignError, StoreUnavailableError } from '../../errors.js';

/**
 * Runs one Redis operation and turns whatever ioredis throws (connection
 * refused or closed, offline queue disabled, MaxRetriesPerRequestError,
 * Cluster failover replies such as CLUSTERDOWN or TRYAGAIN, LOADING, and any
 * other reply error) into a `StoreUnavailableError`, so callers never see a
 * raw ioredis error. Two replies no retry can cure become a `ConfigError`
 * instead: WRONGTYPE (another application writes keys under the same prefix)
 * and NOPERM (the Redis user's ACL forbids a command the store needs).
 * countersign's own errors pass through.
 */
export async function guarded<T>(what: string, operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    throw toStoreError(what, error);
  }
}

export function toStoreError(what: string, error: unknown): Error {
  if (isCountersignError(error)) return error;
  const detail = error instanceof Error ? error.message : String(error);
  if (/^WRONGTYPE\b/.test(detail)) {
    return new ConfigError(
      `Redis could not ${what}: ${detail} A key under this store's prefix holds another type; give countersign a prefix of its own.`,
    );
  }
  if (/^NOPERM\b/.test(detail)) {
    return new ConfigError(
      `Redis could not ${what}: ${detail} Allow this Redis user EVALSHA, EVAL, SCAN and the hash, list, sorted set and stream commands on the prefix.`,
    );
  }
  return new StoreUnavailableError(`Redis could not ${what}: ${detail.replace(/\.?$/, '.')}`, error);
}
