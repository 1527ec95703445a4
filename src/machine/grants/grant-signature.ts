import { canonicalJson, hmac, safeEqual } from '../digest.js';
import type { Grant, GrantUse } from '../../ports/grant-store.js';

/** Domain-separated from decisions and requests, so no other signature can pass for a grant's. */
function grantMac(secret: string, grant: Grant): string {
  const { signature: _signature, ...fields } = grant;
  return `v1.${hmac(secret, ['countersign.grant.v1', canonicalJson(fields)])}`;
}

/** The grant with its signature over every field, when there is a secret. */
export function signGrant(secret: string | undefined, grant: Grant): Grant {
  return secret === undefined ? grant : { ...grant, signature: grantMac(secret, grant) };
}

/** True when `grant` (a store's listing: its `used` count is left out) is signed with `secret` as it stands. */
export function grantSignatureHolds(secret: string, grant: Grant & { readonly used?: number }): boolean {
  const { used: _used, ...fields } = grant;
  return fields.signature !== undefined && safeEqual(fields.signature, grantMac(secret, fields));
}

/** Domain-separated from grants, decisions and requests: a use receipt passes for nothing else. */
function useMac(secret: string, use: GrantUse): string {
  return `v1.${hmac(secret, ['countersign.grant-use.v1', canonicalJson({ grantId: use.grantId, useKey: use.useKey, at: use.at })])}`;
}

/** The use of a grant by one call (`useKey` = `${runId}:${toolCallId}`), signed when there is a secret. */
export function signUse(secret: string | undefined, use: GrantUse): GrantUse {
  const fields = { grantId: use.grantId, useKey: use.useKey, at: use.at };
  return secret === undefined ? fields : { ...fields, signature: useMac(secret, fields) };
}

/**
 * True when `use` is a receipt signed with `secret` for `grantId` and `useKey`: the check a gate makes before a
 * grant-decided call runs.
 */
export function useSignatureHolds(secret: string, use: GrantUse, grantId: string, useKey: string): boolean {
  return use.grantId === grantId && use.useKey === useKey && use.signature !== undefined && safeEqual(use.signature, useMac(secret, use));
}

/** The key one call spends a grant's use under: its idempotency key. */
export function useKeyOf(runId: string, toolCallId: string): string {
  return `${runId}:${toolCallId}`;
}
