// The keys receipts are signed with: Ed25519 only, each named by its RFC 7638 thumbprint, published as a JWKS.
import { createHash, createPublicKey, type KeyObject } from 'node:crypto';
import { z } from 'zod';
import { ConfigError } from '../../errors.js';
import { optionsObject } from '../../options.js';

/**
 * Options of `createRuntime({ receipts })`: the Ed25519 key every decision is also signed with, and the public keys
 * of keys it replaced, still published so receipts they signed keep verifying.
 *
 * @example
 * const { privateKey, publicKey } = generateKeyPairSync('ed25519');
 * const receipts: ReceiptOptions = { privateKey, retiredKeys: [oldPublicKey] };
 */
export interface ReceiptOptions {
  /** An Ed25519 private `KeyObject` (`generateKeyPairSync('ed25519')`, or `createPrivateKey(pem)`). */
  readonly privateKey: KeyObject;
  /** Keys that signed receipts before this one (public or private; only the public half is used or published). */
  readonly retiredKeys?: readonly KeyObject[];
}

/** One public key of a JWKS, as published at `/.well-known/jwks.json`. */
export interface ReceiptJwk {
  readonly kty: 'OKP';
  readonly crv: 'Ed25519';
  readonly x: string;
  readonly kid: string;
  readonly alg: 'EdDSA';
  readonly use: 'sig';
}

/**
 * The public keys receipts are checked with, as a JSON Web Key Set (RFC 7517): the current key first.
 *
 * @example
 * const jwks: ReceiptKeySet = runtime.receiptKeys!;
 * jwks.keys[0]?.kid;
 */
export interface ReceiptKeySet {
  readonly keys: readonly ReceiptJwk[];
}

/** What signs receipts: the current key and its id, and every key to publish. */
export interface ReceiptSigner {
  readonly keyId: string;
  readonly privateKey: KeyObject;
  readonly keySet: ReceiptKeySet;
}

const isKeyObject = (value: unknown): value is KeyObject =>
  typeof value === 'object' && value !== null && typeof (value as KeyObject).asymmetricKeyType === 'string';

const keyObject = z.custom<KeyObject>(isKeyObject, 'must be a KeyObject (crypto.generateKeyPairSync("ed25519"))');

export const receiptOptionsSchema = optionsObject({
  privateKey: keyObject,
  retiredKeys: z.array(keyObject).max(20).optional(),
});

/** The JWK of an Ed25519 key's public half, named by its RFC 7638 thumbprint. */
export function receiptJwk(key: KeyObject): ReceiptJwk {
  if (key.asymmetricKeyType !== 'ed25519')
    throw new ConfigError(
      `createRuntime: receipts are signed with Ed25519 keys, and this key is ${key.asymmetricKeyType ?? 'symmetric'}; make one with generateKeyPairSync('ed25519').`,
    );
  const publicKey = key.type === 'public' ? key : createPublicKey(key);
  const { x } = publicKey.export({ format: 'jwk' }) as { x: string };
  // RFC 7638: the required members in lexicographic order, no spaces.
  const kid = createHash('sha256').update(`{"crv":"Ed25519","kty":"OKP","x":"${x}"}`).digest('base64url');
  return { kty: 'OKP', crv: 'Ed25519', x, kid, alg: 'EdDSA', use: 'sig' };
}

/** The signer of `createRuntime({ receipts })`; a private key is required to sign. */
export function receiptSigner(options: ReceiptOptions): ReceiptSigner {
  if (options.privateKey.type !== 'private')
    throw new ConfigError(
      'createRuntime: receipts.privateKey must be the private half of the Ed25519 key pair; the public half is published at /.well-known/jwks.json.',
    );
  const current = receiptJwk(options.privateKey);
  const retired = (options.retiredKeys ?? []).map(receiptJwk).filter((jwk) => jwk.kid !== current.kid);
  return { keyId: current.kid, privateKey: options.privateKey, keySet: { keys: [current, ...retired] } };
}
