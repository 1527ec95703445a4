import { Hono, type Context } from 'hono';
import { parseJsonBody, parseWith } from '../../web/read-body.js';
import { HttpProblem, problem } from '../../web/problem.js';
import type { AppEnv } from '../app-env.js';
import { answerJson } from '../answer-json.js';
import { clearSessionBody, grantsQuery, revokeGrantBody } from '../schemas.js';
import type { RouteSettings } from './route-settings.js';

/** A signed delete names what it deletes in its body (the signature covers the body, not the URL): it must be the URL's. */
function checkTarget(c: Context<AppEnv>, field: 'grantId' | 'sessionId', named: string | undefined, expected: string): void {
  if (named === undefined ? c.var.caller.kind === 'webhook' : named !== expected) {
    throw new HttpProblem(
      problem(
        400,
        'target_mismatch',
        `A signed write must name its target in the signed body, and it must be the URL's: send "${field}": ${JSON.stringify(expected)}. Nothing was done.`,
        {
          [field]: expected,
        },
      ),
    );
  }
}

/** `GET /grants`, `DELETE /grants/:grantId`, `DELETE /sessions/:sessionId/grants`: session and agent grants listed and revoked. */
export function grantRoutes(settings: RouteSettings): Hono<AppEnv> {
  const { runtime, read, write } = settings;
  const app = new Hono<AppEnv>();

  app.get('/grants', read, async (c) => {
    const { sessionId, agent } = parseWith(grantsQuery, c.req.query(), 'query');
    return c.json({ grants: await runtime.grants({ ...(sessionId === undefined ? {} : { sessionId }), ...(agent === undefined ? {} : { agent }) }) });
  });

  app.delete('/grants/:grantId', ...write, async (c) => {
    const grantId = c.req.param('grantId');
    checkTarget(c, 'grantId', parseJsonBody(revokeGrantBody, c.var.rawBody).grantId, grantId);
    return answerJson(c, { revoked: (await runtime.revokeGrant(grantId)) ? 1 : 0 });
  });

  app.delete('/sessions/:sessionId/grants', ...write, async (c) => {
    const sessionId = c.req.param('sessionId');
    checkTarget(c, 'sessionId', parseJsonBody(clearSessionBody, c.var.rawBody).sessionId, sessionId);
    return answerJson(c, { revoked: await runtime.clearSession(sessionId) });
  });

  return app;
}
