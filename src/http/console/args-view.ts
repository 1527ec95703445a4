import { escapeHtml as e } from '../../kit/index.js';
import { stringifyArgs } from '../link-pages.js';

/** A top-level argument that is text of several lines (a file's contents, a message): shown as text, not a JSON string. */
const isTextBlock = (value: unknown): value is string => typeof value === 'string' && value.includes('\n');

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The arguments split into the ones shown as JSON and the multi-line texts shown as text blocks. */
function split(args: unknown): { readonly json: unknown; readonly texts: readonly (readonly [string, string])[] } {
  if (!isRecord(args)) return { json: args, texts: [] };
  const texts = Object.entries(args).filter((entry): entry is [string, string] => isTextBlock(entry[1]));
  if (texts.length === 0) return { json: args, texts };
  // Keys are defined, never assigned, so a `__proto__` argument stays an argument (as `presentArgs` keeps it).
  const json: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args))
    if (!isTextBlock(value)) Object.defineProperty(json, key, { value, enumerable: true });
  return { json, texts };
}

const lineCount = (text: string) => text.split('\n').length;

/**
 * A call's arguments (the request's display copy: redacted, escaped, cut) as a card shows them: JSON, except that a
 * top-level string of several lines is shown as a text block under its name, newlines kept, HTML-escaped.
 *
 * @example
 * argsHtml({ path: '/tmp/notes.txt', content: 'one\ntwo' });
 * // <pre class="args" ...>{ "path": ... }</pre><figure class="text-arg"><figcaption><code>content</code>: text, 2 lines</figcaption><pre ...>one\ntwo</pre></figure>
 */
export function argsHtml(args: unknown): string {
  const { json, texts } = split(args);
  const shownJson =
    texts.length > 0 && Object.keys(json as object).length === 0
      ? ''
      : `<pre class="args" aria-label="Arguments">${e(stringifyArgs(json))}</pre>`;
  return (
    shownJson +
    texts
      .map(
        ([name, text]) =>
          `<figure class="text-arg"><figcaption>Argument <code>${e(name)}</code>: text, ${lineCount(text)} lines</figcaption>` +
          `<pre class="text-block" aria-label="Argument ${e(name)}">${e(text)}</pre></figure>`,
      )
      .join('')
  );
}

/**
 * The arguments as lines for a diff: the JSON lines, then each multi-line text under its name with `| ` before each
 * line, so an edit of a file's contents shows as the lines it changed.
 *
 * @example
 * argLines({ content: 'one\ntwo' }); // ['{}', 'content:', '| one', '| two']
 */
export function argLines(args: unknown): string[] {
  const { json, texts } = split(args);
  return [
    ...stringifyArgs(json).split('\n'),
    ...texts.flatMap(([name, text]) => [`${name}:`, ...text.split('\n').map((line) => `| ${line}`)]),
  ];
}
