// One way every public entry point reads its options: a zod schema, and the
// first problem turned into a ConfigError that names the option and the fix.
// Never the value: options hold secrets (tokens, webhook URLs, keys).
import { z } from 'zod';
import { ConfigError, type ConfigErrorCode } from './errors.js';

/** An options object that refuses unknown keys by name: a misspelt option is never ignored in silence. */
export function optionsObject<Shape extends z.ZodRawShape>(shape: Shape) {
  return z.strictObject(shape, {
    error: (issue) => (issue.code === 'unrecognized_keys' ? `has an unknown option ${issue.keys.join(', ')}` : undefined),
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
