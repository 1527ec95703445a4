// Link and inbox tokens travel in URLs, chat buttons and logs: nothing in them may be readable.
import { expect } from 'vitest';

/** Asserts that none of `readable` appears in `token`, as is or in any of its dot-separated parts decoded from base64url. */
export function expectOpaque(token: string, readable: readonly string[]): void {
  const views = [token, ...token.split('.').map((part) => Buffer.from(part, 'base64url').toString('latin1'))];
  for (const text of readable) {
    for (const view of views) expect(view, `token reveals ${text}`).not.toContain(text);
  }
}
