import { Hono } from 'hono';
import { parseJsonBody, parseWith } from '../../kit/index.js';
import type { AppEnv } from '../app-env.js';
import { answerJson } from '../answer-json.js';
import { clearSessionBody, grantsQuery, revokeGrantBody } from '../schemas.js';
import { checkNamedTarget } from '../write-target.js';
import type { RouteSettings } from './route-settings.js';

/** `GET /grants`, `DELETE /grants/:grantId`, `DELETE /sessions/:sessionId/grants`: session and agent grants listed and revoked. */
export function grantRoutes(settings: RouteSettings): Hono<AppEnv> {
  const { runtime, read, write } = settings;
  const app = new Hono<AppEnv>();

  app.get('/grants', read, async (c) => {
    const { sessionId, agent } = parseWith(grantsQuery, c.req.query(), 'query');
    return c.json({
      grants: await runtime.grants({
        ...(sessionId === undefined ? {} : { sessionId }),
        ...(agent === undefined ? {} : { agent }),
      }),
    });
  });

  app.delete('/grants/:grantId', ...write, async (c) => {
    const grantId = c.req.param('grantId');
    checkNamedTarget(c, 'grantId', parseJsonBody(revokeGrantBody, c.var.rawBody).grantId, grantId);
    return answerJson(c, { revoked: (await runtime.revokeGrant(grantId)) ? 1 : 0 });
  });

  app.delete('/sessions/:sessionId/grants', ...write, async (c) => {
    const sessionId = c.req.param('sessionId');
    checkNamedTarget(c, 'sessionId', parseJsonBody(clearSessionBody, c.var.rawBody).sessionId, sessionId);
    return answerJson(c, { revoked: await runtime.clearSession(sessionId) });
  });

  return app;
}
