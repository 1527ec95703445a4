import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { LinkTokenError } from '../errors.js';
import { offers, widerScopeOf } from '../run/decision-kinds.js';
import type { DecisionKind } from '../run/types.js';

/** What a one-click link token grants: one decision on one approval, until a time. */
export interface LinkClaim {
  readonly runId: string;
  readonly approvalId: string;
  readonly decision: 'approve' | 'deny';
  /**
   * `'run'`: the approval also covers later calls of this tool in the run; `'session'`: in every run of the run's
   * session, as an unbounded session grant (`ApprovalResponse.scope`).
   */
  readonly scope?: 'run' | 'session';
  readonly expiresAt: number;
  /** Who the link was sent to; recorded as `approvedBy` when it is used. */
  readonly approvedBy?: string;
}

/**
 * The one-click tokens of one approval: approve once, approve for the rest of
 * the run (for this session, when the run has one: see `wider`), deny. Opaque
 * strings for a button's value or a URL's last segment (`approvalLinkUrl(baseUrl, token)`).
 * A token is minted only for a decision the request offers (`decisions`): show a button only for a token there is.
 *
 * @example
 * const tokens: ApprovalLinkTokens = await runtime.linkTokens(runId, approvalId);
 * const approveUrl = tokens.approve === undefined ? undefined : approvalLinkUrl('https://approvals.example.com', tokens.approve);
 * const label = tokens.wider === 'session' ? 'Approve for this session' : 'Approve for this run';
 */
export interface ApprovalLinkTokens {
  /** Approves this call once; absent when the request does not offer `'approve'`. */
  readonly approve?: string;
  /** Approves for the rest of the run, or for this session (`wider`); absent when the request offers neither scope. */
  readonly approveForRun?: string;
  /** Denies; absent when the request does not offer `'deny'`. */
  readonly deny?: string;
  /**
   * The scope `approveForRun` records: `'session'` for a run with a `sessionId` whose request offers it, else
   * `'run'`.
   */
  readonly wider: 'run' | 'session';
  readonly expiresAt: number;
}

/**
 * Which approval a set of tokens decides, for whom, until when; `sessionId` is the run's session, when it has one
 * (its wider token then approves for the session); `decisions` the request's, when it offers fewer than all (no token
 * is minted for another).
 */
export type LinkTarget = Omit<LinkClaim, 'decision' | 'scope'> & {
  readonly sessionId?: string;
  readonly decisions?: readonly DecisionKind[];
};

const claimSchema = z.object({
  r: z.string(),
  a: z.string(),
  d: z.enum(['approve', 'deny']),
  s: z.enum(['run', 'session']).optional(),
  e: z.number(),
  b: z.string().optional(),
});

/**
 * What a token is for is sealed with it (as associated data), so an inbox token
 * never passes as a decision link, nor the reverse. v2: sealed, not only signed.
 */
type Purpose = 'countersign.link.v2' | 'countersign.inbox.v2';

const IV_BYTES = 12;
const TAG_BYTES = 16;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** The AES-256-GCM key of `secret`: derived with HKDF, so the secret itself never keys a cipher. */
function keyOf(secret: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, '', 'countersign approval-link tokens', 32));
}

/**
 * Tokens travel in URLs, Slack buttons and logs, so what they carry (the run,
 * who the link was sent to) is encrypted, not only signed: `<iv + ciphertext>.<tag>`,
 * both base64url, AES-256-GCM.
 */
function mint(secret: string, purpose: Purpose, claim: object): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', keyOf(secret), iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(purpose));
  const sealed = Buffer.concat([iv, cipher.update(JSON.stringify(claim), 'utf8'), cipher.final()]);
  return `${sealed.toString('base64url')}.${cipher.getAuthTag().toString('base64url')}`;
}

