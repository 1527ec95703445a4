import type { Context } from 'hono';
import { Hono } from 'hono';
import { parseWith } from '../../kit/index.js';
import type { AppEnv } from '../app-env.js';
import type { AuditHistory } from '../console/audit-history.js';
import { insightsPage } from '../console/console-insights-page.js';
import { CONSOLE_HEADERS } from '../console/console-pages.js';
import type { ConsoleSessions } from '../console/console-session.js';
import { type InsightsAnswer, insightsOf } from '../insights-of.js';
import { insightsQuery } from '../insights-schemas.js';
import type { RouteSettings } from './route-settings.js';

const DAY_MS = 86_400_000;
/** The window when `since` is not given. */
const DEFAULT_WINDOW_MS = 7 * DAY_MS;
/** The longest window asked for. */
const MAX_WINDOW_MS = 90 * DAY_MS;

/**
 * `GET /insights` (read credentials; not an inbox session) and the console's insights page (`GET /console/insights`):
 * per tool and per approver, what people were asked and how they answered, over `?since=` (ISO or epoch ms; 7 days
 * by default, at most 90) until now, from the decisions this app has seen.
 */
export function insightsRoutes(
  { read }: RouteSettings,
  own: { readonly sessions: ConsoleSessions; readonly history: AuditHistory; readonly clock: () => number },
): Hono<AppEnv> {
  const { sessions, history, clock } = own;
  const app = new Hono<AppEnv>();

  const answerOf = (c: Context<AppEnv>): InsightsAnswer => {
    history.start();
    const until = clock();
    const { since = until - DEFAULT_WINDOW_MS } = parseWith(
      insightsQuery.refine(({ since }) => since === undefined || (since >= until - MAX_WINDOW_MS && since <= until), {
        message: 'since must be within the last 90 days, and not in the future',
        path: ['since'],
      }),
      c.req.query(),
      'query',
    );
    const { listeningSince, limit, dropped } = history.coverage();
    return {
      source: 'history',
      ...insightsOf(history.search({ since, until }), { since, until }),
      listeningSince: listeningSince!,
      limit,
      dropped,
    };
  };

  app.get('/insights', read, (c) => c.json(answerOf(c)));

  app.get('/console/insights', (c) => {
    const session = sessions.requireToken(c);
    return c.newResponse(insightsPage(session, answerOf(c)), 200, CONSOLE_HEADERS);
  });

  return app;
}
