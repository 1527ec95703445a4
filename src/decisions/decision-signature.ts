import { canonicalJson, hmac, safeEqual } from '../run/digest.js';
import type { AuditEntry } from '../run/types.js';
import { type RunIdentity, signedIdentity } from '../run/run-identity.js';

/** Marks signatures of the v2 format; a v1 signature is a bare MAC. */
export const SIGNATURE_V2 = 'v2.';

/** v1 covered the call and the verdict only: not the scope, source or who decided. */
function legacyDecisionMac(secret: string, runId: string, entry: AuditEntry): string {
  return hmac(secret, [
    'countersign.decision.v1',
    runId,
    entry.approvalId ?? '',
    entry.toolCallId,
    entry.toolName,
    entry.decision,
    entry.argsDigest,
    entry.editedArgsDigest ?? '',
  ]);
}

/**
 * v2 covers every field of the entry (scope, source, by, rule, reason, ...), so none can be changed in storage to
 * widen what runs; not the receipt, which the runtime adds over the signed entry when it is stored.
 */
function decisionMac(secret: string, run: RunIdentity, entry: AuditEntry): string {
  const { signature: _signature, receipt: _receipt, ...fields } = entry;
  return `${SIGNATURE_V2}${hmac(secret, ['countersign.decision.v2', canonicalJson({ ...signedIdentity(run), entry: fields })])}`;
}

/** Adds the HMAC that binds a decision, and everything it says, to its run and session (when there is a secret). */
export function signDecision(secret: string | undefined, run: RunIdentity, entry: AuditEntry): AuditEntry {
  return secret === undefined ? entry : { ...entry, signature: decisionMac(secret, run, entry) };
}

/**
 * Which format validly signs `entry`: `'v2'`, `'v1'` (written before snapshot
 * format 2; it does not bind scope, source or who decided), or undefined.
 */
export function decisionSignatureOf(secret: string, run: RunIdentity, entry: AuditEntry): 'v2' | 'v1' | undefined {
  const signature = entry.signature;
  if (signature === undefined) return undefined;
  if (signature.startsWith(SIGNATURE_V2))
    return safeEqual(signature, decisionMac(secret, run, entry)) ? 'v2' : undefined;
  return safeEqual(signature, legacyDecisionMac(secret, run.runId, entry)) ? 'v1' : undefined;
}
