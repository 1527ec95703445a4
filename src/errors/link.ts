// One-click approval links.
import { CountersignError } from './base.js';

/** A one-click approval link is forged, altered, expired or already used. */
export class LinkTokenError extends CountersignError {
  readonly reason: 'malformed' | 'bad_signature' | 'expired' | 'used';
  /** The run the token names; known only for a genuine token (`used`), since tokens are opaque. */
  readonly runId: string | undefined;
  readonly approvalId: string | undefined;

  constructor(reason: LinkTokenError['reason'], target?: { readonly runId: string; readonly approvalId: string }) {
    super(
      'invalid_link_token',
      {
        malformed: 'This approval link is malformed; open the link exactly as it was sent.',
        bad_signature: 'This approval link is not valid: its signature does not match.',
        expired: 'This approval link has expired; ask for a new one.',
        used: 'This approval link was already used.',
      }[reason],
    );
    this.reason = reason;
    this.runId = target?.runId;
    this.approvalId = target?.approvalId;
  }
}
