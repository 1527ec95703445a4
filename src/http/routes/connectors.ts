import { Hono } from 'hono';
import type { AppEnv } from '../app-env.js';
import type { RouteSettings } from './route-settings.js';

/** `GET /connectors`: the connectors the runtime's agents use (MCP servers, ...) and whether each can be reached now. */
export function connectorRoutes(settings: RouteSettings): Hono<AppEnv> {
  const { runtime, read } = settings;
  const app = new Hono<AppEnv>();
  app.get('/connectors', read, (c) => c.json({ connectors: runtime.connectors() }));
  return app;
}
