// Error text others read has every URL cut to its host, found by a scanner whose steps grow linearly with the text:
// the same URLs the regular expression it replaced found, without its quadratic worst case.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { publicError, publicText } from '../../src/presentation/public-text.js';
import { type ScanMeter, urlSpans } from '../../src/presentation/url-spans.js';

/** The reference: the expression public-text.ts used, tried at every offset (quadratic, so only on short texts here). */
const REFERENCE =
  /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]+|(?:[^\s/@:"'<>`]+(?::[^\s/@"'<>`]*)?@)?\b(?:[a-z0-9-]+\.)+[a-z]{2,}(?::\d{1,5})?\/[^\s"'<>`]*/gi;
const referenceSpans = (text: string) =>
  [...text.matchAll(REFERENCE)].map((match) => [match.index, match.index + match[0].length] as const);
const referenceHostOnly = (match: string) => {
  const [, url = match, trailing = ''] = /^(.*?)([).,;:!?\]]*)$/.exec(match) ?? [];
  try {
    return `${new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? url : `http://${url}`).host}/…${trailing}`;
  } catch {
    return `(a URL)${trailing}`;
  }
};
const referencePublicText = (text: string) => text.replace(REFERENCE, referenceHostOnly).replace(/\s+/g, ' ').trim();

/** Characters that start, continue, break or fool a URL, and a few the expression's flags treat specially. */
const CHARS = [
  'a',
  'Z',
  'k',
  '0',
  '7',
  '_',
  '-',
  '.',
  '+',
  ':',
  '/',
  '@',
  ' ',
  '\n',
  '"',
  "'",
  '<',
  '>',
  '`',
  ')',
  ']',
  '?',
  '%',
  'é',
  '\u00a0',
  '\u2028',
  '\ufeff',
  '\u212a',
  '\u017f',
];
/** Pieces of URLs and near-misses, so random texts hold many almost-URLs. */
const PIECES = [
  'https://',
  'git+ssh://',
  'user:pw@',
  'me@',
  ':@',
  'hooks.slack.com',
  'x.co',
  'a.',
  'a-b.',
  '-',
  '.com',
  ':8080',
  ':123456',
  ':',
  '/',
  '/path',
  '?key=1',
  ').',
  ' ',
  '"',
  '1.2.3.4/',
  'ab',
  'é.com/',
];
const text = fc.oneof(
  fc.array(fc.constantFrom(...CHARS), { maxLength: 60 }).map((chars) => chars.join('')),
  fc
    .array(fc.oneof(fc.constantFrom(...PIECES), fc.constantFrom(...CHARS)), { maxLength: 16 })
    .map((parts) => parts.join('')),
);

describe('publicText', () => {
  it('cuts URLs with a scheme, with user-info, or a host name with a path to the host, and keeps the sentence around them', () => {
    expect(publicText('POST https://user:pw@hooks.slack.com/services/T/B/XXXX failed')).toBe(
      'POST hooks.slack.com/… failed',
    );
    expect(
      publicText('no hook at alice:secret@hooks.internal.example:8443/hooks/abc (see https://x.example/a?key=1).'),
    ).toBe('no hook at hooks.internal.example:8443/… (see x.example/…).');
    expect(publicText('redirect to elsewhere.example/next?token=abc, not followed')).toBe(
      'redirect to elsewhere.example/…, not followed',
    );
    expect(publicText('"s3://bucket/key" and <ftp://files.example/a> and `git+ssh://git@host.example/repo`')).toBe(
      '"bucket/…" and <files.example/…> and `host.example/…`',
    );
  });

  it('leaves what is not a URL: a host name without a path, a scheme without anything after it, a port of six digits', () => {
    expect(publicText('connect to db.internal.example failed')).toBe('connect to db.internal.example failed');
    expect(publicText('expected https:// then a host')).toBe('expected https:// then a host');
    expect(publicText('x.example:123456/path')).toBe('x.example:123456/path');
  });

  it('finds the URLs the regular expression it replaced found, and says the same, on random texts', () => {
    fc.assert(
      fc.property(text, (sample) => {
        expect(urlSpans(sample)).toEqual(referenceSpans(sample));
        expect(publicText(sample, 10_000)).toBe(referencePublicText(sample));
      }),
      { numRuns: 3_000 },
    );
  });

  it('hands on an error without a URL as it is, and one with a URL as a copy with the URL cut', () => {
    const plain = Object.assign(new Error('connection refused'), { code: 'ECONNREFUSED' });
    expect(publicError(plain)).toBe(plain);
    const leaky = Object.assign(new Error('POST https://api.example/v1?key=sk-1 failed'), { code: 'E_HOOK' });
    expect(publicError(leaky)).toMatchObject({ message: 'POST api.example/… failed', code: 'E_HOOK' });
  });
});

describe('urlSpans takes steps linear in the length of the text', () => {
  // The expression's worst cases: every offset starts a user name, a scheme or a host label that fails only at the end.
  const worst: Record<string, (size: number) => string> = {
    'one long word': (size) => 'a'.repeat(size),
    'one long word, then a slash': (size) => `${'a'.repeat(size - 1)}/`,
    'labels without a path': (size) => 'a.'.repeat(size / 2),
    'labels, then a slash': (size) => `${'a.'.repeat(size / 2 - 1)}a/`,
    'labels then a path at the end': (size) => `${'a.'.repeat(size / 2 - 3)}co/x`,
    'schemes without //': (size) => 'a+'.repeat(size / 2),
    'user names without a host': (size) => `${'u:p@'.repeat(size / 4 - 1)}u:p/`,
    'closing punctuation after a URL': (size) => `x.co/${')'.repeat(size - 6)}a`,
    'many short URLs': (size) => 'a.co/ '.repeat(size / 6),
  };

  it.each(Object.keys(worst))('%s: at most 3 steps a character, at 1,000 and 100,000 characters', (name) => {
    for (const size of [1_000, 100_000]) {
      const sample = worst[name]!(size);
      const meter: ScanMeter = { steps: 0 };
      urlSpans(sample, meter);
      expect(meter.steps, `${name} at ${sample.length}`).toBeLessThanOrEqual(3 * sample.length);
    }
  });

  it('finds the one URL at the end of 100,000 characters of labels, and none in labels without a path', () => {
    const labels = 'a.'.repeat(50_000);
    expect(urlSpans(`${labels}co/x`)).toEqual([[0, labels.length + 4]]);
    expect(urlSpans(labels)).toEqual([]);
  });
});
