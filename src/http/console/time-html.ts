/**
 * An instant as the console shows it: in UTC on the server's page (`2026-11-25 21:50:03 UTC`), which the script
 * rewrites in the browser's time zone; the exact ISO time stays in `datetime` and in the title.
 *
 * @example
 * timeHtml(0); // '<time datetime="1970-01-01T00:00:00.000Z" title="1970-01-01T00:00:00.000Z">1970-01-01 00:00:00 UTC</time>'
 */
export function timeHtml(ms: number): string {
  const iso = new Date(ms).toISOString();
  return `<time datetime="${iso}" title="${iso}">${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC</time>`;
}
