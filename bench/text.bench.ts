// URL scrubbing of error text (public-text.ts): the linear scanner against the regular expression it replaced, on
// the expression's worst cases at growing sizes. The expression's time grows with the square of the size, the
// scanner's with the size. Run: npx tsx bench/text.bench.ts
import { urlSpans } from '../src/presentation/url-spans.js';
import { formatDuration, measure, printTable } from './support/measure.js';

const REPLACED =
  /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]+|(?:[^\s/@:"'<>`]+(?::[^\s/@"'<>`]*)?@)?\b(?:[a-z0-9-]+\.)+[a-z]{2,}(?::\d{1,5})?\/[^\s"'<>`]*/gi;

const inputs: Record<string, (size: number) => string> = {
  'labels, then a slash (a.a.a.…a./)': (size) => `${'a.'.repeat(size / 2 - 1)}a/`,
  'one long word, then a slash (aaaa…a/)': (size) => `${'a'.repeat(size - 1)}/`,
  'user names, then a slash (u:p@u:p@…/)': (size) => `${'u:p@'.repeat(size / 4 - 1)}u:p/`,
  'an error with two URLs': (size) =>
    `POST https://user:pw@hooks.slack.com/services/T/B/X failed: ${'x '.repeat((size - 100) / 2)}see api.example/v1.`,
};

const rows: string[][] = [];
for (const [name, make] of Object.entries(inputs)) {
  for (const size of [1_000, 4_000, 16_000]) {
    const text = make(size);
    const iterations = size > 4_000 ? 30 : 200;
    const scanner = await measure(`scanner ${name} ${size}`, () => urlSpans(text), { iterations, warmup: 200 });
    const expression = await measure(`expression ${name} ${size}`, () => [...text.matchAll(REPLACED)], {
      iterations,
      warmup: 5,
    });
    rows.push([
      name,
      size.toLocaleString('en'),
      formatDuration(expression.median),
      formatDuration(scanner.median),
      `${(expression.median / scanner.median).toFixed(1)}×`,
    ]);
  }
}
printTable(
  'Finding URLs in error text: the replaced expression against the scanner (median)',
  ['input', 'characters', 'expression', 'scanner', 'expression / scanner'],
  rows,
);
