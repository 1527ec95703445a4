import { ApprovalSignatureError } from '../errors.js';
import { canonicalJson, digestOf, hmac, safeEqual } from './digest.js';
import type { AgentSnapshot, AuditEntry, ToolCall, ToolCallRecord } from './types.js';
import { currentToolCalls } from './current-tool-calls.js';
import { type RunIdentity, signedIdentity } from './run-identity.js';

/** Marks signatures of the v2 format; a v1 signature is a bare MAC. */
export const SIGNATURE_V2 = 'v2.';

/** v1 covered the call and the verdict only: not the scope, source or who decided. */
function legacyDecisionMac(secret: string, runId: string, entry: AuditEntry): string {
  return hmac(secret, ['countersign.decision.v1', runId, entry.approvalId ?? '', entry.toolCallId, entry.toolName, entry.decision, entry.argsDigest, entry.editedArgsDigest ?? '']);
}

/** v2 covers every field of the entry (scope, source, by, rule, reason, ...), so none can be changed in storage to widen what runs. */
function decisionMac(secret: string, run: RunIdentity, entry: AuditEntry): string {
  const { signature: _signature, ...fields } = entry;
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
  if (signature.startsWith(SIGNATURE_V2)) return safeEqual(signature, decisionMac(secret, run, entry)) ? 'v2' : undefined;
  return safeEqual(signature, legacyDecisionMac(secret, run.runId, entry)) ? 'v1' : undefined;
}

/** Where a turn's decisions and calls are found: built once per turn, so checking each of a thousand calls does not rescan the run. */
export interface TurnLookup {
  /** The first decision recorded for each approval id. */
  readonly byApproval: ReadonlyMap<string, AuditEntry>;
  /** The last automatic decision (no approval id) for each call id. */
  readonly automatic: ReadonlyMap<string, AuditEntry>;
  /** The first call of the current turn with each id. */
  readonly calls: ReadonlyMap<string, ToolCall>;
}

/** The lookup `verifyApprovedCall` reads a snapshot through. */
export function turnLookup(snapshot: AgentSnapshot): TurnLookup {
  const byApproval = new Map<string, AuditEntry>();
  const automatic = new Map<string, AuditEntry>();
  for (const entry of snapshot.audit) {
    if (entry.approvalId === undefined) automatic.set(entry.toolCallId, entry);
    else if (!byApproval.has(entry.approvalId)) byApproval.set(entry.approvalId, entry);
  }
  const calls = new Map<string, ToolCall>();
  for (const call of currentToolCalls(snapshot)) if (!calls.has(call.id)) calls.set(call.id, call);
  return { byApproval, automatic, calls };
}

/** The decision a record runs on: the one recorded for its own approval, or the automatic one for its call. */
function decisionFor(lookup: TurnLookup, record: ToolCallRecord): AuditEntry | undefined {
  return record.approvalId === undefined ? lookup.automatic.get(record.toolCallId) : lookup.byApproval.get(record.approvalId);
}

/**
 * Before an approved call runs: the decision recorded for its own approval id
 * must approve this call and be signed, and the arguments about to run must
 * be the ones approved (the model's, or the approved edit). Throws
 * `ApprovalSignatureError`; nothing runs. Pass one `turnLookup` when checking
 * every call of a turn.
 */
export function verifyApprovedCall(secret: string | undefined, snapshot: AgentSnapshot, record: ToolCallRecord, lookup: TurnLookup = turnLookup(snapshot)): void {
  if (secret === undefined) return;
  const entry = decisionFor(lookup, record);
  const label = record.approvalId ?? record.toolCallId;
  // A v1 signature still covers the call, tool, verdict and arguments: enough to run the call it names, never to widen memory.
  const approvesThisCall =
    entry !== undefined &&
    entry.decision === 'approved' &&
    entry.toolCallId === record.toolCallId &&
    entry.toolName === record.toolName &&
    decisionSignatureOf(secret, snapshot, entry) !== undefined;
  if (!approvesThisCall) {
    throw new ApprovalSignatureError(label, `call ${record.toolCallId} has no validly signed approval; the snapshot was altered. Nothing was run.`);
  }
  const call = lookup.calls.get(record.toolCallId);
  const argsMatch = call !== undefined && call.name === entry.toolName && digestOf(call.args) === entry.argsDigest;
  const editMatch = record.editedArgs === undefined ? entry.editedArgsDigest === undefined : digestOf(record.editedArgs) === entry.editedArgsDigest;
  if (!argsMatch || !editMatch) {
    throw new ApprovalSignatureError(label, `the arguments of call ${record.toolCallId} are not the ones approved; the snapshot was altered. Nothing was run.`);
  }
}
