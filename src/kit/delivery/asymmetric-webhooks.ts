// Standard Webhooks' asymmetric scheme: `v1a,<base64 Ed25519 signature of "id.timestamp.body">`, checked with a
// public key (`whpk_` then its 32 bytes in base64), so a receiver holds nothing that could sign a delivery.
import { createPublicKey, type KeyObject, sign, verify } from 'node:crypto';

const PUBLIC_PREFIX = 'whpk_';

/** Whether `key` is an Ed25519 private key: what signs `v1a` deliveries. */
export function isWebhookSigningKey(key: unknown): key is KeyObject {
  const object = key as KeyObject | undefined;
  return (
    typeof object === 'object' && object !== null && object.type === 'private' && object.asymmetricKeyType === 'ed25519'
  );
}

/**
 * `v1a,<base64 Ed25519 signature of "id.timestamp.body">`, as Standard Webhooks defines its asymmetric signature.
 *
 * @example
 * const { privateKey } = generateKeyPairSync('ed25519');
 * const signature = webhookAsymmetricSignature(privateKey, 'msg_1', 1_700_000_000, '{"type":"approval.requested"}');
 */
export function webhookAsymmetricSignature(
  privateKey: KeyObject,
  id: string,
  timestamp: number | string,
  body: string,
): string {
  return `v1a,${sign(null, Buffer.from(`${id}.${timestamp}.${body}`), privateKey).toString('base64')}`;
}

/**
 * The public key a receiver checks `v1a` signatures with, in Standard Webhooks' form: `whpk_` then the key's 32 bytes
 * in base64.
 *
 * @example
 * const { privateKey } = generateKeyPairSync('ed25519');
 * const forReceiver = webhookPublicKey(privateKey); // whpk_...
 */
export function webhookPublicKey(key: KeyObject): string {
  const { x } = createPublicKey(key).export({ format: 'jwk' }) as { x: string };
  return `${PUBLIC_PREFIX}${Buffer.from(x, 'base64url').toString('base64')}`;
}

/**
 * Whether one `v1a` signature of the `webhook-signature` header verifies with the `whpk_` public key. Only the
 * signature: the receiver checks the timestamp window and the `webhook-id` as for `v1` (`checkWebhookHeaders`).
 *
 * @example
 * const ok = verifyWebhookAsymmetric('whpk_...', { id, timestamp, signature }, body);
 */
export function verifyWebhookAsymmetric(
  publicKey: string,
  headers: { readonly id: string; readonly timestamp: string; readonly signature: string },
  body: string,
): boolean {
  if (!publicKey.startsWith(PUBLIC_PREFIX)) return false;
  const raw = Buffer.from(publicKey.slice(PUBLIC_PREFIX.length), 'base64');
  if (raw.length !== 32) return false;
  const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') }, format: 'jwk' });
  const signed = Buffer.from(`${headers.id}.${headers.timestamp}.${body}`);
  return headers.signature
    .split(' ')
    .filter((entry) => entry.startsWith('v1a,'))
    .some((entry) => verify(null, signed, key, Buffer.from(entry.slice(4), 'base64')));
}
