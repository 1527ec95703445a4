// A Telegram card's text made plain, and its arguments left out to make room for a line, by searches that read
// the text once: the same results as the regular expressions they replaced, which read to the end again from every
// `<` (or `\n<pre>`) of a text that never closes it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeMarkup, fitEscaped } from '../../../src/kit/markup.js';
import { withLine } from '../../../src/channels/telegram/approval-card.js';
import { TELEGRAM_TEXT_LIMIT } from '../../../src/channels/telegram/bot-api.js';
import { plainText } from '../../../src/channels/telegram/telegram-markup.js';

const referencePlainText = (html: string) =>
  html
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
const ARGS_BLOCK = /\n<pre>[\s\S]*?<\/pre>/;
function referenceWithLine(card: string, line: string): string {
  const room = TELEGRAM_TEXT_LIMIT - card.length - 2;
  if (line.length <= room) return `${card}\n\n${line}`;
  if (ARGS_BLOCK.test(card))
    return referenceWithLine(card.replace(ARGS_BLOCK, '\n<i>(arguments left out to make room)</i>'), line);
  return `${card}\n\n${fitEscaped(escapeMarkup(referencePlainText(line)), Math.max(0, room))}`;
}

const PIECES = ['<', '>', '<b>', '</b>', '\n<pre>', '</pre>', '<pre>', '\n', 'a', '&lt;', '&amp;', '&gt;', '&', ' '];
const html = fc.array(fc.constantFrom(...PIECES), { maxLength: 40 }).map((parts) => parts.join(''));

describe('Telegram card text', () => {
  it('plainText drops the tags and decodes the escapes as the regular expression did, on random texts', () => {
    fc.assert(
      fc.property(html, (text) => {
        expect(plainText(text)).toBe(referencePlainText(text));
      }),
      { numRuns: 2_000 },
    );
  });

  it('withLine leaves out the arguments block as the regular expression did, on random cards too long for the line', () => {
    const padded = fc
      .tuple(html, html, fc.integer({ min: 3_000, max: 4_100 }))
      .map(([head, tail, pad]) => `${head}${'x'.repeat(pad)}${tail}`);
    fc.assert(
      fc.property(padded, html, (card, line) => {
        const long = `${line}${'y'.repeat(1_200)}`;
        expect(withLine(card, long)).toBe(referenceWithLine(card, long));
      }),
      { numRuns: 500 },
    );
  });

  it('keeps a text of 100,000 unclosed < as it is, and leaves out nothing from a card whose <pre> never closes', () => {
    const unclosed = '<'.repeat(100_000);
    expect(plainText(unclosed)).toBe(unclosed);
    const card = `<b>run</b>${'\n<pre>'.repeat(10_000)}`;
    expect(withLine(card, 'Denied by alice')).toBe(`${card}\n\n${fitEscaped('Denied by alice', 0)}`);
  });
});
