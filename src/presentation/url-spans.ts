// Where the URLs are in a text, in steps linear in its length: a scanner, not a regular expression. It finds what
// this expression, tried at every offset, would (what public-text.ts used, quadratic on text such as "a.a.a.a…"):
//
//   /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]+|(?:[^\s/@:"'<>`]+(?::[^\s/@"'<>`]*)?@)?\b(?:[a-z0-9-]+\.)+[a-z]{2,}(?::\d{1,5})?\/[^\s"'<>`]*/gi
//
// that is, a URL with a scheme (`https://…`), or a host name followed by a path (`hooks.slack.com/services/…`),
// each with optional user-info. None of its parts holds whitespace, a quote, `<`, `>` or a backquote (a stop), and
// each ends with everything up to the next stop; so the text falls into words between stops, a word holds at most one
// URL, which runs to the word's end, and only a word with a `/` can hold one. The scanner reads such a word right to
// left, noting for each position where its run of scheme, user-info, label, letter and digit characters ends and
// whether a host name (labels, a top-level name, an optional port, then `/`) starts there; then left to right until
// a position where, asked in constant time, a URL starts.

/** Counts the scanner's steps (one a character visited), so a test can check they grow linearly with the text. */
export interface ScanMeter {
  steps: number;
}

const SLASH = 0x2f;
const COLON = 0x3a;
const AT = 0x40;
const DOT = 0x2e;

// What each character may be part of, as bits: looked up once a character, not worked out again for each kind of run.
const LETTER = 1;
const DIGIT = 2;
/** `\w` without the `u` flag: what `\b` looks at. */
const WORD = 4;
/** A host label's characters: letters, digits, `-`. */
const LABEL = 8;
/** A scheme's characters after its first letter: letters, digits, `+ . -`. */
const SCHEME = 16;
/** Where every URL ends: whitespace (`\s` as JavaScript has it), a quote, `<`, `>` or a backquote. */
const STOP = 32;
/** What a password may hold: anything but a stop, `/` or `@`. */
const PASSWORD = 64;
/** What a user name may hold: that, and not `:` either. */
const USER = 128;

const SPACE = /\s/;

