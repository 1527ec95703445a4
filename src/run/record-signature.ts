// How a stored record of one kind (a grant, a grant's use, a stored rule) is signed: an HMAC under the kind's own
// domain over its fields, so a signature passes only for the record it was made for, and for no other kind.
import { canonicalJson, hmac, safeEqual } from './digest.js';

/** A record's fields without its signature. */
export function withoutSignature<T extends { readonly signature?: string }>(record: T): Omit<T, 'signature'> {
  const { signature: _signature, ...fields } = record;
  return fields;
}

/** Signs and checks records of one kind: `fieldsOf` picks what the signature covers (every field but the signature unless told). */
export function recordSignature<T extends { readonly signature?: string }>(
  domain: string,
  fieldsOf: (record: T) => object = withoutSignature,
) {
  const mac = (secret: string, record: T): string => `v1.${hmac(secret, [domain, canonicalJson(fieldsOf(record))])}`;
  return {
    /** The record with its signature, when there is a secret; as it is otherwise. */
    sign(secret: string | undefined, record: T): T {
      return secret === undefined ? record : { ...record, signature: mac(secret, record) };
    },
    /** True when the record is signed with `secret` as it stands. */
    holds(secret: string, record: T): boolean {
      return typeof record.signature === 'string' && safeEqual(record.signature, mac(secret, record));
    },
  };
}
