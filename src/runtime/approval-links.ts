import { z } from 'zod';
import { LinkTokenError } from '../errors.js';
import { hmac, safeEqual } from '../machine/digest.js';

/** What a one-click link token grants: one decision on one approval, until a time. */
export interface LinkClaim {
  readonly runId: string;
  readonly approvalId: string;
  readonly decision: 'approve' | 'deny';
  readonly expiresAt: number;
  /** Who the link was sent to; recorded as `approvedBy` when it is used. */
  readonly approvedBy?: string;
}

export interface ApprovalLinks {
  readonly approve: string;
  readonly deny: string;
  readonly expiresAt: number;
}

const claimSchema = z.object({ r: z.string(), a: z.string(), d: z.enum(['approve', 'deny']), e: z.number(), b: z.string().optional() });

function sign(secret: string, payload: string): string {
  return hmac(secret, ['countersign.link.v1', payload]);
}

/** A token binding run, approval, decision and expiry with HMAC-SHA256. */
export function mintLinkToken(secret: string, claim: LinkClaim): string {
  const payload = Buffer.from(JSON.stringify({ r: claim.runId, a: claim.approvalId, d: claim.decision, e: claim.expiresAt, b: claim.approvedBy })).toString('base64url');
  return `${payload}.${sign(secret, payload)}`;
}

/** Checks a token's signature and expiry and returns what it grants; throws `LinkTokenError`. */
export function readLinkToken(secret: string, token: string, now: number): LinkClaim {
  const [payload, signature, extra] = token.split('.');
  if (!payload || !signature || extra !== undefined) throw new LinkTokenError('malformed');
  if (!safeEqual(signature, sign(secret, payload))) throw new LinkTokenError('bad_signature');
  let parsed: z.infer<typeof claimSchema>;
  try {
    parsed = claimSchema.parse(JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')));
  } catch {
    throw new LinkTokenError('malformed');
  }
  if (parsed.e <= now) throw new LinkTokenError('expired');
  return { runId: parsed.r, approvalId: parsed.a, decision: parsed.d, expiresAt: parsed.e, ...(parsed.b === undefined ? {} : { approvedBy: parsed.b }) };
}

/** Approve and deny URLs (`${baseUrl}/links/<token>`) for one approval. */
export function approvalLinkUrls(baseUrl: string, secret: string, target: Omit<LinkClaim, 'decision'>): ApprovalLinks {
  const base = baseUrl.replace(/\/+$/, '');
  const url = (decision: LinkClaim['decision']) => `${base}/links/${mintLinkToken(secret, { ...target, decision })}`;
  return { approve: url('approve'), deny: url('deny'), expiresAt: target.expiresAt };
}
