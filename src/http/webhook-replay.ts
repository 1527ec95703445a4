import { createMiddleware } from 'hono/factory';
import type { SnapshotStore } from '../machine/snapshot-store.js';
import type { AppEnv } from './app-env.js';

/** How long a delivery's first answer is kept: twice the ±300 s a signature is accepted for. */
export const WEBHOOK_ANSWER_TTL_MS = 600_000;

interface StoredAnswer {
  readonly status: number;
  readonly contentType: string | null;
  readonly body: string;
}

/**
 * Makes a signed delivery idempotent by its `webhook-id`: the first answer
 * below 500 is kept in the store for the signature's tolerance window, and a
 * delivery with the same id gets that answer back (same status and body,
 * plus `webhook-replayed: true`). The repeat goes through the runtime too,
 * whose decisions are exactly-once, so it changes nothing; 5xx answers are
 * not kept, so a sender's retry of a failed delivery is processed again.
 *
 * @example
 * app.post('/runs/:runId/cancel', authenticate(settings, { acceptSignature: true, readBody: true }), rememberDeliveries(runtime.store, report), handler);
 */
export function rememberDeliveries(store: SnapshotStore, onError: (error: unknown) => void) {
  return createMiddleware<AppEnv>(async function rememberDelivery(c, next) {
    await next();
    const caller = c.get('caller');
    if (caller?.kind !== 'webhook' || c.res.status >= 500) return;
    const answer: StoredAnswer = { status: c.res.status, contentType: c.res.headers.get('content-type'), body: await c.res.clone().text() };
    let held: string | undefined;
    try {
      held = await store.remember(`webhook:${caller.webhookId}`, JSON.stringify(answer), WEBHOOK_ANSWER_TTL_MS);
    } catch (error) {
      // The answer stands; only the protection against a later replay is lost.
      onError(error);
      return;
    }
    if (held === undefined) return;
    const first = JSON.parse(held) as StoredAnswer;
    const headers = new Headers({ 'webhook-replayed': 'true', 'cache-control': 'no-store' });
    if (first.contentType) headers.set('content-type', first.contentType);
    // Drop the repeat's own answer first, so none of its headers leak into the replayed one.
    c.res = undefined;
    c.res = new Response(first.body, { status: first.status, headers });
  });
}
