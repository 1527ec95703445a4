// A console session signed in with a personal token lasts only while the token does: revoked or expired, the next
// request (any route that reads the session cookie) finds the session ended.
import { createMiddleware } from 'hono/factory';
import type { PersonTokens } from '../../index.js';
import { HttpProblem, problem } from '../../kit/index.js';
import type { AppEnv } from '../app-env.js';
import type { ConsoleSessions } from './console-session.js';

export function personSessionGuard(sessions: ConsoleSessions, personTokens: PersonTokens) {
  return createMiddleware<AppEnv>(async function personSession(c, next) {
    const tokenId = sessions.read(c)?.tokenId;
    if (tokenId === undefined || (await personTokens.live(tokenId)) !== undefined) return next();
    sessions.end(c);
    // A page asked for again without the cookie shows the sign-in; anything else is told to sign in again.
    if (c.req.method === 'GET' && (c.req.header('accept') ?? '').includes('text/html'))
      return c.newResponse(null, 303, { location: c.req.url, 'cache-control': 'no-store' });
    throw new HttpProblem(
      problem(
        401,
        'console_signed_out',
        'The personal token this console session was signed in with was revoked or has expired; sign in again.',
      ),
    );
  });
}
