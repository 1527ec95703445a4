import { createMiddleware } from 'hono/factory';
import type { AppEnv } from './app-env.js';

/**
 * `x-content-type-options: nosniff` on every answer, and `cache-control: no-store` on JSON ones (runs, approvals
 * and decisions are private and change: no cache, shared or not, may keep them). A route's own cache-control (link
 * pages, the event stream) replaces it.
 */
export function safeHeaders() {
  return createMiddleware<AppEnv>(async function safeHeaders(c, next) {
    // Set before the handler, so a response the route builds with the context carries them as built; editing the
    // finished response afterwards costs the Node adapter its fast path.
    c.header('x-content-type-options', 'nosniff');
    c.header('cache-control', 'no-store');
    await next();
    // Responses built without the context (problem details, replayed answers, channels' answers) get them here.
    if (c.res.headers.has('x-content-type-options')) return;
    try {
      c.res.headers.set('x-content-type-options', 'nosniff');
      if (
        /^application\/(?:problem\+)?json/i.test(c.res.headers.get('content-type') ?? '') &&
        !c.res.headers.has('cache-control')
      ) {
        c.res.headers.set('cache-control', 'no-store');
      }
    } catch {
      // A response with immutable headers keeps them.
    }
  });
}
