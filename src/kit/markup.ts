// How a chat channel writes text: the one escape for the markups that give `&`, `<` and `>` a meaning (Slack's
// mrkdwn, Telegram's and Discord's HTML-ish entities, email HTML adds quotes), and the one visible cut.

/**
 * Escapes `&`, `<` and `>` so text a model wrote cannot become a mention
 * (`<!channel>`), a link, a user reference or a tag.
 *
 * @example
 * escapeMarkup('<!channel> & <b>'); // '&lt;!channel&gt; &amp; &lt;b&gt;'
 */
export function escapeMarkup(text: string): string {
  return text.replace(/[&<>]/g, (char) => (char === '&' ? '&amp;' : char === '<' ? '&lt;' : '&gt;'));
}

/** Cuts escaped text to `limit` characters, never inside an entity, saying that it was cut. */
export function fitEscaped(escaped: string, limit: number, closing = ''): string {
  if (escaped.length + closing.length <= limit) return escaped + closing;
  const note = `\n… (cut: ${escaped.length} characters in all)`;
  const kept = escaped.slice(0, Math.max(0, limit - closing.length - note.length)).replace(/&[a-z]{0,3}$/, '');
  return kept + closing + note;
}

/** A value as indented JSON for a code block (display copies are plain JSON; anything else says what it is). */
export function argsJson(args: unknown): string {
  try {
    return JSON.stringify(args, null, 2) ?? String(args);
  } catch {
    return String(args);
  }
}

/**
 * How one channel marks text up, for the wording every channel shares.
 * `escape` makes model or user text inert; `who` renders a decider
 * (`slack:U123` as a mention on Slack, escaped text elsewhere).
 */
export interface Markup {
  escape(text: string): string;
  strong(escaped: string): string;
  code(escaped: string): string;
  who(by: string | undefined): string;
}

/**
 * Escapes text for HTML element content and quoted attribute values.
 *
 * @example
 * escapeHtml('<script>"x"</script>'); // '&lt;script&gt;&quot;x&quot;&lt;/script&gt;'
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (char) => ESCAPES[char]!);
}

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};

/** The channels' Markup in HTML: the link pages' and the approval mail's. */
export const htmlMarkup: Markup = {
  escape: escapeHtml,
  strong: (escaped) => `<strong>${escaped}</strong>`,
  code: (escaped) => `<code>${escaped}</code>`,
  who: (by) => escapeHtml(by ?? 'someone'),
};
