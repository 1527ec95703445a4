/**
 * The characters a wildcard of a grant's argument pattern may stand for: ASCII letters and digits and `. _ + @ = , : ~ -`.
 * Not whitespace or control characters, not a quote, `\`, `$`, `;`, `&`, `|`, `<`, `>`, `(`, `)`, `` ` ``, `*`, `?`,
 * `!`, `#`, `{`, `}`, `[`, `]` (text that changes what a shell command does), not `/` (so `*` stays in one path
 * segment) and not `%` (percent-encoding spells `/` and `..` in text a tool may decode).
 */
const SAFE = /^[A-Za-z0-9._+@=,:~-]$/;

/** One step of a compiled pattern: a literal character, one safe character (`?`), or a run of them (`*`, `**`). */
type Step =
  | { readonly kind: 'char'; readonly char: string }
  | { readonly kind: 'one' }
  | { readonly kind: 'star'; readonly deep: boolean };

/** True when `value` has a `..` path segment (`..`, `../x`, `x/..`, `x/../y`): a way out of the directory a pattern names. */
function climbs(value: string): boolean {
  return value.split('/').includes('..');
}

/**
 * A pattern of a grant's `argsMatch`, matched against a string argument as a person reading it expects:
 *
 * - `*` is zero or more characters of one path segment, and only letters, digits and `. _ + @ = , : ~ -`: never `/`,
 *   whitespace, a control character or shell text (`'staging-*'` does not cover `'staging-1 && deploy prod'`);
 * - `**` is the same across segments (it also takes `/`): `'/srv/app/**'` covers `'/srv/app/a/b.txt'`;
 * - `?` is exactly one such character;
 * - a `*` or `**` that is a whole segment (`/tmp/*`, `/srv/**`, or the whole pattern) takes at least one character, so
 *   `'/tmp/*'` does not cover `'/tmp/'` (the directory itself);
 * - a value with a `..` segment never matches a pattern with a wildcard (`'/tmp/*'` does not cover `'/tmp/..'`, and
 *   `'/tmp/**'` does not cover `'/tmp/a/../../etc/passwd'`);
 * - every other character of the pattern is itself: a pattern without wildcards matches only the same text.
 *
 * Matching takes at most O(value length × pattern length) steps, whatever the pattern (no regular expression that
 * could backtrack).
 *
 * @example
 * new ValueGlob('/tmp/*').test('/tmp/a.txt'); // true
 * new ValueGlob('/tmp/*').test('/tmp/../etc/passwd'); // false
 * new ValueGlob('staging-*').test('staging-1 && deploy prod'); // false
 */
export class ValueGlob {
  readonly source: string;
  readonly #steps: readonly Step[];
  readonly #literal: boolean;

  constructor(source: string) {
    this.source = source;
    const steps: Step[] = [];
    // By code point, as the value is read: a literal emoji is one step, not two halves.
    const chars = [...source];
    for (let i = 0; i < chars.length; i++) {
      const char = chars[i]!;
      if (char === '?') steps.push({ kind: 'one' });
      else if (char === '*') {
        const deep = chars[i + 1] === '*';
        let end = i + 1;
        while (chars[end] === '*') end++;
        // A wildcard that is a whole segment names something in it, never the segment left empty.
        const wholeSegment = (i === 0 || chars[i - 1] === '/') && (end === chars.length || chars[end] === '/');
        if (wholeSegment) steps.push({ kind: 'one' });
        steps.push({ kind: 'star', deep });
        i = end - 1;
      } else steps.push({ kind: 'char', char });
    }
    this.#steps = steps;
    this.#literal = steps.every((step) => step.kind === 'char');
  }

  test(value: string): boolean {
    if (this.#literal) return value === this.source;
    if (climbs(value)) return false;
    const steps = this.#steps;
    // The steps the value so far may have reached (a set of indexes into `steps`; steps.length is the end).
    let reached = this.#closure(new Set([0]));
    for (const char of value) {
      const next = new Set<number>();
      const safe = SAFE.test(char);
      for (const index of reached) {
        const step = steps[index];
        if (step === undefined) continue;
        if (
          step.kind === 'char' ? step.char === char : step.kind === 'one' ? safe : safe || (step.deep && char === '/')
        ) {
          next.add(step.kind === 'star' ? index : index + 1);
        }
      }
      if (next.size === 0) return false;
      reached = this.#closure(next);
    }
    return reached.has(steps.length);
  }

  /** Adds the steps reachable without taking a character: past every star, which may take none. */
  #closure(indexes: Set<number>): Set<number> {
    for (const index of indexes) if (this.#steps[index]?.kind === 'star') indexes.add(index + 1);
    return indexes;
  }
}
