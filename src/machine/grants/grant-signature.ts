import { canonicalJson, hmac, safeEqual } from '../digest.js';
import type { Grant } from '../../ports/grant-store.js';

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
