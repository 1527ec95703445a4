import { Hono } from 'hono';
import type { ReceiptKeySet } from '../../index.js';
import { problem, problemResponse } from '../../kit/index.js';
import type { AppEnv } from '../app-env.js';
import { openApiDocument } from '../openapi.js';

/**
 * `GET /healthz`, `GET /openapi.json` and `GET /.well-known/jwks.json` (the public keys decision receipts are checked
 * with, when the runtime signs them): what anyone may read about the service, without credentials.
 */
export function serviceRoutes(receiptKeys: ReceiptKeySet | undefined): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const document = openApiDocument();
  app.get('/healthz', (c) => c.json({ ok: true }));
  app.get('/openapi.json', (c) => c.json(document));
  app.get('/.well-known/jwks.json', (c) => {
    if (receiptKeys === undefined)
      return problemResponse(
        problem(
          404,
          'not_found',
          'This runtime signs no decision receipts; make it with createRuntime({ receipts: { privateKey } }).',
        ),
      );
    c.header('cache-control', 'public, max-age=300');
    return c.json(receiptKeys);
  });
  return app;
}
