import type { Grant, GrantStore } from '../../ports/grant-store.js';
import { decisionSignatureOf } from '../../decisions/decision-signature.js';
import { digestOf } from '../../run/digest.js';
import type { AuditEntry } from '../../run/types.js';
import type { AgentSnapshot } from '../../run/agent-snapshot.js';
import { signGrant, signUse, useKeyOf } from './grant-signature.js';

/** A grant's id, from the run and approval it came from: writing the grant of one decision twice writes one grant. */
export function grantIdOf(runId: string, approvalId: string): string {
  return `grt_${digestOf([runId, approvalId]).slice(0, 32)}`;
}

/**
 * The grant a person's `'session'` or `'agent'` decision makes, signed with the agent's secret; undefined for any
 * other entry. With a secret only a decision validly signed in the v2 format (which binds scope and bounds) makes
 * one, so an entry altered in storage cannot mint a signed grant.
 */
export function grantOfDecision(
  snapshot: AgentSnapshot,
  entry: AuditEntry,
  secret: string | undefined,
  delegatedBy?: readonly string[],
): Grant | undefined {
  if (
    (entry.scope !== 'session' && entry.scope !== 'agent') ||
    entry.source !== 'human' ||
    entry.approvalId === undefined
  )
    return undefined;
  if (entry.scope === 'session' && snapshot.sessionId === undefined) return undefined;
  if (secret !== undefined && decisionSignatureOf(secret, snapshot, entry) !== 'v2') return undefined;
  const bounds = entry.grant ?? {};
  const grant: Grant = {
    id: grantIdOf(snapshot.runId, entry.approvalId),
    scope: entry.scope,
    agentName: snapshot.agentName,
    ...(entry.scope === 'session' ? { sessionId: snapshot.sessionId! } : {}),
    toolName: entry.toolName,
    decision: entry.decision,
    ...(entry.by === undefined ? {} : { grantedBy: entry.by }),
    grantedAt: entry.at,
    ...(bounds.ttlMs === undefined ? {} : { expiresAt: entry.at + bounds.ttlMs }),
    ...(bounds.uses === undefined ? {} : { uses: bounds.uses }),
    ...(bounds.argsMatch === undefined ? {} : { argsMatch: bounds.argsMatch }),
    approvalId: entry.approvalId,
    runId: snapshot.runId,
    ...(entry.ruleId === undefined ? {} : { ruleId: entry.ruleId }),
    ...(entry.approvers === undefined ? {} : { approvers: entry.approvers }),
    ...(delegatedBy === undefined ? {} : { delegatedBy }),
  };
  return signGrant(secret, grant);
}

/**
 * Writes the grants the decisions for `approvalIds` made (idempotent: a grant already written, or revoked since,
 * however long ago, is left as it is). The calls of the same turn the decision covered (siblings) are its first uses,
 * each recorded as a receipt under the call's key, so evaluating one of them again spends nothing more.
 */
export async function recordGrants(
  store: GrantStore,
  snapshot: AgentSnapshot,
  approvalIds: ReadonlySet<string>,
  secret: string | undefined,
  delegatedBy?: readonly string[],
): Promise<void> {
  for (const entry of snapshot.audit) {
    if (entry.approvalId === undefined || !approvalIds.has(entry.approvalId)) continue;
    const grant = grantOfDecision(snapshot, entry, secret, delegatedBy);
    if (grant === undefined) continue;
    const uses = snapshot.audit
      .filter((other) => other.grantId === grant.id)
      .map((other) =>
        signUse(secret, { grantId: grant.id, useKey: useKeyOf(snapshot.runId, other.toolCallId), at: other.at }),
      );
    await store.put(grant, uses);
  }
}
