import * as nodeCrypto from 'node:crypto';
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { ValueTooDeepError } from '../errors.js';
import { findShapeProblem, MAX_ENCODE_DEPTH } from './argument-shape.js';

/**
 * JSON with object keys sorted at every depth, so equal values give equal
 * text whatever order their keys were written in. Every own key is kept,
 * `__proto__` included (the sorted copies have no prototype, so no key is a
 * setter). Values deeper than `MAX_ENCODE_DEPTH` throw `ValueTooDeepError`.
 */
export function canonicalJson(value: unknown): string {
  const tooDeep = findShapeProblem(value, { maxDepth: MAX_ENCODE_DEPTH, allowForbiddenKeys: true });
  if (tooDeep) throw new ValueTooDeepError('A value to digest', MAX_ENCODE_DEPTH, tooDeep.path);
  return (
    JSON.stringify(value, (_key, item: unknown) => {
      if (typeof item === 'bigint') return `${item.toString()}n`;
      if (item === null || typeof item !== 'object' || Array.isArray(item)) return item;
      const keys = Object.keys(item);
      // Keys already in sorted order are written in that order: no copy (most arguments are small objects written that way).
      if (isSorted(keys)) return item;
      const sorted: Record<string, unknown> = Object.create(null);
      for (const key of keys.sort()) sorted[key] = (item as Record<string, unknown>)[key];
      return sorted;
    }) ?? 'null'
  );
}

// Read from the namespace, not imported by name: a named import of a missing export fails to link on Node before 20.12.
const oneShot = (nodeCrypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash;

function isSorted(keys: readonly string[]): boolean {
  for (let index = 1; index < keys.length; index++) if (keys[index - 1]! > keys[index]!) return false;
  return true;
}

/** SHA-256 (hex) of the canonical JSON of `value`. */
export function digestOf(value: unknown): string {
  const text = canonicalJson(value);
  // The one-shot hash where Node has it (20.12 on): no Hash object per digest, and there is one per auto-approved call.
  return oneShot ? oneShot('sha256', text, 'hex') : createHash('sha256').update(text).digest('hex');
}

/** HMAC-SHA256 (base64url) of `parts` joined by newlines. */
export function hmac(secret: string, parts: readonly string[]): string {
  return createHmac('sha256', secret).update(parts.join('\n')).digest('base64url');
}

/** Constant-time string comparison. */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
