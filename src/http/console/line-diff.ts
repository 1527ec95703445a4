/** One line of a diff: kept, or only in the original (`removed`), or only in the edit (`added`). */
export interface DiffLine {
  readonly kind: 'same' | 'removed' | 'added';
  readonly line: string;
}

/** Past this many line pairs the diff does not look for common lines: it shows the original removed and the edit added. */
const MAX_PAIRS = 250_000;

/**
 * The lines of `before` and `after` as a diff: a longest common subsequence of lines kept, the rest removed or added.
 *
 * @example
 * lineDiff(['a', 'b'], ['a', 'c']); // [{ kind: 'same', line: 'a' }, { kind: 'removed', line: 'b' }, { kind: 'added', line: 'c' }]
 */
export function lineDiff(before: readonly string[], after: readonly string[]): DiffLine[] {
  const removed = before.map((line): DiffLine => ({ kind: 'removed', line }));
  const added = after.map((line): DiffLine => ({ kind: 'added', line }));
  if (before.length * after.length > MAX_PAIRS) return [...removed, ...added];
  // common[i][j]: the longest common subsequence of before[i..] and after[j..].
  const common = Array.from({ length: before.length + 1 }, () => new Uint32Array(after.length + 1));
  for (let i = before.length - 1; i >= 0; i--) {
    for (let j = after.length - 1; j >= 0; j--) {
      common[i]![j] =
        before[i] === after[j] ? common[i + 1]![j + 1]! + 1 : Math.max(common[i + 1]![j]!, common[i]![j + 1]!);
    }
  }
  const diff: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < before.length && j < after.length) {
    if (before[i] === after[j]) {
      diff.push({ kind: 'same', line: before[i]! });
      i++;
      j++;
    } else if (common[i + 1]![j]! >= common[i]![j + 1]!) diff.push(removed[i++]!);
    else diff.push(added[j++]!);
  }
  return [...diff, ...removed.slice(i), ...added.slice(j)];
}
