import { createHash, randomUUID } from 'node:crypto';
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { OnceStore } from '../index.js';
import { HttpProblem, problem } from '../kit/index.js';
import type { AppEnv } from './app-env.js';

/** How long a delivery's claim and answer are kept: twice the ±300 s a signature is accepted for. */
export const WEBHOOK_ANSWER_TTL_MS = 600_000;

/** Seconds a redelivery should wait while the first delivery of its id is still being handled. */
const IN_PROGRESS_RETRY_AFTER_SECONDS = 1;

interface StoredAnswer {
  readonly status: number;
  readonly contentType: string | null;
  readonly body: string;
}

/** What the store keeps under `webhook:<id>`: the delivery's fingerprint, a claim nonce, and its answer once it has one. */
interface Delivery {
  readonly fingerprint: string;
  readonly claim: string;
  readonly answer?: StoredAnswer;
}

/** Method, path and body digest: what makes two deliveries of one webhook-id the same delivery. */
function fingerprintOf(c: Context<AppEnv>): string {
  const body = createHash('sha256')
    .update(c.get('rawBody') ?? '', 'utf8')
    .digest('base64url');
  return createHash('sha256')
    .update(`${c.req.method}\n${new URL(c.req.url).pathname}\n${body}`)
    .digest('base64url');
}

function readDelivery(text: string): Delivery | undefined {
  try {
    const value = JSON.parse(text) as Partial<Delivery>;
    return typeof value.fingerprint === 'string' && typeof value.claim === 'string' ? (value as Delivery) : undefined;
  } catch {
    return undefined;
  }
}

/** The answer to a delivery whose webhook-id is already claimed. */
function answerToRepeat(held: Delivery | undefined, fingerprint: string, webhookId: string): Response {
  if (held?.fingerprint !== fingerprint) {
    throw new HttpProblem(
      problem(
        409,
        'webhook_id_reused',
        'This webhook-id was already used for a different request (method, path or body); nothing was done. Give every new delivery its own webhook-id.',
        {
          webhookId,
        },
      ),
    );
  }
  if (held.answer === undefined) {
    throw new HttpProblem(
      problem(
        409,
        'webhook_in_progress',
        'The first delivery of this webhook-id is still being handled; retry it shortly to get its answer.',
        { webhookId },
      ),
      {
        'Retry-After': String(IN_PROGRESS_RETRY_AFTER_SECONDS),
      },
    );
  }
  const headers = new Headers({ 'webhook-replayed': 'true', 'cache-control': 'no-store' });
  if (held.answer.contentType) headers.set('content-type', held.answer.contentType);
  return new Response(held.answer.body, { status: held.answer.status, headers });
}

/**
 * Makes a signed delivery idempotent by its `webhook-id`, claimed before the
 * handler runs: the first delivery stores its fingerprint (method, path and
 * body digest) under the id, is handled, and its answer replaces the claim
 * for the signature's tolerance window. A redelivery with the same
 * fingerprint gets that answer back (same status and body, plus
 * `webhook-replayed: true`), or a 409 `webhook_in_progress` with Retry-After
 * while the first is still being handled; one with another fingerprint is
 * refused with 409 `webhook_id_reused` and never reaches a handler. A 5xx
 * answer releases the claim, so the sender's retry is processed again. A
 * store that cannot take the claim fails the request (503), never skips it.
 * A claim whose process died before answering keeps the id "in progress"
 * until it runs out (10 minutes), so a different request never slips in under
 * it within the signature window; the sender's later retries go through.
 *
 * `inCommit`: the route claims the id in the commit of its own write instead
 * (`delivery.claimWith`, on a store that claims in its commit), with the answer
 * stored by the same write; a route with nothing to commit claims it with
 * `delivery.claim()` before it answers. Only for a route that has no effect
 * before that commit.
 *
 * @example
 * app.post('/runs/:runId/cancel', authenticate(settings, { acceptSignature: true, readBody: true }), claimDeliveries(runtime.once, report), handler);
 */
export function claimDeliveries(
  once: OnceStore,
  onError: (error: unknown) => void,
  { inCommit = false }: { readonly inCommit?: boolean } = {},
) {
  return createMiddleware<AppEnv>(async function claimDelivery(c, next) {
    const caller = c.get('caller');
    if (caller?.kind !== 'webhook') return next();
    const key = `webhook:${caller.webhookId}`;
    const fingerprint = fingerprintOf(c);
    const claim = JSON.stringify({ fingerprint, claim: randomUUID() } satisfies Delivery);
    const answerHeld = (held: string) => answerToRepeat(readDelivery(held), fingerprint, caller.webhookId);
    let claimed = false;
    /** Claims the id now: the answer to give a repeat, or undefined once this delivery holds the claim. */
    const claimNow = async (): Promise<Response | undefined> => {
      const held = await once.putIfAbsent(key, claim, WEBHOOK_ANSWER_TTL_MS);
      if (held !== undefined) return answerHeld(held);
      claimed = true;
      return undefined;
    };
    if (!inCommit) {
      const repeat = await claimNow();
      if (repeat !== undefined) {
        c.res = repeat;
        return;
      }
    }
    const settledWith = (answer: StoredAnswer) =>
      JSON.stringify({ ...(JSON.parse(claim) as Delivery), answer } satisfies Delivery);
    const jsonAnswer = (status: number, body: string) => settledWith({ status, contentType: 'application/json', body });
    c.set('delivery', {
      settleWith: (status, body) => ({
        key,
        expected: claim,
        value: jsonAnswer(status, body),
        ttlMs: WEBHOOK_ANSWER_TTL_MS,
      }),
      claimWith: (status, body) => ({ key, value: jsonAnswer(status, body), ttlMs: WEBHOOK_ANSWER_TTL_MS }),
      answerHeld,
      claim: claimNow,
    });
    await next();
    // The route stored its answer with its own commit, or answered a repeat.
    if (c.var.settled === true) return;
    let settled: string | undefined;
    if (c.res.status < 500) {
      // A route that answered with answerJson hands over its text; reading the response back (clone) is the fallback.
      const body = c.var.answerText ?? (await c.res.clone().text());
      const answer: StoredAnswer = { status: c.res.status, contentType: c.res.headers.get('content-type'), body };
      settled = settledWith(answer);
    }
    try {
      if (claimed) await once.replace(key, claim, settled, WEBHOOK_ANSWER_TTL_MS);
      // Never claimed (a refusal before any write): its answer is kept for a redelivery, unless another took the id.
      else if (settled !== undefined) await once.putIfAbsent(key, settled, WEBHOOK_ANSWER_TTL_MS);
    } catch (error) {
      // The answer stands. Unsettled, the claim answers redeliveries "in progress" until it runs out.
      onError(error);
    }
  });
}
