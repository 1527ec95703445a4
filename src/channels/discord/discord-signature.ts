// Discord signs every interaction with the application's Ed25519 key: X-Signature-Ed25519 over
// X-Signature-Timestamp followed by the raw body. node:crypto verifies it; the public key is given as 32 raw bytes
// in hex, which DER SubjectPublicKeyInfo wraps with a fixed prefix.
import { createPublicKey, verify, type KeyObject } from 'node:crypto';

const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** An Ed25519 public key from its 64 hex characters; throws for anything else. */
export function ed25519PublicKey(hex: string): KeyObject {
  if (!/^[0-9a-f]{64}$/i.test(hex)) throw new TypeError('an Ed25519 public key is 64 hex characters');
  return createPublicKey({
    key: Buffer.concat([ED25519_SPKI_PREFIX, Buffer.from(hex, 'hex')]),
    format: 'der',
    type: 'spki',
  });
}

/** True when `signatureHex` (128 hex characters) is `key`'s Ed25519 signature of `message`. */
export function verifyEd25519(key: KeyObject, message: Uint8Array, signatureHex: string): boolean {
  if (!/^[0-9a-f]{128}$/i.test(signatureHex)) return false;
  return verify(null, message, key, Buffer.from(signatureHex, 'hex'));
}
