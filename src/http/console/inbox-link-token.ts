/** A token as the inbox route takes it (`link-answers.ts` checks the same shape): both ends anchored, so linear. */
const TOKEN = /^[A-Za-z0-9_-]{1,4000}\.[A-Za-z0-9_-]{1,100}$/;

/**
 * The token of an inbox link pasted into the sign-in form, given as the whole URL (`https://host/inbox/<token>`,
 * with or without a trailing slash, query or fragment) or the token alone; undefined for anything else. Cut apart by
 * index, never by a pattern anchored at one end only (which costs the square of the input's length).
 */
export function inboxLinkToken(text: string): string | undefined {
  let rest = text.trim();
  const query = rest.search(/[?#]/);
  if (query !== -1) rest = rest.slice(0, query);
  if (rest.endsWith('/')) rest = rest.slice(0, -1);
  const token = rest.slice(rest.lastIndexOf('/') + 1);
  return TOKEN.test(token) ? token : undefined;
}
