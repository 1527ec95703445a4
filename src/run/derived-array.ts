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
const newPositions = new WeakMap<readonly unknown[], number[]>();

/** `[...base, ...items]`, noted as new from `base.length` on. */
export function appended<T>(base: readonly T[], items: readonly T[]): T[] {
  const next = [...base, ...items];
  if (Object.isFrozen(base)) newPositions.set(next, range(base.length, next.length));
  return next;
}

/** Arrays made inside the current `drafting` call, which nothing outside it has seen. */
let drafts: WeakSet<readonly unknown[]> | undefined;

/**
 * Runs `build(first, second)` (synchronously; arguments, not a closure, since it runs at every call of a turn) with the arrays `replacedAt` makes inside it
 * kept as drafts: changing a draft again changes it in place instead of
 * copying it, since nothing outside `build` holds it yet. A step that applies
 * several events copies a turn's records once, not once per event.
 */
export function drafting<A, B, T>(build: (first: A, second: B) => T, first: A, second: B): T {
  const outer = drafts;
  drafts = new WeakSet();
  try {
    return build(first, second);
  } finally {
    drafts = outer;
  }
}

/** A copy of `base` (or `base` itself, when it is a draft) with the items at `positions` replaced by `change(item)`, noted as new there. */
export function replacedAt<T>(base: readonly T[], positions: readonly number[], change: (item: T) => T): T[] {
  const inPlace = drafts?.has(base) === true && !Object.isFrozen(base);
  const next = inPlace ? (base as T[]) : [...base];
  for (const position of positions) next[position] = change(next[position]!);
  // A draft derived from a frozen base keeps that base's note, widened by what this change added (in place: the note
  // of a draft changed in place is the draft's own, and copying it at each change would cost a long turn its square).
  const earlier = Object.isFrozen(base) ? [] : newPositions.get(base);
  if (earlier !== undefined) {
    const note = inPlace ? earlier : [...earlier];
    for (const position of positions) note.push(position);
    newPositions.set(next, note);
  }
  drafts?.add(next);
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
