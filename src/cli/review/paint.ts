import type { RequestLine } from '../format.js';

/** How the reviewer colours text it has already made inert: ANSI on a terminal, nothing otherwise. */
export type Paint = Readonly<
  Record<NonNullable<RequestLine['tone']> | 'good' | 'bad' | 'key', (text: string) => string>
>;

const sgr = (open: string) => (text: string) => `\u001b[${open}m${text}\u001b[0m`;

const colours: Paint = {
  title: sgr('1'),
  warning: sgr('33'),
  muted: sgr('2'),
  good: sgr('32'),
  bad: sgr('31'),
  key: sgr('1;36'),
};
const plain: Paint = { title: String, warning: String, muted: String, good: String, bad: String, key: String };

/**
 * Colour when the output is a terminal and `NO_COLOR` is unset or empty (https://no-color.org); plain text to a
 * file, a pipe or a script.
 */
export function paintFor(output: NodeJS.WritableStream, env: Record<string, string | undefined>): Paint {
  const tty = (output as Partial<NodeJS.WriteStream>).isTTY === true;
  return tty && !env['NO_COLOR'] ? colours : plain;
}
