/**
 * How long a service asked to wait, in milliseconds: an HTTP `Retry-After`
 * (delta-seconds or an HTTP date), or a number of seconds from a JSON body
 * (Telegram's `parameters.retry_after`, Discord's `retry_after`, fractions
 * allowed). Undefined when it says nothing usable.
 *
 * @example
 * parseRetryAfter('120'); // 120000
 * parseRetryAfter(1.5); // 1500
 * parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT', Date.parse('Wed, 21 Oct 2015 07:27:00 GMT')); // 60000
 */
export function parseRetryAfter(
  value: string | number | null | undefined,
  now: number = Date.now(),
): number | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? Math.ceil(value * 1000) : undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.ceil(Number(trimmed) * 1000);
  // Every HTTP-date form starts with the day's name; Date.parse alone would read '-5' as the year -5.
  const date = /^[A-Za-z]{3}/.test(trimmed) ? Date.parse(trimmed) : Number.NaN;
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * The wait a service put in its JSON body, in milliseconds: Telegram's
 * `{ ok: false, parameters: { retry_after: 3 } }` or Discord's
 * `{ retry_after: 1.5 }`. Undefined for a body that says none.
 */
export function bodyRetryAfter(text: string): number | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const body = value as {
    readonly retry_after?: unknown;
    readonly parameters?: { readonly retry_after?: unknown } | null;
  };
  const seconds = body.retry_after ?? body.parameters?.retry_after;
  return typeof seconds === 'number' ? parseRetryAfter(seconds) : undefined;
}
