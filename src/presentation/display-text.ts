import type { ArgsWarning } from '../run/types.js';

/**
 * Characters a reader cannot see, or that act on the screen instead of
 * showing: format characters (tags, bidi marks, soft hyphen, U+180E),
 * default-ignorable ones (variation selectors, U+034F, U+3164), bidi
 * controls, line and paragraph separators, and C0/C1 controls except tab
 * and newline. Matched by Unicode property, so new ones are covered too.
 */
const INVISIBLE_CLASS =
  '[\\p{Cf}\\p{Default_Ignorable_Code_Point}\\p{Bidi_Control}\\u2028\\u2029\\u0000-\\u0008\\u000B-\\u001F\\u007F-\\u009F]';
const INVISIBLE = new RegExp(INVISIBLE_CLASS, 'gu');
// The `[` of a literal "[U+" is escaped too, so every [U+XXXX] in a display stands for a real character:
// without it, {"cmd\u200b": ..., "cmd[U+200B]": ...} would show two equal keys and one would hide the other.
const ESCAPED = new RegExp(`${INVISIBLE_CLASS}|\\[(?=U\\+)`, 'gu');
// Fast path: printable ASCII, tab and newline, with no "[U+", need no look.
const NOT_PLAIN = /[^\x20-\x7E\n\t]/;
const NON_ASCII = /[^\x00-\x7F]/;
const BIDI = /\p{Bidi_Control}/u;
const ZERO_WIDTH = /[\u200B-\u200D\u2060\uFEFF]/u;
const WORD = /[\p{L}\p{M}\p{N}]+/gu;
const LATIN = /\p{Script=Latin}/u;
const OTHER_SCRIPTS = [/\p{Script=Cyrillic}/u, /\p{Script=Greek}/u, /\p{Script=Armenian}/u, /\p{Script=Cherokee}/u];
/** How many distinct invisible characters an `invisible` warning names. */
const NAMED = 5;

function needsLook(text: string): boolean {
  return NOT_PLAIN.test(text) || text.includes('[U+');
}

/** `U+202E`, `U+E0041`: four hex digits at least, five or six above U+FFFF. */
function codePointName(char: string): string {
  return `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * Replaces each invisible character (see above) with what `replace` returns
 * for it; the CLI uses this with its own notation.
 *
 * @example
 * replaceInvisible('a\u202Eb', (char) => `<${char.codePointAt(0)}>`); // 'a<8238>b'
 */
export function replaceInvisible(text: string, replace: (char: string) => string): string {
  return needsLook(text) ? text.replace(INVISIBLE, replace) : text;
}

/** Text as the display shows it: invisible characters and the `[` of a literal `[U+` as `[U+XXXX]`. */
export function escapeForDisplay(text: string): string {
  return needsLook(text) ? text.replace(ESCAPED, (char) => `[${codePointName(char)}]`) : text;
}

function isMixedScript(word: string): boolean {
  return LATIN.test(word) && OTHER_SCRIPTS.some((script) => script.test(word));
}

/** Adds a warning for each kind of thing in `text` a reader could not see or could be misled by. */
export function inspectText(text: string, path: string, warnings: ArgsWarning[]): void {
  if (!needsLook(text)) return;
  let bidi = false;
  let zeroWidth = false;
  let lookalike = false;
  const invisible = new Set<string>();
  for (const [char] of text.matchAll(ESCAPED)) {
    if (char === '[') lookalike = true;
    else if (BIDI.test(char)) bidi = true;
    else if (ZERO_WIDTH.test(char)) zeroWidth = true;
    else invisible.add(codePointName(char));
  }
  if (bidi) {
    warnings.push({
      code: 'bidi-control',
      path,
      message: 'contains bidirectional control characters that can reorder what is shown; they are escaped as [U+XXXX]',
    });
  }
  if (zeroWidth) {
    warnings.push({
      code: 'zero-width',
      path,
      message: 'contains zero-width characters that render as nothing; they are escaped as [U+XXXX]',
    });
  }
  if (invisible.size > 0) {
    const names = [...invisible].slice(0, NAMED).join(', ') + (invisible.size > NAMED ? ', …' : '');
    warnings.push({
      code: 'invisible',
      path,
      message: `contains invisible or control characters (${names}) that render as nothing or act on the screen; they are escaped as [U+XXXX]`,
    });
  }
  if (lookalike) {
    warnings.push({
      code: 'escape-lookalike',
      path,
      message:
        'contains the text "[U+", which looks like an escaped character; its "[" is shown as [U+005B] so it cannot pass for one',
    });
  }
  if (!NON_ASCII.test(text)) return;
  for (const [word] of text.matchAll(WORD)) {
    if (isMixedScript(word)) {
      warnings.push({
        code: 'mixed-script',
        path,
        message: `"${word}" mixes Latin with look-alike letters of another script`,
      });
      break;
    }
  }
}

/**
 * Untrusted text as a person is shown it: inspected whole (warnings go to
 * `warnings` under `path`), escaped, and past `maxLength` cut visibly with
 * its head and tail kept and its full length stated.
 *
 * @example
 * const warnings: ArgsWarning[] = [];
 * presentText('ls -la\u{E003B}', 'description', 2000, warnings); // 'ls -la[U+E003B]', one 'invisible' warning
 */
export function presentText(text: string, path: string, maxLength: number, warnings: ArgsWarning[]): string {
  if (text.length <= maxLength && !needsLook(text)) return text;
  inspectText(text, path, warnings);
  if (text.length <= maxLength) return escapeForDisplay(text);
  const half = Math.floor(maxLength / 2);
  warnings.push({
    code: 'truncated',
    path,
    message: `${text.length} characters; the display shows the first ${half} and the last ${half}`,
  });
  return `${escapeForDisplay(text.slice(0, half))} …[${text.length - 2 * half} characters not shown]… ${escapeForDisplay(text.slice(-half))}`;
}
