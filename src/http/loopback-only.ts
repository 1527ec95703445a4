import { createMiddleware } from 'hono/factory';
import type { AppEnv } from './app-env.js';
import { HttpProblem, problem } from '../kit/index.js';

/** 127.0.0.1, localhost or [::1], any port. */
const LOOPBACK_HOST = /^(?:127\.0\.0\.1|localhost|\[::1\])(?::\d{1,5})?$/i;

function isLoopbackOrigin(origin: string): boolean {
  try {
    const url = new URL(origin);
    return (
      (url.protocol === 'http:' || url.protocol === 'https:') &&
      url.origin === origin.toLowerCase() &&
      LOOPBACK_HOST.test(url.host)
    );
  } catch {
    return false;
  }
}

function refused(detail: string): HttpProblem {
  return new HttpProblem(
    problem(
      403,
      'not_loopback',
      `${detail} Without authentication (insecure demo mode) the app answers loopback only; configure bearerToken or webhookSecret to serve anything else.`,
    ),
  );
}

/**
 * Guards the insecure demo mode against DNS rebinding: a page on another
 * site whose name resolves to 127.0.0.1 reaches the app with its own name in
 * `Host` and its own `Origin`. Only loopback `Host` values (127.0.0.1,
 * localhost, [::1], any port) are answered, and a request that carries an
 * `Origin` must come from a loopback origin too (403 `not_loopback`).
 *
 * @example
 * if (insecure) app.use(loopbackOnly());
 */
export function loopbackOnly() {
  return createMiddleware<AppEnv>(async function loopbackOnlyGuard(c, next) {
    const host = c.req.header('host') ?? new URL(c.req.url).host;
    if (!LOOPBACK_HOST.test(host)) throw refused(`Host ${JSON.stringify(host.slice(0, 100))} is not a loopback name.`);
    const origin = c.req.header('origin');
    if (origin !== undefined && !isLoopbackOrigin(origin))
      throw refused(`Origin ${JSON.stringify(origin.slice(0, 100))} is not a loopback origin.`);
    await next();
  });
}
