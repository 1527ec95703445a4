/**
 * Short-lived facts that must hold once across every process: a webhook
 * delivery's id already claimed, a one-click link already spent, a chat
 * button's id and the token it stands for. Values are strings that expire.
 * `createMemoryOnceStore()` (one process) and `createRedisOnceStore({ redis })`
 * (countersign/redis) implement it.
 *
 * @example
 * const once: OnceStore = createMemoryOnceStore();
 * if ((await once.putIfAbsent(`delivery:${id}`, randomUUID(), 86_400_000)) !== undefined) return; // a redelivery
 */
export interface OnceStore {
  /**
   * Keeps `value` under `key` for `ttlMs` unless the key is already held, and
   * returns what it already held: undefined when the key now holds `value`,
   * stored by this call or by a resend of it (a client resends a command
   * whose reply was lost, and the resend finds the first landing's value).
   * So give every claim its own value (a random id in it), never a constant
   * such as `'1'`: a key found holding exactly `value` counts as this claim.
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
