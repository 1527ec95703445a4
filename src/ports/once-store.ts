/**
 * Short-lived facts that must hold once across every process: a webhook
 * delivery's id already claimed, a one-click link already spent, a chat
 * button's id and the token it stands for. Values are strings that expire.
 * `createMemoryOnceStore()` (one process) and `createRedisOnceStore({ redis })`
 * (countersign/redis) implement it.
 *
 * @example
 * const once: OnceStore = createMemoryOnceStore();
 * if ((await once.putIfAbsent(`delivery:${id}`, 'seen', 86_400_000)) !== undefined) return; // a redelivery
 */
export interface OnceStore {
  /**
   * Keeps `value` under `key` for `ttlMs` unless the key is already held, and
   * returns what it already held (undefined when this call stored it).
   */
  putIfAbsent(key: string, value: string, ttlMs: number): Promise<string | undefined>;
  /** What `key` holds, or undefined when nothing does (or it expired). */
  get(key: string): Promise<string | undefined>;
  /**
   * Replaces what `key` holds with `value` (for `ttlMs`), or drops the key
   * when `value` is undefined, only if it still holds `expected`; returns
   * whether it did. Settles a claim taken with `putIfAbsent` without
   * overwriting a claim someone else took after this one ran out.
   */
  replace(key: string, expected: string, value: string | undefined, ttlMs: number): Promise<boolean>;
}
