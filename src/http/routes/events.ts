import { Hono } from 'hono';
import type { AppEnv } from '../app-env.js';
import { streamEvents, type EventFeed } from '../events-route.js';
import type { RouteSettings } from './route-settings.js';

/** `GET /events`: run events as server-sent events, read from `feed`, with a heartbeat comment every `heartbeatMs`. */
export function eventRoutes({ read, report }: RouteSettings, { feed, heartbeatMs }: { readonly feed: EventFeed; readonly heartbeatMs: number }): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get('/events', read, (c) => streamEvents(c, feed, { heartbeatMs, onError: (error) => report(error, { operation: 'events', method: 'GET', path: '/events' }) }));
  return app;
}
