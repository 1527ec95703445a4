/**
 * Freezes a value and everything reachable from it. Objects that are already
 * frozen are taken as deeply frozen and skipped, so a new snapshot that shares
 * its history with the previous one costs only what it added.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  if (value instanceof Map) {
    for (const [key, item] of value) {
      deepFreeze(key);
      deepFreeze(item);
    }
  } else if (value instanceof Set) {
    for (const item of value) deepFreeze(item);
  } else if (Array.isArray(value)) {
    // An index loop, not Object.keys: a history or a turn of many calls would allocate a key string per item at every step.
    for (let index = 0; index < value.length; index++) deepFreeze(value[index]);
  } else {
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}

/**
 * Deep-freezes `value`, a new version of `previous`, visiting only what it
 * does not share with it: a step that changes one record of a thousand, or
 * appends one message, freezes that record or message and the new array
 * around it, not the thousand it kept. Only a frozen `previous` is trusted
 * (as `deepFreeze` trusts any frozen object).
 */
export function freezeAdded<T>(value: T, previous: unknown): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  if (!Array.isArray(value) || !Array.isArray(previous) || !Object.isFrozen(previous)) return deepFreeze(value);
  Object.freeze(value);
  const shared = Math.min(value.length, previous.length);
  for (let index = 0; index < shared; index++) {
    if (value[index] !== previous[index]) deepFreeze(value[index]);
  }
  for (let index = shared; index < value.length; index++) deepFreeze(value[index]);
  return value;
}
