import { UsageError } from '../errors.js';

/**
 * The words of a command line as a POSIX shell splits them, without running a shell: whitespace separates words,
 * '…' keeps everything literally, "…" keeps everything but \" and \\, and \ outside quotes escapes one character.
 */
export function splitCommandLine(line: string, option: string): string[] {
  const words: string[] = [];
  let word = '';
  /** A word has begun (it may be empty: ''). */
  let started = false;
  let quote: "'" | '"' | undefined;
  for (let index = 0; index < line.length; index++) {
    const char = line[index]!;
    if (quote === "'") {
      if (char === "'") quote = undefined;
      else word += char;
    } else if (quote === '"') {
      if (char === '"') quote = undefined;
      else if (char === '\\' && (line[index + 1] === '"' || line[index + 1] === '\\')) word += line[++index];
      else word += char;
    } else if (/\s/.test(char)) {
      if (started) words.push(word);
      word = '';
      started = false;
    } else if (char === "'" || char === '"') {
      quote = char;
      started = true;
    } else {
      word += char === '\\' && index + 1 < line.length ? line[++index] : char;
      started = true;
    }
  }
  if (quote !== undefined) throw new UsageError(`${option} has an unclosed ${quote} quote`);
  if (started) words.push(word);
  if (words.length === 0)
    throw new UsageError(
      `${option} is empty; give the command that starts the MCP server, e.g. --upstream "npx -y @modelcontextprotocol/server-filesystem /srv"`,
    );
  return words;
}