function kindOf(code: number): number {
  if (SPACE.test(String.fromCharCode(code)) || '"\'<>`'.includes(String.fromCharCode(code))) return STOP;
  const letter = (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
  const digit = code >= 0x30 && code <= 0x39;
  let kind = (letter ? LETTER : 0) | (digit ? DIGIT : 0);
  if (letter || digit || code === 0x5f) kind |= WORD;
  if (letter || digit || code === 0x2d) kind |= LABEL;
  if (kind & LABEL || code === 0x2b || code === DOT) kind |= SCHEME;
  if (code !== SLASH && code !== AT) kind |= PASSWORD;
  if (kind & PASSWORD && code !== COLON) kind |= USER;
  return kind;
}

/** Every ASCII character's kind; any other is a stop when it is whitespace, else a user name's or password's. */
const ASCII_KINDS = Uint8Array.from({ length: 128 }, (_, code) => kindOf(code));
const kindAt = (text: string, index: number) => {
  const code = text.charCodeAt(index);
  return code < 128 ? ASCII_KINDS[code]! : SPACE.test(text[index]!) ? STOP : PASSWORD | USER;
};

/**
 * Reads words (text without stops) for where a URL starts, in a few steps a character, with tables made once for
 * the longest word: for each position its kind, where its run of each kind of character ends, and whether a host
 * name starts there. Entry `word.length` ends every run and is of no kind.
 */
class WordScanner {
  readonly #kinds: Uint8Array;
  readonly #schemeEnd: Int32Array;
  readonly #userEnd: Int32Array;
  readonly #passwordEnd: Int32Array;
  readonly #labelEnd: Int32Array;
  readonly #letterEnd: Int32Array;
  readonly #digitEnd: Int32Array;
  /** 1 where `(?:[a-z0-9-]+\.)+[a-z]{2,}(?::\d{1,5})?\/` matches. */
  readonly #host: Uint8Array;
  #word = '';

  constructor(longest: number) {
    this.#kinds = new Uint8Array(longest + 1);
    this.#schemeEnd = new Int32Array(longest + 1);
    this.#userEnd = new Int32Array(longest + 1);
    this.#passwordEnd = new Int32Array(longest + 1);
    this.#labelEnd = new Int32Array(longest + 1);
    this.#letterEnd = new Int32Array(longest + 1);
    this.#digitEnd = new Int32Array(longest + 1);
    this.#host = new Uint8Array(longest + 1);
  }

  /** Where in `word` the first URL starts (it runs to the word's end), if any. */
  urlStart(word: string, meter: ScanMeter | undefined): number | undefined {
    this.#word = word;
    const n = word.length;
    const kinds = this.#kinds;
    kinds[n] = 0;
    for (const ends of [
      this.#schemeEnd,
      this.#userEnd,
      this.#passwordEnd,
      this.#labelEnd,
      this.#letterEnd,
      this.#digitEnd,
    ])
      ends[n] = n;
    this.#host[n] = 0;
    for (let i = n - 1; i >= 0; i--) {
      if (meter !== undefined) meter.steps++;
      const kind = kindAt(word, i);
      kinds[i] = kind;
      this.#schemeEnd[i] = kind & SCHEME ? this.#schemeEnd[i + 1]! : i;
      this.#userEnd[i] = kind & USER ? this.#userEnd[i + 1]! : i;
      this.#passwordEnd[i] = kind & PASSWORD ? this.#passwordEnd[i + 1]! : i;
      this.#labelEnd[i] = kind & LABEL ? this.#labelEnd[i + 1]! : i;
      this.#letterEnd[i] = kind & LETTER ? this.#letterEnd[i + 1]! : i;
      this.#digitEnd[i] = kind & DIGIT ? this.#digitEnd[i + 1]! : i;
      // A label is never `.`, so each label is a whole run and ends at a dot; after it, more labels or the top-level name.
      const dot = this.#labelEnd[i]!;
      this.#host[i] =
        dot > i && this.#code(dot) === DOT && (this.#host[dot + 1] === 1 || this.#topLevelName(dot + 1)) ? 1 : 0;
    }
    for (let p = 0; p < n; p++) {
      if (meter !== undefined) meter.steps++;
      if (this.#withScheme(p) || this.#hostAt(p)) return p;
      const host = this.#afterUserInfo(p);
      if (host !== undefined && this.#hostAt(host)) return p;
    }
    return undefined;
  }

  #code(index: number): number {
    return this.#word.charCodeAt(index);
  }

  /** `(?::\d{1,5})?\/` at k. Digits are never `/`, so the digits must be the whole run. */
  #portThenSlash(k: number): boolean {
    if (this.#code(k) === SLASH) return true;
    if (this.#code(k) !== COLON) return false;
    const digits = this.#digitEnd[k + 1]! - (k + 1);
    return digits >= 1 && digits <= 5 && this.#code(k + 1 + digits) === SLASH;
  }

  /** `[a-z]{2,}` then the above at t. Letters are never `:` or `/`, so the letters must be the whole run. */
  #topLevelName(t: number): boolean {
    const end = this.#letterEnd[t]!;
    return end - t >= 2 && this.#portThenSlash(end);
  }

  /** `\b` at i: a word starts after a stop, never a word character. */
  #boundary(i: number): boolean {
    return (i > 0 && (this.#kinds[i - 1]! & WORD) !== 0) !== ((this.#kinds[i]! & WORD) !== 0);
  }

  #hostAt(i: number): boolean {
    return this.#host[i] === 1 && this.#boundary(i);
  }

  /** `\b[a-z][a-z0-9+.-]*:\/\/` and a character at p. The scheme is never `:`, so it is the whole run. */
  #withScheme(p: number): boolean {
    if ((this.#kinds[p]! & LETTER) === 0 || !this.#boundary(p)) return false;
    const end = this.#schemeEnd[p]!;
    return (
      this.#code(end) === COLON &&
      this.#code(end + 1) === SLASH &&
      this.#code(end + 2) === SLASH &&
      end + 3 < this.#word.length
    );
  }

  /** Where a host starts after user-info at p. The name never holds `:` or `@`, the password never `@`: each is a whole run. */
  #afterUserInfo(p: number): number | undefined {
    const name = this.#userEnd[p]!;
    if (name === p) return undefined;
    if (this.#code(name) === AT) return name + 1;
    if (this.#code(name) !== COLON) return undefined;
    const password = this.#passwordEnd[name + 1]!;
    return this.#code(password) === AT ? password + 1 : undefined;
  }
}

/**
 * The URLs in `text` as `[start, end)` pairs, in order and apart, in at most three steps a character (counted on
 * `meter` when given).
 */
export function urlSpans(text: string, meter?: ScanMeter): Array<readonly [number, number]> {
  const words: Array<readonly [number, number]> = [];
  let longest = 0;
  for (let start = 0; start < text.length; ) {
    let end = start;
    let slash = false;
    for (; end < text.length && (kindAt(text, end) & STOP) === 0; end++) {
      if (meter !== undefined) meter.steps++;
      if (text.charCodeAt(end) === SLASH) slash = true;
    }
    if (slash) {
      words.push([start, end]);
      longest = Math.max(longest, end - start);
    }
    start = end + 1;
  }
  if (words.length === 0) return [];
  const scanner = new WordScanner(longest);
  const spans: Array<readonly [number, number]> = [];
  for (const [start, end] of words) {
    const at = scanner.urlStart(text.slice(start, end), meter);
    if (at !== undefined) spans.push([start + at, end]);
  }
  return spans;
}
