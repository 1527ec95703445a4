/**
 * Arrays a step derives from an array it already had, with a note of which
 * positions hold new values, so freezing the next snapshot visits only those
 * (freezeAdded): appending one message to a history of a thousand, or
 * changing one record of a turn of a thousand calls, freezes one item, not a
 * thousand (reading a frozen array item by item is slow on Node 20; copying
 * it with a spread is not).
 */
// Only arrays derived from a frozen base are noted (frozen stays frozen), and the note does not hold the base: a chain of
// steps must not keep every earlier array alive.
const newPositions = new WeakMap<readonly unknown[], Iterable<number>>();

/** `[...base, ...items]`, noted as new from `base.length` on. */
export function appended<T>(base: readonly T[], items: readonly T[]): T[] {
  const next = [...base, ...items];
  if (Object.isFrozen(base)) newPositions.set(next, range(base.length, next.length));
  return next;
}

/** A copy of `base` with the items at `positions` replaced by `change(item)`, noted as new there. */
export function replacedAt<T>(base: readonly T[], positions: readonly number[], change: (item: T) => T): T[] {
  const next = [...base];
  for (const position of positions) next[position] = change(next[position]!);
  if (Object.isFrozen(base)) newPositions.set(next, positions);
  return next;
}

/** The positions of `array` that may hold values its (frozen) base did not; undefined when it was not derived from one. */
export function newPositionsOf(array: readonly unknown[]): Iterable<number> | undefined {
  return newPositions.get(array);
}

function range(from: number, to: number): number[] {
  const positions: number[] = [];
  for (let index = from; index < to; index++) positions.push(index);
  return positions;
}
