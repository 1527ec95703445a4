// The command line's flags, read once into what the commands use: numbers checked, modes and scopes one of their
// values, edited arguments parsed as JSON. A mistake is a UsageError, printed with the usage and exit code 2.
import { UsageError } from '../errors.js';

/** The flags every command shares (node:util parseArgs options). */
export const CLI_OPTIONS = {
  runtime: { type: 'string' },
  url: { type: 'string' },
  token: { type: 'string' },
  agent: { type: 'string' },
  session: { type: 'string' },
  limit: { type: 'string' },
  by: { type: 'string' },
  reason: { type: 'string' },
  scope: { type: 'string' },
  args: { type: 'string' },
  mode: { type: 'string' },
  ttl: { type: 'string' },
  uses: { type: 'string' },
  json: { type: 'boolean' },
  concurrency: { type: 'string' },
  prefix: { type: 'string' },
  every: { type: 'string' },
  'base-url': { type: 'string' },
  'expires-in': { type: 'string' },
  label: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** The flags as parsed, before they are checked. */
export type RawFlags = {
  readonly [K in keyof typeof CLI_OPTIONS]?: (typeof CLI_OPTIONS)[K]['type'] extends 'boolean' ? boolean : string;
};

/** The flags as the commands use them. */
export interface CliFlags {
  readonly raw: RawFlags;
  readonly limit?: number | undefined;
  readonly mode?: 'inline' | 'record' | 'enqueue' | undefined;
  readonly scope?: 'once' | 'run' | 'session' | 'agent' | undefined;
  readonly editedArgs?: unknown;
  readonly bounds: { readonly ttlMs?: number; readonly uses?: number };
  readonly concurrency: number;
  readonly expiresIn?: number | undefined;
  readonly every: number;
}

function oneOf<T extends string>(value: string | undefined, allowed: readonly T[], name: string): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value))
    throw new UsageError(`--${name} must be one of ${allowed.join(', ')}`);
  return value as T;
}

function whole(value: string | undefined, name: string, fallback: number): number {
  const number = value === undefined ? fallback : Number(value);
  if (!Number.isInteger(number) || number < 1) throw new UsageError(`--${name} must be a whole number above 0`);
  return number;
}

function jsonArgs(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new UsageError('--args must be JSON, e.g. --args \'{"path":"/tmp/a"}\'');
  }
}

/** Checks the flags a command line gave; a UsageError names the first that is wrong. */
export function readFlags(values: RawFlags): CliFlags {
  const limit = values.limit === undefined ? undefined : Number(values.limit);
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1))
    throw new UsageError('--limit must be a whole number above 0');
  const mode = oneOf(values.mode, ['inline', 'record', 'enqueue'] as const, 'mode');
  const scope = oneOf(values.scope, ['once', 'run', 'session', 'agent'] as const, 'scope');
  const editedArgs = jsonArgs(values.args);
  const bounds = {
    ...(values.ttl === undefined ? {} : { ttlMs: whole(values.ttl, 'ttl', 0) }),
    ...(values.uses === undefined ? {} : { uses: whole(values.uses, 'uses', 0) }),
  };
  const concurrency = whole(values.concurrency, 'concurrency', 4);
  const expiresIn = values['expires-in'] === undefined ? undefined : whole(values['expires-in'], 'expires-in', 0);
  const every = whole(values.every, 'every', 30_000);
  return { raw: values, limit, mode, scope, editedArgs, bounds, concurrency, expiresIn, every };
}
