import { Hono } from 'hono';
import type { RunEvent } from '../../index.js';
import type { AppEnv } from '../app-env.js';
import { streamEvents, type EventFeed } from '../events-route.js';
import { consoleEventView } from '../console/console-event-view.js';
import { inboxEventView } from '../console/inbox-event-view.js';
import type { RouteSettings } from './route-settings.js';

/** `GET /events`: run events as server-sent events, read from `feed`, with a heartbeat comment every `heartbeatMs`. */
export function eventRoutes(
  { readPending, report }: RouteSettings,
  { feed, heartbeatMs }: { readonly feed: EventFeed; readonly heartbeatMs: number },
): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get('/events', readPending, (c) => {
    const { caller } = c.var;
    // A console session reads names and reasons through the display filter; one an inbox link signed in follows the
    // pending cards, and sees no more of a run than the inbox shows.
    const view =
      caller.kind !== 'console'
        ? undefined
        : caller.via === 'inbox'
          ? (event: RunEvent) => {
              const seen = inboxEventView(event);
              return seen === undefined ? undefined : consoleEventView(seen);
            }
          : consoleEventView;
    return streamEvents(c, feed, {
      heartbeatMs,
      ...(view === undefined ? {} : { view }),
      onError: (error) => report(error, { operation: 'events', method: 'GET', path: '/events' }),
    });
  });
  return app;
}
