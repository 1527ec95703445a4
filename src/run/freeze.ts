import { newPositionsOf } from './derived-array.js';

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
 * Deep-freezes a value a step made. An array derived from a frozen one
 * (derived-array.ts) has only its new positions visited: a step that changes
 * one record of a thousand, or appends one message, freezes that record or
 * message and the array around it, not the thousand it kept.
 */
export function freezeAdded<T>(value: T): T {
  if (!Array.isArray(value) || Object.isFrozen(value)) return deepFreeze(value);
  const positions = newPositionsOf(value);
  if (positions === undefined) return deepFreeze(value);
  Object.freeze(value);
  for (const position of positions) deepFreeze(value[position]);
  return value;
}
