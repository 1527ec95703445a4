// What a person is shown of a call is its arguments with the secrets in their text redacted (a token in a command
// line, a password in a URL), so no secret reaches the request, its store or a channel. What they approve, possibly
// edited, is put back together here: every part they left as shown is the real value again.
import { digestOf, redactSecrets } from '../kit/index.js';
import { EditIssue } from './edit-issue.js';
import { isRecord } from './tool-shape.js';

/** What a redacted part reads as (`redactSecrets`), and what a display copy shows for a secret key's value. */
const REDACTED = /\[redacted\]/i;
const SECRET_KEY_VALUE = '[REDACTED]';

/** Whether two values are the same JSON, whatever their keys' order or their objects' prototypes. */
export const sameJson = (a: unknown, b: unknown): boolean => digestOf(a) === digestOf(b);

/** Past this depth a value is left as it is: a request refuses arguments nested that deep anyway. */
const MAX_DEPTH = 64;

/** `value` with the secrets in each of its strings redacted; keys (`__proto__` too) are defined, never assigned. */
export function redactDeep(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactSecrets(value);
  if (depth > MAX_DEPTH) return value;
  if (Array.isArray(value)) return value.map((item) => redactDeep(item, depth + 1));
  if (isRecord(value))
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redactDeep(item, depth + 1)]));
  return value;
}

/** Throws when the person's own text still holds a redaction: the secret it stood for cannot be put back. */
function ownText(value: unknown, path: string): unknown {
  if (typeof value === 'string' && REDACTED.test(value))
    throw new EditIssue(
      path,
      'the edit keeps a redacted secret ([redacted]); edit the call without changing that part',
    );
  if (Array.isArray(value)) for (const [index, item] of value.entries()) ownText(item, `${path}[${index}]`);
  else if (isRecord(value)) for (const [key, item] of Object.entries(value)) ownText(item, `${path}.${key}`);
  return value;
}

/**
 * The real value of what was approved: `approved` where the person changed it, `real` wherever `approved` is still
 * what `shown` (the redacted copy of `real`) was. A changed part that keeps a redaction throws an `EditIssue`.
 */
export function restoreRedacted(approved: unknown, shown: unknown, real: unknown, path = '$'): unknown {
  if (sameJson(approved, shown)) return real;
  if (approved === SECRET_KEY_VALUE && typeof real === 'string') return real;
  if (Array.isArray(approved) && Array.isArray(shown) && Array.isArray(real))
    return approved.map((item, index) => restoreRedacted(item, shown[index], real[index], `${path}[${index}]`));
  if (isRecord(approved) && isRecord(shown) && isRecord(real)) {
    return Object.fromEntries(
      Object.entries(approved).map(([key, item]) => [
        key,
        Object.hasOwn(shown, key)
          ? restoreRedacted(item, shown[key], real[key], `${path}.${key}`)
          : ownText(item, `${path}.${key}`),
      ]),
    );
  }
  return ownText(approved, path);
}
