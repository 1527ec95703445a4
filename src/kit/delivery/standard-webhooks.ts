import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The headers of a Standard Webhooks delivery.
 *
 * @example
 * const headers: WebhookHeaders = signWebhook(secret, 'msg_1', Math.floor(Date.now() / 1000), body);
 */
export interface WebhookHeaders {
  readonly 'webhook-id': string;
  readonly 'webhook-timestamp': string;
  readonly 'webhook-signature': string;
}

/**
 * Why a delivery's signature was refused.
 *
 * @example
 * const rejection: WebhookRejection | undefined = verifyWebhook([secret], { id, timestamp, signature }, body, Math.floor(Date.now() / 1000));
 */
export type WebhookRejection = 'missing_headers' | 'bad_timestamp' | 'stale_timestamp' | 'bad_signature';

const SECRET_PREFIX = 'whsec_';

/** The HMAC key of a `whsec_` secret (base64 after the prefix); other strings are used as raw UTF-8. */
export function webhookKey(secret: string): Buffer {
  return secret.startsWith(SECRET_PREFIX)
    ? Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64')
    : Buffer.from(secret, 'utf8');
}

/**
 * `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, as Standard Webhooks defines it.
 *
 * @example
 * const signature = webhookSignature('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_1', 1_700_000_000, '{"decision":"approve"}');
 */
export function webhookSignature(secret: string, id: string, timestamp: number | string, body: string): string {
  return `v1,${createHmac('sha256', webhookKey(secret)).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/**
 * Headers that sign `body` for a receiver holding `secret`.
 *
 * @example
 * const headers = signWebhook('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_1', Math.floor(Date.now() / 1000), body);
 * await fetch(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body });
 */
export function signWebhook(secret: string, id: string, timestampSeconds: number, body: string): WebhookHeaders {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': webhookSignature(secret, id, timestampSeconds, body),
  };
}

interface WebhookHeaderValues {
  readonly id: string;
  readonly timestamp: string;
  readonly signature: string;
}

/**
 * The checks of a delivery that need no body: all three headers present, the
 * timestamp whole seconds within `toleranceSeconds` of `nowSeconds`. Run
 * before reading the body, so a stale or malformed delivery costs no read.
 * Returns `undefined` when they pass.
 *
 * @example
 * const early = checkWebhookHeaders({ id, timestamp, signature }, Math.floor(Date.now() / 1000), 300);
 * if (early) return new Response(early, { status: 401 });
 */
export function checkWebhookHeaders(
  headers: {
    readonly id: string | undefined;
    readonly timestamp: string | undefined;
    readonly signature: string | undefined;
  },
  nowSeconds: number,
  toleranceSeconds = 300,
): WebhookRejection | undefined {
  const { id, timestamp, signature } = headers;
  if (!id || !timestamp || !signature) return 'missing_headers';
  if (!/^\d{1,15}$/.test(timestamp)) return 'bad_timestamp';
  if (Math.abs(nowSeconds - Number(timestamp)) > toleranceSeconds) return 'stale_timestamp';
  return undefined;
}

/**
 * Checks a delivery against one or more secrets (several while keys rotate):
 * the timestamp must be within `toleranceSeconds` of `nowSeconds` in either
 * direction, and one `v1,` entry of the signature header must match one
 * secret, compared in constant time. Returns `undefined` when it verifies.
 *
 * @example
 * const headers = { id: req.header('webhook-id'), timestamp: req.header('webhook-timestamp'), signature: req.header('webhook-signature') };
 * const rejection = verifyWebhook([process.env.WEBHOOK_SECRET!], headers, await req.text(), Math.floor(Date.now() / 1000));
 * if (rejection) return new Response(rejection, { status: 401 });
 */
export function verifyWebhook(
  secrets: readonly string[],
  headers: {
    readonly id: string | undefined;
    readonly timestamp: string | undefined;
    readonly signature: string | undefined;
  },
  body: string,
  nowSeconds: number,
  toleranceSeconds = 300,
): WebhookRejection | undefined {
  const early = checkWebhookHeaders(headers, nowSeconds, toleranceSeconds);
  if (early !== undefined) return early;
  const { id, timestamp, signature } = headers as WebhookHeaderValues;
  const offered = signature
    .split(' ')
    .filter((entry) => entry.startsWith('v1,'))
    .map((entry) => Buffer.from(entry.slice(3), 'base64'));
  for (const secret of secrets) {
    const expected = createHmac('sha256', webhookKey(secret)).update(`${id}.${timestamp}.${body}`).digest();
    if (offered.some((candidate) => candidate.length === expected.length && timingSafeEqual(candidate, expected)))
      return undefined;
  }
  return 'bad_signature';
}
