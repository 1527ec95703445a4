import { escapeMarkup, type Markup } from '../../kit/index.js';

/** How a decider reads in a Telegram message, escaped: `telegram:4242` is `Telegram user 4242`. */
function telegramWho(by: string | undefined): string {
  if (by === undefined) return 'someone';
  const user = /^telegram:(-?\d{1,20})$/.exec(by);
  return user ? `Telegram user ${user[1]}` : escapeMarkup(by);
}

export const telegramMarkup: Markup = {
  escape: escapeMarkup,
  strong: (escaped) => `<b>${escaped}</b>`,
  code: (escaped) => `<code>${escaped}</code>`,
  who: telegramWho,
};

/**
 * `html` without its tags: from each `<` to the next `>` (a `<` with no `>` after it is kept, with all that follows).
 * One pass: `/<[^>]*>/g` would read to the end again from every `<` of a text without `>`.
 */
function withoutTags(html: string): string {
  let text = '';
  let from = 0;
  for (;;) {
    const open = html.indexOf('<', from);
    const close = open === -1 ? -1 : html.indexOf('>', open + 1);
    if (close === -1) return text + html.slice(from);
    text += html.slice(from, open);
    from = close + 1;
  }
}

/** Telegram HTML as the plain text it shows: tags dropped, the three escapes decoded. */
export function plainText(html: string): string {
  return withoutTags(html).replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}
