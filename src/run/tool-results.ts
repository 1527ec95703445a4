/** What the model reads when a call was refused; phrased so it does not retry. */
export function denialResult(reason: string | undefined, by: 'person' | 'policy' | 'expiry' | 'dismissal'): string {
  const who = {
    person: 'A person reviewing this call denied it',
    policy: 'The approval policy refused this call',
    expiry: 'Nobody approved this call before its approval expired',
    dismissal: 'Nobody decided on this call: the request was closed without an approval or a denial',
  }[by];
  return JSON.stringify({
    status: 'denied',
    reason: reason ?? { expiry: 'expired', dismissal: 'dismissed', person: 'denied', policy: 'denied' }[by],
    message: `${who}, so it did not run. Do not retry it or work around it; continue without it, or tell the user what you could not do.`,
  });
}

/** What the model reads when a call could not run or threw. */
export function errorResult(message: string): string {
  return JSON.stringify({ status: 'error', error: message });
}

/** True for a result `errorResult` wrote. */
export function isErrorResult(content: string): boolean {
  return content.startsWith('{"status":"error","error":');
}

/** A tool's return value as the text the model reads. */
export function resultContent(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return JSON.stringify({ status: 'ok' });
  try {
    return (
      JSON.stringify(value, (_key, item: unknown) => (typeof item === 'bigint' ? item.toString() : item)) ??
      String(value)
    );
  } catch {
    return String(value);
  }
}
