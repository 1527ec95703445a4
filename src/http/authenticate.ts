import { createHash, timingSafeEqual } from 'node:crypto';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from './app-env.js';
import { type ConsoleSessions, inboxSessionNotAllowed } from './console/console-session.js';
import { HttpProblem, problem, readRawBody, checkWebhookHeaders, verifyWebhook } from '../kit/index.js';
import type { PersonTokens } from '../index.js';

export interface AuthSettings {
  readonly bearerTokens: readonly string[];
  readonly webhookSecrets: readonly string[];
  /** Neither credential is configured and the app was told `insecure: true`. */
  readonly insecure: boolean;
  readonly clock: () => number;
  readonly maxBodyBytes: number;
  readonly toleranceSeconds: number;
  /** The console's session cookies, which the read routes (`GET /approvals`, `GET /runs/:runId`, `GET /events`, ...) accept in place of a bearer token. */
  readonly sessions?: ConsoleSessions;
  /** The runtime's personal API tokens, accepted as bearer tokens that name a person (`RuntimeOptions.personTokens`). */
  readonly personTokens?: PersonTokens | undefined;
}

const WEBHOOK_ID = /^[\x21-\x7e]{1,256}$/;

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/** Constant-time check of a presented token against every configured one (no early exit). */
export function bearerMatches(presented: string, tokens: readonly string[]): boolean {
  const offered = digest(presented);
  let ok = false;
  for (const token of tokens) ok = timingSafeEqual(offered, digest(token)) || ok;
  return ok;
}

function unauthorized(detail: string, data: Record<string, unknown> = {}, code = 'unauthorized'): HttpProblem {
  return new HttpProblem(problem(401, code, detail, data), { 'WWW-Authenticate': 'Bearer realm="countersign"' });
}

/**
 * Authenticates a request by bearer token or, where `acceptSignature` is
 * set, by a Standard Webhooks signature over the raw body. A request that
 * sends an `Authorization` header is judged by it alone. Write routes get
 * the body read once, within the body limit, as `c.var.rawBody`. Read
 * routes (no `acceptSignature`) also accept a console session cookie, so the
 * console's browser code reads with the person's session; writes never do
 * (the console's own routes decide as the signed-in reviewer, CSRF checked).
 * A session an inbox link signed in reads only where `inboxSessions` is set
 * (what the inbox shows), else 403 `inbox_session_not_allowed`.
 *
 * @example
 * app.post('/runs', authenticate(settings, { acceptSignature: true }), (c) => c.json({ raw: c.var.rawBody }));
 */
export function authenticate(
  settings: AuthSettings,
  options: {
    readonly acceptSignature: boolean;
    readonly readBody: boolean;
    /** A read of what an inbox shows (the pending approvals), so a session an inbox link signed in may make it too. */
    readonly inboxSessions?: boolean;
  },
) {
  return createMiddleware<AppEnv>(async function authenticateRequest(c, next) {
    const authorization = c.req.header('authorization');
    const signature = c.req.header('webhook-signature');
    // Reads accept the console's session cookie; writes never do (the console decides through its own routes).
    const session = options.acceptSignature || options.readBody ? undefined : settings.sessions?.read(c);
    if (settings.insecure) {
      // With no credential, only a JSON content type keeps other web pages out: it forces a CORS preflight this app never grants.
      if (options.readBody && !/^application\/json\s*(;|$)/i.test(c.req.header('content-type') ?? '')) {
        throw new HttpProblem(
          problem(
            415,
            'unsupported_media_type',
            'Without authentication configured, writes must be sent as content-type: application/json.',
          ),
        );
      }
      c.set('caller', { kind: 'insecure' });
    } else if (authorization !== undefined) {
      const match = /^Bearer +([\x21-\x7e]+) *$/i.exec(authorization);
      const presented = match?.[1];
      const person = presented === undefined ? undefined : await settings.personTokens?.verify(presented);
      if (person !== undefined) {
        c.set('caller', { kind: 'person', person: person.person, tokenId: person.id });
      } else if (
        presented === undefined ||
        settings.bearerTokens.length === 0 ||
        !bearerMatches(presented, settings.bearerTokens)
      ) {
        throw unauthorized('The bearer token is missing, malformed or wrong (or a personal token revoked or expired).');
      } else {
        c.set('caller', { kind: 'bearer' });
      }
    } else if (options.acceptSignature && settings.webhookSecrets.length > 0 && signature !== undefined) {
      const id = c.req.header('webhook-id');
      if (id === undefined || !WEBHOOK_ID.test(id)) {
        throw unauthorized(
          'The webhook-id header is missing or not 1 to 256 visible ASCII characters.',
          { reason: 'missing_headers' },
          'invalid_webhook_signature',
        );
      }
      const headers = { id, timestamp: c.req.header('webhook-timestamp'), signature };
      const nowSeconds = Math.floor(settings.clock() / 1000);
      // Headers first: a stale or malformed delivery is refused without waiting for its body.
      const early = checkWebhookHeaders(headers, nowSeconds, settings.toleranceSeconds);
      const raw = early === undefined ? await readRawBody(c.req.raw, settings.maxBodyBytes) : '';
      const rejection =
        early ?? verifyWebhook(settings.webhookSecrets, headers, raw, nowSeconds, settings.toleranceSeconds);
      if (rejection !== undefined) {
        const why = {
          missing_headers: 'webhook-id, webhook-timestamp and webhook-signature are all required',
          bad_timestamp: 'webhook-timestamp must be whole seconds since the epoch',
          stale_timestamp: `webhook-timestamp is more than ${settings.toleranceSeconds} s away from the server clock`,
          bad_signature: 'no v1 signature matches the raw body',
        }[rejection];
        throw unauthorized(
          `The webhook signature was refused: ${why}.`,
          { reason: rejection },
          'invalid_webhook_signature',
        );
      }
      c.set('rawBody', raw);
      c.set('caller', { kind: 'webhook', webhookId: id });
    } else if (session !== undefined) {
      if (session.via === 'inbox' && options.inboxSessions !== true) throw inboxSessionNotAllowed('this route');
      c.set('caller', { kind: 'console', reviewer: session.reviewer, via: session.via });
    } else {
      throw unauthorized(
        options.acceptSignature && settings.webhookSecrets.length > 0
          ? 'Send Authorization: Bearer <token>, or sign the request the Standard Webhooks way (webhook-id, webhook-timestamp, webhook-signature).'
          : 'Send Authorization: Bearer <token>.',
      );
    }
    if (options.readBody && c.get('rawBody') === undefined)
      c.set('rawBody', await readRawBody(c.req.raw, settings.maxBodyBytes));
    await next();
  });
}
