// What makes a create (`POST /runs`, `POST /approvals`) idempotent when its body names nothing that does: the
// Idempotency-Key header, else a signed delivery's webhook-id. A retry (after a 503 whose write landed, or a lost
// answer) then gets what its first attempt made.
import { createHash } from 'node:crypto';
import type { Context } from 'hono';
import { HttpProblem, idempotencyKeySchema, problem } from '../kit/index.js';
import type { AppEnv } from './app-env.js';

/** The key of a create: from its `Idempotency-Key` header as sent, or a digest of a signed delivery's `webhook-id`. */
export interface CreateKey {
  readonly from: 'header' | 'delivery';
  readonly key: string;
}

/**
 * The key of a create whose body may name its own (`named.field`, sent or not): the `Idempotency-Key` header (1 to
 * 256 characters, never together with the body's field: else 400 `invalid_idempotency_key`, and `nothing` says what
 * was not done), else a signed delivery's `webhook-id`, else none.
 */
export function createKeyOf(
  c: Context<AppEnv>,
  named: { readonly field: string; readonly sent: boolean },
  nothing: string,
): CreateKey | undefined {
  const header = c.req.header('idempotency-key');
  if (header !== undefined && (named.sent || !idempotencyKeySchema.safeParse(header).success)) {
    throw new HttpProblem(
      problem(
        400,
        'invalid_idempotency_key',
        named.sent
          ? `Send a ${named.field} in the body or an Idempotency-Key header, not both: either one makes the write idempotent. ${nothing}`
          : `The Idempotency-Key header must be 1 to 256 characters. ${nothing}`,
      ),
    );
  }
  if (named.sent) return undefined;
  if (header !== undefined) return { from: 'header', key: header };
  const caller = c.var.caller;
  if (caller.kind !== 'webhook') return undefined;
  return { from: 'delivery', key: createHash('sha256').update(caller.webhookId).digest('base64url').slice(0, 32) };
}
