import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import { getCookie, setCookie, deleteCookie } from 'hono/cookie';
import { HttpProblem, problem } from '../../kit/index.js';
import type { AppEnv } from '../app-env.js';

/** Who is signed in to the console: the name decisions are recorded under, and how they proved it. */
export interface ConsoleSession {
  /** Recorded as `approvedBy` and checked against approver rules. */
  readonly reviewer: string;
  /** `token`: the app's bearer token and a name; `inbox`: a reviewer's signed inbox link. */
  readonly via: 'token' | 'inbox';
  /** Epoch ms. */
  readonly expiresAt: number;
  /** The id of the personal token the session was signed in with: the session ends when the token is revoked. */
  readonly tokenId?: string;
  /** Sent back with every write (form field `csrf` or header `x-csrf-token`). */
  readonly csrf: string;
}

/** What an inbox link stands for: who it signs in, until when; undefined once it is forged, expired or its secret rotated out. */
export type InboxCheck = (token: string) => { readonly reviewer: string; readonly expiresAt: number } | undefined;

export const SESSION_COOKIE = 'countersign_console';
/** A token sign-in lasts a working day; an inbox sign-in no longer than its link. */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

/** What a sent CSRF token may look like (empty is a missing one): base64url, ASCII only, so its bytes are its characters. */
const CSRF_SHAPE = /^[A-Za-z0-9_-]{0,100}$/;

/** The 403 for an inbox session where only a token session may go (`what` names what it asked for). */
export const inboxSessionNotAllowed = (what = 'history, grants and rules') =>
  new HttpProblem(
    problem(
      403,
      'inbox_session_not_allowed',
      `Signed in with an inbox link, the console shows and decides pending approvals only; sign in with the API token for ${what}.`,
    ),
  );

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

/**
 * Signs and reads console session cookies: `v1.<payload>.<hmac>`, stateless, so every process of the app that shares
 * its credentials accepts them. The key is derived from the app's configured bearer tokens and webhook secrets (a
 * random one per process when the app has none): rotating a credential out signs everyone out. An inbox session
 * carries its inbox link, checked again (`inbox`) on every request: it ends with the link, and when the links secret
 * rotates.
 */
export function consoleSessions(credentials: readonly string[], clock: () => number, inbox?: InboxCheck) {
  const key =
    credentials.length === 0
      ? randomBytes(32)
      : createHash('sha256')
          .update(['countersign console session v1', ...credentials].join('\0'))
          .digest();
  const mac = (text: string) => createHmac('sha256', key).update(text).digest('base64url');

  /** Sets the session cookie; an inbox session carries its link's token (`inboxToken`). */
  const issue = (
    c: Context<AppEnv>,
    reviewer: string,
    via: ConsoleSession['via'],
    expiresAt: number,
    credential: { readonly inboxToken?: string; readonly tokenId?: string } = {},
  ): void => {
    const payload = b64(
      JSON.stringify({
        r: reviewer,
        v: via,
        e: expiresAt,
        n: randomBytes(12).toString('base64url'),
        ...(credential.inboxToken === undefined ? {} : { t: credential.inboxToken }),
        ...(credential.tokenId === undefined ? {} : { k: credential.tokenId }),
      }),
    );
    const value = `v1.${payload}.${mac(payload)}`;
    setCookie(c, SESSION_COOKIE, value, {
      path: '/',
      httpOnly: true,
      sameSite: 'Strict',
      secure: new URL(c.req.url).protocol === 'https:' || c.req.header('x-forwarded-proto') === 'https',
      expires: new Date(expiresAt),
    });
  };

  /** The session the request's cookie carries, or undefined when it has none or a forged or expired one. */
  const read = (c: Context<AppEnv>): ConsoleSession | undefined =>
    sessionOf(getCookie(c, SESSION_COOKIE), mac, clock, inbox);

  /** The session, required: a 401 telling the person to sign in again otherwise. */
  const require = (c: Context<AppEnv>): ConsoleSession => {
    const session = read(c);
    if (session === undefined)
      throw new HttpProblem(
        problem(401, 'console_signed_out', 'The console session is missing or expired; open / and sign in again.'),
      );
    return session;
  };

  /**
   * The session, signed in with the API token: an inbox session has the inbox's powers only (show and decide the
   * pending approvals), so history, grants and rules refuse it with 403 `inbox_session_not_allowed`.
   */
  const requireToken = (c: Context<AppEnv>): ConsoleSession => {
    const session = require(c);
    if (session.via !== 'token') throw inboxSessionNotAllowed();
    return session;
  };

  /** The session of a write: its CSRF token (form field or `x-csrf-token` header) must match, or the write is refused. */
  const requireWrite = (c: Context<AppEnv>, fields: { readonly csrf?: string | undefined }): ConsoleSession => {
    const session = require(c);
    checkCsrf(c.req.header('x-csrf-token') ?? fields.csrf ?? '', session);
    return session;
  };

  const end = (c: Context<AppEnv>) => deleteCookie(c, SESSION_COOKIE, { path: '/' });

  return { issue, read, require, requireToken, requireWrite, end };
}

export type ConsoleSessions = ReturnType<typeof consoleSessions>;

/** The session a cookie carries, checked: signed with this app's key, well formed, unexpired, its inbox link still good. */
function sessionOf(cookie: string | undefined, mac: (text: string) => string, clock: () => number, inbox?: InboxCheck) {
  const match = cookie === undefined ? null : /^v1\.([A-Za-z0-9_-]{1,3500})\.([A-Za-z0-9_-]{43})$/.exec(cookie);
  if (match === null) return undefined;
  const [, payload, signature] = match as unknown as [string, string, string];
  if (!timingSafeEqual(Buffer.from(signature), Buffer.from(mac(payload)))) return undefined;
  let data: { r?: unknown; v?: unknown; e?: unknown; n?: unknown; t?: unknown; k?: unknown };
  try {
    data = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (
    typeof data.r !== 'string' ||
    (data.v !== 'token' && data.v !== 'inbox') ||
    typeof data.e !== 'number' ||
    typeof data.n !== 'string'
  )
    return undefined;
  if (data.e <= clock()) return undefined;
  if (data.v === 'inbox') {
    // The inbox link is the credential: forged, expired or sealed with a links secret rotated out, the session ends.
    const claim = typeof data.t === 'string' ? inbox?.(data.t) : undefined;
    if (claim === undefined || claim.reviewer !== data.r) return undefined;
  }
  const session: ConsoleSession = {
    reviewer: data.r,
    via: data.v,
    expiresAt: data.e,
    csrf: mac(`csrf\0${data.n}`),
    ...(typeof data.k === 'string' ? { tokenId: data.k } : {}),
  };
  return session;
}

/** A write's CSRF token must be the session's: a malformed one is a 400, a wrong or missing one a 403. */
function checkCsrf(sent: string, session: ConsoleSession): void {
  // A token is base64url: anything else is a malformed request, refused before its bytes are compared.
  if (!CSRF_SHAPE.test(sent)) {
    throw new HttpProblem(
      problem(
        400,
        'malformed_csrf_token',
        'The CSRF token must be the base64url text the console page gave; reload the console and try again.',
      ),
    );
  }
  if (sent.length !== session.csrf.length || !timingSafeEqual(Buffer.from(sent), Buffer.from(session.csrf))) {
    throw new HttpProblem(
      problem(403, 'invalid_csrf_token', 'The CSRF token is missing or wrong; reload the console and try again.'),
    );
  }
}