/** Decrypts and authenticates a token, reads its claim with `schema` and checks its expiry; throws `LinkTokenError`. */
function open<T extends { e: number }>(
  secret: string,
  purpose: Purpose,
  schema: z.ZodType<T>,
  token: string,
  now: number,
): T {
  const [body, tag, extra] = token.split('.');
  if (!body || !tag || extra !== undefined || !BASE64URL.test(body) || !BASE64URL.test(tag))
    throw new LinkTokenError('malformed');
  const sealed = Buffer.from(body, 'base64url');
  const tagBytes = Buffer.from(tag, 'base64url');
  if (sealed.length <= IV_BYTES || tagBytes.length !== TAG_BYTES) throw new LinkTokenError('malformed');
  // Another spelling of the same bytes is another token string: refused, so each token has one form (and one spent-marker).
  if (sealed.toString('base64url') !== body || tagBytes.toString('base64url') !== tag)
    throw new LinkTokenError('bad_signature');
  let plain: string;
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyOf(secret), sealed.subarray(0, IV_BYTES), {
      authTagLength: TAG_BYTES,
    });
    decipher.setAAD(Buffer.from(purpose));
    decipher.setAuthTag(tagBytes);
    plain = Buffer.concat([decipher.update(sealed.subarray(IV_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    throw new LinkTokenError('bad_signature');
  }
  let parsed: T;
  try {
    parsed = schema.parse(JSON.parse(plain));
  } catch {
    throw new LinkTokenError('malformed');
  }
  if (parsed.e <= now) throw new LinkTokenError('expired');
  return parsed;
}

/**
 * An opaque token sealing run, approval, decision, scope, expiry and recipient with AES-256-GCM.
 * @internal users mint tokens with `createApprovalLinks(...).mint` or `runtime.linkTokens`.
 */
export function mintLinkToken(secret: string, claim: LinkClaim): string {
  return mint(secret, 'countersign.link.v2', {
    r: claim.runId,
    a: claim.approvalId,
    d: claim.decision,
    s: claim.scope,
    e: claim.expiresAt,
    b: claim.approvedBy,
  });
}

/**
 * Opens a token, checks its integrity and expiry, and returns what it grants; throws `LinkTokenError`.
 * @internal users verify tokens with `createApprovalLinks(...).verify` or `runtime.inspectLink`.
 */
export function readLinkToken(secret: string, token: string, now: number): LinkClaim {
  const parsed = open(secret, 'countersign.link.v2', claimSchema, token, now);
  return {
    runId: parsed.r,
    approvalId: parsed.a,
    decision: parsed.d,
    ...(parsed.s === undefined ? {} : { scope: parsed.s }),
    expiresAt: parsed.e,
    ...(parsed.b === undefined ? {} : { approvedBy: parsed.b }),
  };
}

/**
 * The tokens of one approval (approve, approve for the run or, with a session, for the session, deny), each only when
 * the target's `decisions` offer it.
 * @internal through `createApprovalLinks(...).mint`.
 */
export function mintLinkTokens(secret: string, target: LinkTarget): ApprovalLinkTokens {
  const { sessionId, decisions, ...claim } = target;
  const scope = widerScopeOf(decisions, sessionId);
  return {
    ...(offers(decisions, 'approve') ? { approve: mintLinkToken(secret, { ...claim, decision: 'approve' }) } : {}),
    ...(scope === undefined ? {} : { approveForRun: mintLinkToken(secret, { ...claim, decision: 'approve', scope }) }),
    ...(offers(decisions, 'deny') ? { deny: mintLinkToken(secret, { ...claim, decision: 'deny' }) } : {}),
    wider: scope ?? (sessionId === undefined ? 'run' : 'session'),
    expiresAt: target.expiresAt,
  };
}
/** What a reviewer's inbox token grants: seeing the pending approvals and deciding them as `reviewer`, until a time. */
export interface InboxClaim {
  readonly reviewer: string;
  readonly expiresAt: number;
}

const inboxSchema = z.object({ w: z.string().min(1), e: z.number() });

/**
 * An opaque token sealing a reviewer and an expiry, for `GET /inbox/<token>`.
 * @internal through `createApprovalLinks(...).mintInbox` or `runtime.inboxToken`.
 */
export function mintInboxToken(secret: string, claim: InboxClaim): string {
  return mint(secret, 'countersign.inbox.v2', { w: claim.reviewer, e: claim.expiresAt });
}

/**
 * Opens an inbox token and checks its integrity and expiry; throws `LinkTokenError`.
 * @internal through `createApprovalLinks(...).verifyInbox`.
 */
export function readInboxToken(secret: string, token: string, now: number): InboxClaim {
  const parsed = open(secret, 'countersign.inbox.v2', inboxSchema, token, now);
  return { reviewer: parsed.w, expiresAt: parsed.e };
}
