import { ValueTooDeepError } from '../errors.js';
import { MAX_ENCODE_DEPTH } from '../run/argument-shape.js';
import { escapeForDisplay, inspectText, presentText } from './display-text.js';
import type { ArgsWarning } from '../run/types.js';

export interface PresentOptions {
  /** Words that mark a key as secret; matched against the words of each key. */
  readonly secretKeys?: readonly string[];
  /** Longest string (argument, description or reason) shown whole; longer ones show their head and tail. 2000 unless set. */
  readonly maxStringLength?: number;
}

export const defaultSecretKeys: readonly string[] = [
  'key',
  'password',
  'passwd',
  'pwd',
  'token',
  'secret',
  'auth',
  'authorization',
  'credential',
  'credentials',
  'cookie',
  'cookies',
  'apikey',
  'privatekey',
];

const REDACTED = '[REDACTED]';
/** Longest string shown whole unless `maxStringLength` says otherwise. */
export const DEFAULT_MAX_STRING_LENGTH = 2000;

/** Splits `apiKey`, `api_key`, `X-Api-Key` into lowercase words. */
function keyWords(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/** Whether `key` names a secret: one of its words is a term, or its words joined end with one (`apiKey`, `x-auth-token`). */
export function isSecretKey(key: string, terms: ReadonlySet<string>): boolean {
  const words = keyWords(key);
  const joined = words.join('');
  for (const term of terms) if (joined.endsWith(term)) return true;
  return words.some((word) => terms.has(word));
}

/**
 * The display copy of a call's arguments: values under secret-looking keys
 * replaced by `[REDACTED]`, invisible characters escaped as `[U+XXXX]` in
 * keys and values (and the `[` of a literal `[U+`, so no two keys look the
 * same), long strings cut visibly (head and tail kept, full length stated),
 * plus a warning for each finding. Every own key is shown, `__proto__`
 * included (keys are defined, never assigned). The real arguments are not
 * touched. Values nested deeper than 128 levels throw `ValueTooDeepError`.
 *
 * @example
 * const { display, warnings } = presentArgs({ path: '/tmp/\u202Etxt.exe', apiKey: 'sk-123' });
 * // display: { path: '/tmp/[U+202E]txt.exe', apiKey: '[REDACTED]' }; warnings[0].code: 'bidi-control'
 */
export function presentArgs(
  args: unknown,
  options: PresentOptions = {},
): { display: unknown; warnings: ArgsWarning[] } {
  const terms = new Set((options.secretKeys ?? defaultSecretKeys).map((term) => term.toLowerCase()));
  const maxLength = options.maxStringLength ?? DEFAULT_MAX_STRING_LENGTH;
  const warnings: ArgsWarning[] = [];
  const secretKeys = new Map<string, boolean>();
  const isSecret = (key: string) => {
    let secret = secretKeys.get(key);
    if (secret === undefined) {
      secret = isSecretKey(key, terms);
      secretKeys.set(key, secret);
    }
    return secret;
  };

  const visit = (value: unknown, path: string, depth: number): unknown => {
    if (typeof value === 'string') return presentText(value, path, maxLength, warnings);
    if (value === null || typeof value !== 'object') return value;
    if (depth >= MAX_ENCODE_DEPTH)
      throw new ValueTooDeepError('Arguments to display', MAX_ENCODE_DEPTH, path.slice(0, 200));
    if (Array.isArray(value)) return value.map((item, index) => visit(item, `${path}[${index}]`, depth + 1));
    // fromEntries defines each key, where assigning "__proto__" would call the prototype setter and drop it from the copy.
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => {
        const itemPath = `${path}.${key}`;
        inspectText(key, itemPath, warnings);
        return [escapeForDisplay(key), isSecret(key) ? REDACTED : visit(item, itemPath, depth + 1)];
      }),
    );
  };

  return { display: visit(args, '$', 0), warnings };
}
