/** Object keys refused anywhere in arguments and bodies: they only ever serve prototype pollution. */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** Deeper arguments and bodies are refused before anything recurses over them. */
export const MAX_JSON_DEPTH = 64;

/**
 * How deep the encoders (canonical JSON, display copy) go before they refuse:
 * above `MAX_JSON_DEPTH`, so arguments that were accepted can always be
 * encoded, also inside the envelopes that wrap them.
 */
export const MAX_ENCODE_DEPTH = 2 * MAX_JSON_DEPTH;

/** Why a value was refused: a forbidden key, or nesting past the limit, with where (a path cut after 200 characters, `''` for the root). */
export type ShapeProblem =
  | { readonly kind: 'forbidden-key'; readonly key: string; readonly path: string }
  | { readonly kind: 'too-deep'; readonly maxDepth: number; readonly path: string };

/** Longest path quoted in a message: a path is made of the caller's keys, which may be huge. */
const MAX_PATH_TEXT = 200;

function childPath(path: string, key: string): string {
  if (path.length >= MAX_PATH_TEXT) return path;
  const joined = path ? `${path}.${key}` : key;
  return joined.length < MAX_PATH_TEXT ? joined : `${joined.slice(0, MAX_PATH_TEXT)}…`;
}

/**
 * The first problem with a JSON-like value: a key in `FORBIDDEN_KEYS`
 * (unless `allowForbiddenKeys`), or objects nested deeper than `maxDepth`.
 * Iterative, so a hostile nesting depth cannot overflow the stack here.
 */
export function findShapeProblem(
  value: unknown,
  options: { readonly maxDepth?: number; readonly allowForbiddenKeys?: boolean } = {},
): ShapeProblem | undefined {
  const maxDepth = options.maxDepth ?? MAX_JSON_DEPTH;
  const stack: { value: unknown; depth: number; path: string }[] = [{ value, depth: 0, path: '' }];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if (typeof item.value !== 'object' || item.value === null) continue;
    if (item.depth >= maxDepth) return { kind: 'too-deep', maxDepth, path: item.path };
    for (const key of Object.keys(item.value)) {
      if (!options.allowForbiddenKeys && FORBIDDEN_KEYS.has(key))
        return { kind: 'forbidden-key', key, path: item.path };
      stack.push({
        value: (item.value as Record<string, unknown>)[key],
        depth: item.depth + 1,
        path: childPath(item.path, key),
      });
    }
  }
  return undefined;
}

/** A problem in words, e.g. `has the key "__proto__" at a.b` or `nests deeper than 64 levels at a.b`. */
export function describeShapeProblem(problem: ShapeProblem): string {
  return problem.kind === 'forbidden-key'
    ? `has the key "${problem.key}" at ${problem.path || '(root)'}`
    : `nests deeper than ${problem.maxDepth} levels at ${problem.path || '(root)'}`;
}

/** What is wrong at the problem's path, e.g. `the key "__proto__" is refused anywhere in arguments`. */
export function shapeIssue(problem: ShapeProblem): string {
  return problem.kind === 'forbidden-key'
    ? `the key "${problem.key}" is refused anywhere in arguments ("__proto__", "constructor" and "prototype" only serve prototype pollution)`
    : `nests deeper than ${problem.maxDepth} levels`;
}

/**
 * `value` itself when it nests at most `maxDepth` levels; otherwise a copy
 * cut there: objects at depth `maxDepth` are kept empty. What the model sent
 * stays recognisable and still too deep (so the call is refused with the
 * path), while the history it is kept in stays small enough for JSON
 * encoders, which overflow the stack a few thousand levels down. Iterative.
 */
export function clampDepth(value: unknown, maxDepth = MAX_JSON_DEPTH): unknown {
  if (findShapeProblem(value, { maxDepth: maxDepth + 1, allowForbiddenKeys: true }) === undefined) return value;
  const emptyLike = (item: object) => (Array.isArray(item) ? [] : {});
  const root = emptyLike(value as object);
  const stack: { source: object; target: object; depth: number }[] = [
    { source: value as object, target: root, depth: 0 },
  ];
  while (stack.length > 0) {
    const { source, target, depth } = stack.pop()!;
    if (depth >= maxDepth) continue;
    for (const key of Object.keys(source)) {
      let item = (source as Record<string, unknown>)[key];
      if (typeof item === 'object' && item !== null) {
        const copy = emptyLike(item);
        stack.push({ source: item, target: copy, depth: depth + 1 });
        item = copy;
      }
      // Defined, not assigned: a "__proto__" key stays an own key (and is then refused by name).
      Object.defineProperty(target, key, { value: item, enumerable: true, writable: true, configurable: true });
    }
  }
  return root;
}
