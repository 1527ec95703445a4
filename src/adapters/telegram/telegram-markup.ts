// How Telegram's HTML parse mode is written: the kit's escape, bold and code entities, deciders as Telegram users,
// and the same text made plain for the places that take no markup (a callback answer's alert).
import { escapeMarkup, type Markup } from '../../channels/markup.js';

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

/** Telegram HTML as the plain text it shows: tags dropped, the three escapes decoded. */
export function plainText(html: string): string {
  return html
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}
