import { z } from 'zod';

/** True unless `value` parses as a URL with a user name or password. */
function carriesNoCredentials(value: string): boolean {
  try {
    const url = new URL(value);
    return url.username === '' && url.password === '';
  } catch {
    // Not a URL at all: the URL check itself says so.
    return true;
  }
}

/**
 * A zod schema for an http(s) URL without user-info (`https://user:pass@host`).
 * A URL is copied into logs, dead letters and error messages, so a credential
 * in it leaks; the refusal says where the credential belongs instead. Every
 * option that takes a URL uses this one schema.
 *
 * @example
 * const url = httpUrlSchema({ example: 'https://hooks.example.com/countersign', credential: 'the secret option' });
 * url.safeParse('https://user:pass@hooks.example.com/x').success; // false
 */
export function httpUrlSchema(hint: { readonly example: string; readonly credential: string }) {
  return z
    .url({ protocol: /^https?$/, message: `must be an http(s) URL, e.g. ${hint.example}` })
    .refine(carriesNoCredentials, {
      message: `must not carry a user name or password (https://user:pass@host): a URL ends up in logs and error messages. Put the credential in ${hint.credential} instead.`,
    });
}
