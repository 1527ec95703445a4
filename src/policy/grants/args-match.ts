import { canonicalJson } from '../../run/digest.js';
import type { JsonValue } from '../../run/json-value.js';
import { ValueGlob } from './value-glob.js';

/** The value at a dotted path of the call's input, own properties only (`'__proto__'` finds nothing). */
function valueAt(input: unknown, path: string): { readonly found: boolean; readonly value?: unknown } {
  let value = input;
  for (const key of path.split('.')) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) return { found: false };
    value = (value as Record<string, unknown>)[key];
  }
  return { found: true, value };
}

/**
 * True when every entry of a grant's `argsMatch` matches the call's parsed input: a string pattern is a `ValueGlob`
 * matched against a string value (`*` within one path segment and only letters, digits and `. _ + @ = , : ~ -`; `**`
 * across segments; `?` one such character; never a value with a `..` segment); anything else must equal the value
 * exactly (canonical JSON). A path the input does not have never matches. No `argsMatch` matches every call.
 *
 * @example
 * argsMatch({ path: '/tmp/*' }, { path: '/tmp/a.txt' }); // true
 * argsMatch({ path: '/tmp/*' }, { path: '/tmp/../etc/passwd' }); // false
 * argsMatch({ 'options.force': false }, { path: '/x', options: { force: true } }); // false
 */
export function argsMatch(patterns: { readonly [path: string]: JsonValue } | undefined, input: unknown): boolean {
  if (patterns === undefined) return true;
  return Object.entries(patterns).every(([path, pattern]) => {
    const { found, value } = valueAt(input, path);
    if (!found) return false;
    if (typeof pattern === 'string') return typeof value === 'string' && new ValueGlob(pattern).test(value);
    return canonicalJson(value) === canonicalJson(pattern);
  });
}
