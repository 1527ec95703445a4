// Which request an attempt of a call waits on: the one the same call (same session, tool and input) asked before and
// nobody has acted on since, or a new one. The call's key holds the request's own key in the runtime's once store, so
// every process on the store finds it; acting on a decision frees the key, so the decision reaches one attempt and a
// later identical call is asked about again.
import { randomUUID } from 'node:crypto';
import type { OnceStore } from '../index.js';

/** How long a call's key names its request when the request has no expiry of its own: a week. */
export const DEFAULT_CLAIM_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** The request key of the call keyed `callKey`: the one taken before and not settled since, or one taken now. */
export async function claimRequestKey(once: OnceStore, callKey: string, ttlMs: number): Promise<string> {
  const fresh = `${callKey}:${randomUUID()}`;
  return (await once.putIfAbsent(callKey, fresh, ttlMs)) ?? fresh;
}

/**
 * Frees the call's key from `requestKey`, once its outcome is acted on: true when this attempt freed it, false when
 * another attempt had (and acted on the outcome itself).
 */
export function settleRequestKey(
  once: OnceStore,
  callKey: string,
  requestKey: string,
  ttlMs: number,
): Promise<boolean> {
  return once.replace(callKey, requestKey, undefined, ttlMs);
}
