import type { Grant, GrantUse } from '../../ports/grant-store.js';
import { recordSignature } from '../../run/record-signature.js';

/** Domain-separated from decisions and requests, so no other signature can pass for a grant's. */
const grants = recordSignature<Grant>('countersign.grant.v1');

/** What a use receipt's signature covers. */
const useFields = (use: GrantUse): GrantUse => ({ grantId: use.grantId, useKey: use.useKey, at: use.at });

/** Domain-separated from grants, decisions and requests: a use receipt passes for nothing else. */
const uses = recordSignature<GrantUse>('countersign.grant-use.v1', useFields);

/** The grant with its signature over every field, when there is a secret. */
export function signGrant(secret: string | undefined, grant: Grant): Grant {
  return grants.sign(secret, grant);
}

/** True when `grant` (a store's listing: its `used` count is left out) is signed with `secret` as it stands. */
export function grantSignatureHolds(secret: string, grant: Grant & { readonly used?: number }): boolean {
  const { used: _used, ...fields } = grant;
  return grants.holds(secret, fields);
}

/** The use of a grant by one call (`useKey` = `${runId}:${toolCallId}`), signed when there is a secret. */
export function signUse(secret: string | undefined, use: GrantUse): GrantUse {
  return uses.sign(secret, useFields(use));
}

/**
 * True when `use` is a receipt signed with `secret` for `grantId` and `useKey`: the check a gate makes before a
 * grant-decided call runs.
 */
export function useSignatureHolds(secret: string, use: GrantUse, grantId: string, useKey: string): boolean {
  return use.grantId === grantId && use.useKey === useKey && uses.holds(secret, use);
}

/** The key one call spends a grant's use under: its idempotency key. */
export function useKeyOf(runId: string, toolCallId: string): string {
  return `${runId}:${toolCallId}`;
}
