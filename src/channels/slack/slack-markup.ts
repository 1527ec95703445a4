import { escapeMarkup, type Markup } from '../../kit/index.js';

/** Slack's limit on a section block's text (and on a context element's). */
export const SECTION_LIMIT = 3000;

const ZERO_WIDTH_SPACE = '\u200B';

/**
 * Text made inert for Slack's mrkdwn: `&<>` escaped, and no `*bold*`,
 * `_italics_`, `~strike~` or `` `code` `` can start in it.
 *
 * @example
 * slackEscape('<!channel> *now*'); // '&lt;!channel&gt; \u200B*now*'
 */
export function slackEscape(text: string): string {
  return escapeMarkup(text).replace(/(^|[^\p{L}\p{N}])(?=[*_~`])/gu, `$1${ZERO_WIDTH_SPACE}`);
}

/**
 * How a decider reads in Slack: a Slack user (`slack:U123`) as a mention, anyone else as inert text.
 *
 * @example
 * slackWho('slack:U123'); // '<@U123>'
 * slackWho('alice <a@x>'); // 'alice &lt;a@x&gt;'
 */
export function slackWho(by: string | undefined): string {
  if (by === undefined) return 'someone';
  const user = /^slack:([A-Z0-9]{1,64})$/.exec(by);
  return user ? `<@${user[1]}>` : slackEscape(by);
}

/** The shared wording's markup, rendered as Slack mrkdwn. */
export const slackMarkup: Markup = {
  escape: slackEscape,
  strong: (escaped) => `*${escaped}*`,
  code: (escaped) => `\`${escaped}\``,
  who: slackWho,
};

/** A mrkdwn text object taken literally: no auto-linking of names, channels or URLs. */
export const mrkdwn = (text: string) => ({ type: 'mrkdwn', text, verbatim: true }) as const;

/** A plain text object (button labels, headers, modal titles). */
export const plain = (text: string) => ({ type: 'plain_text', text, emoji: false }) as const;
