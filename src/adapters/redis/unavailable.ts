import { isCountersignError, StoreUnavailableError } from '../../errors.js';

/**
 * Runs one Redis operation and turns whatever ioredis throws (connection
 * refused or closed, offline queue disabled, MaxRetriesPerRequestError,
 * Cluster failover replies such as CLUSTERDOWN or TRYAGAIN, LOADING, and any
 * other reply error) into a `StoreUnavailableError`, so callers never see a
 * raw ioredis error. countersign's own errors pass through.
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
  return new StoreUnavailableError(`Redis could not ${what}: ${detail.replace(/\.?$/, '.')}`, error);
}
