import { z } from 'zod';
import { optionsObject, parseOptions } from '../options.js';
import {
  mintInboxToken,
  mintLinkTokens,
  readInboxToken,
  readLinkToken,
  type ApprovalLinkTokens,
  type InboxClaim,
  type LinkClaim,
  type LinkTarget,
} from './approval-links.js';

/**
 * Mints and verifies one-click tokens: typed claims in, opaque strings out,
 * never URLs (the app that serves the links owns its routes). Tokens are
 * sealed with AES-256-GCM, so what they carry (run, approval, recipient) is
 * unreadable without the secret.
 *
 * @example
 * const links = createApprovalLinks({ secret: process.env.LINK_SECRET! });
 * const { approve } = links.mint({ runId, approvalId, expiresAt: Date.now() + 3_600_000 }); // every token: no decisions given
 * links.verify(approve!); // { runId, approvalId, decision: 'approve', expiresAt }
 */
export interface ApprovalLinkService {
  /** The approve, approve-for-the-run and deny tokens of one approval, each only when `target.decisions` offer it. */
  mint(target: LinkTarget): ApprovalLinkTokens;
  /** What a link token grants; throws `LinkTokenError` (`malformed`, `bad_signature`, `expired`). */
  verify(token: string): LinkClaim;
  /** A reviewer's inbox token. */
  mintInbox(claim: InboxClaim): string;
  /** What an inbox token grants; throws `LinkTokenError`. */
  verifyInbox(token: string): InboxClaim;
}

/**
 * Options of `createApprovalLinks`, and of `createRuntime({ links })`.
 *
 * @example
 * const options: ApprovalLinkOptions = { secret: process.env.LINK_SECRET!, expiresInMs: 3_600_000 };
 */
export interface ApprovalLinkOptions {
  /** 16+ random characters (32+ recommended), the same in every process that mints or spends tokens. */
  readonly secret: string;
  /** How long a minted link works unless asked otherwise (never past its approval's expiry). Default 24 h. */
  readonly expiresInMs?: number;
  /** Epoch milliseconds, for expiry checks. Default `Date.now`. */
  readonly clock?: () => number;
}

export const linkOptionsSchema = optionsObject({
  secret: z.string().min(16, 'use at least 16 characters of randomness'),
  expiresInMs: z.number().int().positive().optional(),
  clock: z.custom<() => number>((value) => typeof value === 'function', 'must be a function').optional(),
});

/**
 * The approval-links service: mint and verify tokens with one secret.
 *
 * @example
 * const links = createApprovalLinks({ secret: process.env.LINK_SECRET! });
 * const tokens = links.mint({ runId, approvalId, expiresAt: Date.now() + 600_000, approvedBy: 'alice@example.com' });
 */
export function createApprovalLinks(options: ApprovalLinkOptions): ApprovalLinkService {
  parseOptions(linkOptionsSchema, options, 'createApprovalLinks');
  const { secret } = options;
  const clock = options.clock ?? Date.now;
  return {
    mint: (target) => mintLinkTokens(secret, target),
    verify: (token) => readLinkToken(secret, token, clock()),
    mintInbox: (claim) => mintInboxToken(secret, claim),
    verifyInbox: (token) => readInboxToken(secret, token, clock()),
  };
}
