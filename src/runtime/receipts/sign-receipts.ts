// Signing happens where every write of the runtime passes (the ledger), so each decision is signed once, as stored,
// whichever operation made it: a person's answer, a rule, a grant, an expiry.
import { sign } from 'node:crypto';
import { deepFreeze } from '../../run/freeze.js';
import type { AgentSnapshot } from '../../run/agent-snapshot.js';
import type { AuditEntry } from '../../run/types.js';
import { chainLink, receiptPayload } from './receipt-payload.js';
import type { ReceiptSigner } from './receipt-keys.js';

/** Two entries equal but for their receipts (the stored one signed, an in-memory copy of the same decision not yet). */
function sameDecision(a: AuditEntry, b: AuditEntry): boolean {
  if (a === b) return true;
  const { receipt: _a, ...left } = a;
  const { receipt: _b, ...right } = b;
  return JSON.stringify(left) === JSON.stringify(right);
}

/**
 * `next` with a receipt on each decision it adds to `previous`. An entry `previous` already held keeps the receipt
 * it was stored with (a copy of the run made before that commit lacks it); none of those is signed again, so a
 * decision written into storage is never vouched for.
 */
export function withReceipts(
  signer: ReceiptSigner,
  previous: AgentSnapshot | undefined,
  next: AgentSnapshot,
): AgentSnapshot {
  const before = previous?.audit ?? [];
  if (next.audit === before) return next;
  let changed = false;
  const audit: AuditEntry[] = [];
  for (let index = 0; index < next.audit.length; index++) {
    const entry = next.audit[index]!;
    const stored = before[index];
    if (stored !== undefined) {
      const kept = entry.receipt === undefined && stored.receipt !== undefined && sameDecision(entry, stored);
      audit.push(kept ? stored : entry);
      changed ||= kept;
      continue;
    }
    const previousLink = chainLink(audit[index - 1]);
    const payload = receiptPayload(next, index, previousLink, signer.keyId, entry);
    const signature = sign(null, payload, signer.privateKey).toString('base64url');
    audit.push({ ...entry, receipt: { keyId: signer.keyId, previous: previousLink, signature } });
    changed = true;
  }
  return changed ? deepFreeze({ ...next, audit }) : next;
}
