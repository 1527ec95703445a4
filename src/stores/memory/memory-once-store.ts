import { ConfigError } from '../../errors.js';
import type { OnceStore } from '../../ports/once-store.js';

/** Above this many keys, a write first drops the expired ones. */
const SWEEP_ABOVE = 100_000;

/** Refuses a TTL that would keep nothing: a caller bug, not a value to store. */
export function checkTtl(ttlMs: number, where: string): void {
  if (!(Number.isFinite(ttlMs) && ttlMs >= 1))
    throw new ConfigError(`${where}: ttlMs must be at least 1 millisecond, got ${ttlMs}.`);
}

/**
 * A `OnceStore` in this process's memory: right for one process (tests, a
 * single server); use `createRedisOnceStore` when several processes share runs.
 *
 * @example
 * const once = createMemoryOnceStore();
 * await once.putIfAbsent('link:abc', 'spent:7f3a', 60_000); // undefined: this call took it
 * await once.putIfAbsent('link:abc', 'spent:7f3a', 60_000); // undefined: the same claim again (a resend)
 * await once.putIfAbsent('link:abc', 'spent:91c2', 60_000); // 'spent:7f3a': another claim took it before
 */
export function createMemoryOnceStore(options: { readonly clock?: () => number } = {}): OnceStore {
  const held = heldKeys(options.clock ?? Date.now);
  return {
    putIfAbsent: async (key, value, ttlMs) => held.putIfAbsent(key, value, ttlMs),
    get: async (key) => held.get(key),
    replace: async (key, expected, value, ttlMs) => held.replace(key, expected, value, ttlMs),
  };
}

/**
 * The keys of a memory `OnceStore`, read and written at once (no await between a check and its write), so the memory
 * store can make a commit's `putIfAbsent` and `replaceIf` writes in the same step as the run's.
 */
export function heldKeys(clock: () => number) {
  const held = new Map<string, { readonly value: string; readonly until: number }>();
  const live = (key: string, now: number) => {
    const item = held.get(key);
    if (item === undefined) return undefined;
    if (item.until > now) return item;
    held.delete(key);
    return undefined;
  };
  return {
    putIfAbsent(key: string, value: string, ttlMs: number): string | undefined {
      checkTtl(ttlMs, 'putIfAbsent');
      const now = clock();
      const item = live(key, now);
      // Holding this very value is this claim (a resend whose first reply was lost): see OnceStore.putIfAbsent.
      if (item) return item.value === value ? undefined : item.value;
      if (held.size > SWEEP_ABOVE) for (const [name, entry] of held) if (entry.until <= now) held.delete(name);
      held.set(key, { value, until: now + ttlMs });
      return undefined;
    },
    get(key: string): string | undefined {
      return live(key, clock())?.value;
    },
    replace(key: string, expected: string, value: string | undefined, ttlMs: number): boolean {
      checkTtl(ttlMs, 'replace');
      const now = clock();
      if (live(key, now)?.value !== expected) return false;
      if (value === undefined) held.delete(key);
      else held.set(key, { value, until: now + ttlMs });
      return true;
    },
  };
}
