// Signing in to the console: which requests may sign in (login CSRF), and how a pasted inbox link is read (in time
// linear in its length: the parser is checked for what it accepts, never timed).
import { describe, expect, it } from 'vitest';
import { inboxUrl } from 'countersign';
import { inboxLinkToken } from '../../src/http/console/inbox-link-token.js';
import { harness, TOKEN } from './harness.js';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const signIn = (
  app: ReturnType<typeof harness>['app'],
  fields: Record<string, string>,
  headers: Record<string, string> = {},
  url = 'http://localhost/console/session',
) =>
  app.request(url, { method: 'POST', headers: { ...FORM, ...headers }, body: new URLSearchParams(fields).toString() });

describe('console sign-in from another site (login CSRF)', () => {
  it('refuses a sign-in another site sent (Sec-Fetch-Site, else Origin) and sets no cookie', async () => {
    const { app } = harness();
    const fields = { token: TOKEN, name: 'mallory' };
    for (const headers of [
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
      { 'sec-fetch-site': 'cross-site', origin: 'http://localhost' },
      { origin: 'https://evil.example' },
      { origin: 'null' },
    ]) {
      const response = await signIn(app, fields, headers);
      expect(response.status, JSON.stringify(headers)).toBe(403);
      expect(response.headers.get('set-cookie')).toBeNull();
      expect(await response.json()).toMatchObject({ code: 'cross_site_sign_in' });
    }
    const inbox = await signIn(app, { inbox: 'x.y' }, { 'sec-fetch-site': 'cross-site' });
    expect(inbox.status).toBe(403);
  });

  it("signs in from the console's own page, a typed address, and a client that is not a browser", async () => {
    const { app } = harness();
    for (const headers of [
      { 'sec-fetch-site': 'same-origin', origin: 'http://localhost' },
      { 'sec-fetch-site': 'none' },
      { origin: 'http://localhost' },
      { origin: 'https://approvals.example.com', 'x-forwarded-host': 'approvals.example.com' },
      {},
    ]) {
      const response = await signIn(app, { token: TOKEN, name: 'alice' }, headers);
      expect(response.status, JSON.stringify(headers)).toBe(303);
      expect(response.headers.get('set-cookie')).toMatch(/^countersign_console=/);
    }
  });
});

describe('reading a pasted inbox link', () => {
  const token = `${'A'.repeat(40)}.${'b'.repeat(22)}`;

  it('takes the token from the URL as sent, with a trailing slash, query or fragment, or the token alone', () => {
    expect(inboxLinkToken(inboxUrl('https://approvals.example.com/', token))).toBe(token);
    expect(inboxLinkToken(`  https://approvals.example.com/inbox/${token}/?cursor=x.y#top  `)).toBe(token);
    expect(inboxLinkToken(`https://approvals.example.com/inbox/${token}#a/b.c`)).toBe(token);
    expect(inboxLinkToken(token)).toBe(token);
  });

  it('refuses what is not one whole token, whatever its length, without a pattern anchored at one end', () => {
    expect(inboxLinkToken('')).toBeUndefined();
    expect(inboxLinkToken('https://approvals.example.com/inbox/')).toBeUndefined();
    expect(inboxLinkToken(`${token}!`)).toBeUndefined();
    expect(inboxLinkToken(`prefix ${token}`)).toBeUndefined();
    expect(inboxLinkToken(`${'a'.repeat(4001)}.b`)).toBeUndefined();
    // The input that cost the old pattern the square of its length: a long run of token characters with no dot.
    expect(inboxLinkToken('a'.repeat(8000))).toBeUndefined();
    expect(inboxLinkToken(`${'a.'.repeat(4000)}`)).toBeUndefined();
  });

  it('answers that input on the sign-in route with the sign-in page, and no session', async () => {
    const { app } = harness();
    const response = await signIn(app, { inbox: 'a'.repeat(8000) });
    expect(response.status).toBe(401);
    expect(response.headers.get('set-cookie')).toBeNull();
    expect(await response.text()).toContain('not an inbox link of this server');
  });
});
