// One way every public entry point reads its options: a zod schema, and the
// first problem turned into a ConfigError that names the option and the fix.
// Never the value: options hold secrets (tokens, webhook URLs, keys).
import { z } from 'zod';
import { ConfigError, type ConfigErrorCode } from './errors.js';

/** Edits (insert, delete, replace, swap two neighbours) between two names, ignoring case. */
function editDistance(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  const rows = Array.from({ length: x.length + 1 }, (_, i) =>
    Array.from({ length: y.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= x.length; i++) {
    for (let j = 1; j <= y.length; j++) {
      const cost = x[i - 1] === y[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && x[i - 1] === y[j - 2] && x[i - 2] === y[j - 1])
        best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = best;
    }
  }
  return rows[x.length]![y.length]!;
}

/** `key`, and the known option it is probably a misspelling of: one edit in four letters at most, differing case free. */
function withSuggestion(key: string, known: readonly string[]): string {
  if (key.length > 64) return key;
  const limit = Math.max(1, Math.floor(key.length / 4));
  let closest: { name: string; distance: number } | undefined;
  for (const name of known) {
    const distance = editDistance(key, name);
    if (distance <= limit && (closest === undefined || distance < closest.distance)) closest = { name, distance };
  }
  return closest === undefined ? key : `${key} (did you mean ${closest.name}?)`;
}

/**
 * An options object that refuses unknown keys by name, with the option it probably meant: a misspelt option is
 * never ignored in silence.
 */
export function optionsObject<Shape extends z.ZodRawShape>(shape: Shape) {
  const known = Object.keys(shape);
  return z.strictObject(shape, {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `has an unknown option ${issue.keys.map((key) => withSuggestion(key, known)).join(', ')}`
        : undefined,
  });
}

function codeOf(issue: z.core.$ZodIssue): ConfigErrorCode {
  if (issue.code === 'unrecognized_keys') return 'unknown_option';
  if (issue.code === 'invalid_type' && issue.input === undefined) return 'missing_option';
  return 'invalid_config';
}

const compiledSchemas = new WeakMap<z.ZodType, z.ZodType>();

/**
 * `schema` with zod's compiled fast path (`z.compile`): valid input is read by code zod generates from the schema, so
 * the schema stays the one definition; invalid input goes to zod's own parser, so the errors are the same. Compiled
 * once per schema; one zod cannot compile is handed back as it is.
 */
export function compiled<S extends z.ZodType>(schema: S): S {
  let fast = compiledSchemas.get(schema);
  if (fast === undefined) {
    fast = z.compile(schema);
    compiledSchemas.set(schema, fast);
  }
  return fast as S;
}

/**
 * `value` read with `schema`, or a `ConfigError` for its first problem:
 * `<where>: <path> <message>. <hint>`. `where` names the entry point
 * (`createSlackNotifier`), `subject` what a problem at the root is called
 * (default `options`), `hint` a sentence on how to call it right.
 */
export function parseOptions<S extends z.ZodType>(
  schema: S,
  value: unknown,
  where: string,
  { subject = 'options', hint = '' }: { readonly subject?: string; readonly hint?: string } = {},
): z.output<S> {
  const parsed = compiled(schema).safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const message = `${where}: ${issue.path.join('.') || subject} ${issue.message}`;
  throw new ConfigError(`${message}${/[.)]$/.test(issue.message) ? '' : '.'}${hint ? ` ${hint}` : ''}`, codeOf(issue));
}
