// What a decision receipt signs, shared by the runtime that signs and the verifier that checks: one definition, so
// the two can never drift apart.
import { createHash } from 'node:crypto';
import { canonicalJson } from '../../run/digest.js';
import type { AuditEntry } from '../../run/types.js';

/** The part of a run a receipt binds: a receipt signed for one run (or agent, or session) fails for another. */
export interface ReceiptRun {
  readonly runId: string;
  readonly agentName: string;
  readonly sessionId?: string | undefined;
}

/** Marks the format of the signed bytes; a later format gets a new tag. */
const RECEIPT_FORMAT = 'countersign.receipt.v1';

/**
 * The bytes an entry's receipt signs: the run, the entry's position, the link to the entry before it, the key id,
 * and every field of the entry but the receipt (its HMAC `signature` included).
 */
export function receiptPayload(
  run: ReceiptRun,
  index: number,
  previous: string,
  keyId: string,
  entry: AuditEntry,
): Buffer {
  const { receipt: _receipt, ...fields } = entry;
  const identity = {
    runId: run.runId,
    agentName: run.agentName,
    ...(run.sessionId === undefined ? {} : { sessionId: run.sessionId }),
  };
  return Buffer.from(canonicalJson({ format: RECEIPT_FORMAT, run: identity, index, previous, keyId, entry: fields }));
}

/** The link an entry carries to the one before it: SHA-256 (base64url) of that entry's receipt signature; '' for the first. */
export function chainLink(before: AuditEntry | undefined): string {
  const signature = before?.receipt?.signature;
  if (before === undefined) return '';
  return signature === undefined ? 'unsigned' : createHash('sha256').update(signature).digest('base64url');
}
