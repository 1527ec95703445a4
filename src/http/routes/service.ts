import { Hono } from 'hono';
import type { AppEnv } from '../app-env.js';
import { openApiDocument } from '../openapi.js';

/** `GET /healthz` and `GET /openapi.json`: what anyone may read about the service, without credentials. */
export function serviceRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const document = openApiDocument();
  app.get('/healthz', (c) => c.json({ ok: true }));
  app.get('/openapi.json', (c) => c.json(document));
  return app;
}
