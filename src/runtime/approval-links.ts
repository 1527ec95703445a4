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

/** What a token is for is part of what is signed, so an inbox token never passes as a decision link, nor the reverse. */
type Purpose = 'countersign.link.v1' | 'countersign.inbox.v1';

function sign(secret: string, purpose: Purpose, payload: string): string {
  return hmac(secret, [purpose, payload]);
}

function mint(secret: string, purpose: Purpose, claim: object): string {
  const payload = Buffer.from(JSON.stringify(claim)).toString('base64url');
  return `${payload}.${sign(secret, purpose, payload)}`;
}

/** Verifies a token's signature and reads its payload with `schema`; throws `LinkTokenError`. */
function open<T extends { e: number }>(secret: string, purpose: Purpose, schema: z.ZodType<T>, token: string, now: number): T {
  const [payload, signature, extra] = token.split('.');
  if (!payload || !signature || extra !== undefined) throw new LinkTokenError('malformed');
  if (!safeEqual(signature, sign(secret, purpose, payload))) throw new LinkTokenError('bad_signature');
  let parsed: T;
  try {
    parsed = schema.parse(JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')));
  } catch {
    throw new LinkTokenError('malformed');
  }
  if (parsed.e <= now) throw new LinkTokenError('expired');
  return parsed;
}

/** A token binding run, approval, decision and expiry with HMAC-SHA256. */
export function mintLinkToken(secret: string, claim: LinkClaim): string {
  return mint(secret, 'countersign.link.v1', { r: claim.runId, a: claim.approvalId, d: claim.decision, e: claim.expiresAt, b: claim.approvedBy });
}

/** Checks a token's signature and expiry and returns what it grants; throws `LinkTokenError`. */
export function readLinkToken(secret: string, token: string, now: number): LinkClaim {
  const parsed = open(secret, 'countersign.link.v1', claimSchema, token, now);
  return { runId: parsed.r, approvalId: parsed.a, decision: parsed.d, expiresAt: parsed.e, ...(parsed.b === undefined ? {} : { approvedBy: parsed.b }) };
}

/** What a reviewer's inbox token grants: seeing the pending approvals and deciding them as `reviewer`, until a time. */
export interface InboxClaim {
  readonly reviewer: string;
  readonly expiresAt: number;
}

const inboxSchema = z.object({ w: z.string().min(1), e: z.number() });

/** A token binding a reviewer and an expiry with HMAC-SHA256, for `GET /inbox/<token>`. */
export function mintInboxToken(secret: string, claim: InboxClaim): string {
  return mint(secret, 'countersign.inbox.v1', { w: claim.reviewer, e: claim.expiresAt });
}

/** Checks an inbox token's signature and expiry; throws `LinkTokenError`. */
export function readInboxToken(secret: string, token: string, now: number): InboxClaim {
  const parsed = open(secret, 'countersign.inbox.v1', inboxSchema, token, now);
  return { reviewer: parsed.w, expiresAt: parsed.e };
}

/** Approve and deny URLs (`${baseUrl}/links/<token>`) for one approval. */
export function approvalLinkUrls(baseUrl: string, secret: string, target: Omit<LinkClaim, 'decision'>): ApprovalLinks {
  const base = baseUrl.replace(/\/+$/, '');
  const url = (decision: LinkClaim['decision']) => `${base}/links/${mintLinkToken(secret, { ...target, decision })}`;
  return { approve: url('approve'), deny: url('deny'), expiresAt: target.expiresAt };
}
