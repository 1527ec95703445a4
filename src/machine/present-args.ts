import type { ArgsWarning } from './types.js';

export interface PresentOptions {
  /** Words that mark a key as secret; matched against the words of each key. */
  readonly secretKeys?: readonly string[];
  /** Longest string shown whole; longer ones show their head and tail. */
  readonly maxStringLength?: number;
}

export const defaultSecretKeys: readonly string[] = [
  'key', 'password', 'passwd', 'pwd', 'token', 'secret', 'auth', 'authorization', 'credential', 'credentials',
  'cookie', 'cookies', 'apikey', 'privatekey',
];

const REDACTED = '[REDACTED]';
const BIDI = /[\u200E\u200F\u202A-\u202E\u2066-\u2069]/;
const ZERO_WIDTH = /[\u200B-\u200D\u2060\uFEFF]/;
const INVISIBLE = /[\u200B-\u200F\u202A-\u202E\u2060\u2066-\u2069\uFEFF]/g;
const WORD = /[\p{L}\p{M}\p{N}]+/gu;
const LATIN = /\p{Script=Latin}/u;
const OTHER_SCRIPTS = [/\p{Script=Cyrillic}/u, /\p{Script=Greek}/u, /\p{Script=Armenian}/u, /\p{Script=Cherokee}/u];

/** Splits `apiKey`, `api_key`, `X-Api-Key` into lowercase words. */
function keyWords(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

function isSecretKey(key: string, terms: ReadonlySet<string>): boolean {
  const words = keyWords(key);
  const joined = words.join('');
  for (const term of terms) if (joined.endsWith(term)) return true;
  return words.some((word) => terms.has(word));
}

// Everything a warning looks for (invisible characters, other scripts) lies outside ASCII.
const NON_ASCII = /[^\x00-\x7F]/;

function isMixedScript(word: string): boolean {
  return LATIN.test(word) && OTHER_SCRIPTS.some((script) => script.test(word));
}

function escapeInvisible(text: string): string {
  if (!NON_ASCII.test(text)) return text;
  return text.replace(INVISIBLE, (char) => `[U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}]`);
}

function inspectString(text: string, path: string, warnings: ArgsWarning[]): void {
  if (!NON_ASCII.test(text)) return;
  if (BIDI.test(text)) {
    warnings.push({ code: 'bidi-control', path, message: 'contains bidirectional control characters that can reorder what is shown; they are escaped as [U+XXXX]' });
  }
  if (ZERO_WIDTH.test(text)) {
    warnings.push({ code: 'zero-width', path, message: 'contains zero-width characters that render as nothing; they are escaped as [U+XXXX]' });
  }
  for (const [word] of text.matchAll(WORD)) {
    if (isMixedScript(word)) {
      warnings.push({ code: 'mixed-script', path, message: `"${word}" mixes Latin with look-alike letters of another script` });
      break;
    }
  }
}

/**
 * The display copy of a call's arguments: values under secret-looking keys
 * replaced by `[REDACTED]`, invisible characters escaped, long strings cut
 * visibly (head and tail kept, full length stated), plus a warning for each
 * finding. The real arguments are not touched.
 *
 * @example
 * const { display, warnings } = presentArgs({ path: '/tmp/\u202Etxt.exe', apiKey: 'sk-123' });
 * // display: { path: '/tmp/[U+202E]txt.exe', apiKey: '[REDACTED]' }; warnings[0].code: 'bidi-control'
 */
export function presentArgs(args: unknown, options: PresentOptions = {}): { display: unknown; warnings: ArgsWarning[] } {
  const terms = new Set((options.secretKeys ?? defaultSecretKeys).map((term) => term.toLowerCase()));
  const maxLength = options.maxStringLength ?? 2000;
  const warnings: ArgsWarning[] = [];
  const secretKeys = new Map<string, boolean>();
  const isSecret = (key: string) => {
    let secret = secretKeys.get(key);
    if (secret === undefined) secretKeys.set(key, (secret = isSecretKey(key, terms)));
    return secret;
  };

  const visit = (value: unknown, path: string): unknown => {
    if (typeof value === 'string') {
      inspectString(value, path, warnings);
      if (value.length <= maxLength) return escapeInvisible(value);
      const half = Math.floor(maxLength / 2);
      warnings.push({
        code: 'truncated',
        path,
        message: `${value.length} characters; the display shows the first ${half} and the last ${half}`,
      });
      return `${escapeInvisible(value.slice(0, half))} …[${value.length - 2 * half} characters not shown]… ${escapeInvisible(value.slice(-half))}`;
    }
    if (Array.isArray(value)) return value.map((item, index) => visit(item, `${path}[${index}]`));
    if (value !== null && typeof value === 'object') {
      const copy: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value)) {
        const itemPath = `${path}.${key}`;
        inspectString(key, itemPath, warnings);
        copy[escapeInvisible(key)] = isSecret(key) ? REDACTED : visit(item, itemPath);
      }
      return copy;
    }
    return value;
  };

  return { display: visit(args, '$'), warnings };
}
