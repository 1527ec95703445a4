import type { Markup } from '../../kit/index.js';

const ZERO_WIDTH_SPACE = '\u200b';

/**
 * Makes text inert in a Discord message: `\` before `\ * _ ~ \` | > [ ]`,
 * before `#`, `-`, `+` and after a number's `.` at a line's start (headings,
 * lists), and a zero-width space after every `<` and after the `@` of
 * `@everyone` and `@here`, so nothing renders as markup or as a mention.
 *
 * @example
 * escapeDiscord('@everyone look at *this* <@123>'); // '@\u200beveryone look at \\*this\\* <\u200b@123>'
 */
export function escapeDiscord(text: string): string {
  return text
    .replace(/[\\*_~`|>[\]]/g, '\\$&')
    .replace(/^([ \t]*)([#+-]|\d+(?=\.))/gm, (_, indent: string, mark: string) =>
      /\d/.test(mark) ? `${indent}${mark}\\` : `${indent}\\${mark}`,
    )
    .replace(/<|@(?=everyone|here)/g, `$&${ZERO_WIDTH_SPACE}`);
}

/** Text for a fenced code block: a zero-width space after each backtick, so no ``` inside can close the fence. */
export function fenceSafe(text: string): string {
  return text.replace(/`/g, `\`${ZERO_WIDTH_SPACE}`);
}

/** Discord's markup for the shared wording; a decider recorded as `discord:<user id>` is shown as that user (never pinged: messages go with no allowed mentions). */
export const discordMarkup: Markup = {
  escape: escapeDiscord,
  strong: (escaped) => `**${escaped}**`,
  // Backslash escapes show literally inside a code span, so escaped text stays plain.
  code: (escaped) => escaped,
  who: (by) => {
    const user = by === undefined ? undefined : /^discord:(\d{1,20})$/.exec(by);
    return user ? `<@${user[1]}>` : escapeDiscord(by ?? 'someone');
  },
};
