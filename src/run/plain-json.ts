/**
 * Whether a value is plain JSON that superjson would encode as itself, with
 * no `meta`: strings, booleans, finite numbers other than -0, null, arrays
 * without holes or undefined, and objects whose prototype is Object's or null.
 * The usual snapshot head is; for it `{ json: head }` is superjson's exact
 * output, without its walk.
 */
export function isPlainJson(value: unknown): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value) && !Object.is(value, -0);
    case 'object': {
      if (value === null) return true;
      if (Array.isArray(value)) {
        for (let index = 0; index < value.length; index++)
          if (!(index in value) || !isPlainJson(value[index])) return false;
        return true;
      }
      const proto = Object.getPrototypeOf(value) as unknown;
      if (proto !== Object.prototype && proto !== null) return false;
      for (const key in value) if (!isPlainJson((value as Record<string, unknown>)[key])) return false;
      return true;
    }
    default:
      return false;
  }
}
