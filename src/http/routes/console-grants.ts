import { Hono } from 'hono';
import type { AppEnv } from '../app-env.js';
import { consoleBlanket, readConsoleBody } from '../console/console-body.js';
import { grantsPage } from '../console/console-grants-page.js';
import { CONSOLE_HEADERS } from '../console/console-pages.js';
import type { ConsoleSessions } from '../console/console-session.js';
import type { RouteSettings } from './route-settings.js';

/**
 * The console's grants: `GET /console/grants` lists the live grants of the runtime's agents, and
 * `POST /console/grants/:grantId` (a form, CSRF checked) revokes one and goes back to the list.
 */
export function consoleGrantRoutes(
  { runtime }: RouteSettings,
  own: { readonly sessions: ConsoleSessions; readonly maxBodyBytes: number },
): Hono<AppEnv> {
  const { sessions } = own;
  const app = new Hono<AppEnv>();

  app.get('/console/grants', async (c) =>
    c.newResponse(grantsPage(sessions.requireToken(c), await runtime.grants()), 200, CONSOLE_HEADERS),
  );

  app.post('/console/grants/:grantId', async (c) => {
    sessions.requireToken(c);
    const { fields } = await readConsoleBody(c, consoleBlanket.pick({ csrf: true }), own.maxBodyBytes);
    sessions.requireWrite(c, fields);
    await runtime.revokeGrant(c.req.param('grantId'));
    return c.newResponse(null, 303, { location: '../grants', 'cache-control': 'no-store' });
  });

  return app;
}
