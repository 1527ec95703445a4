// The headers of an approval mail that model text could reach or that threading relies on: a subject that can
// never carry a line break (so never a header of its own), and a Message-ID fixed per card and recipient, so the
// follow-ups thread under it wherever they are sent from.
import { createHash } from 'node:crypto';

/** Longest tool or agent name kept in a subject; the rest is cut with an ellipsis. */
const SUBJECT_PART_LIMIT = 60;

/** Control characters (CR and LF among them), line and paragraph separators, and bidi and zero-width marks. */
const UNSAFE = /[\p{Cc}\u2028\u2029\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]+/gu;

/** `text` on one line: unsafe characters become a space, runs of spaces one, at most `limit` characters. */
function oneLine(text: string, limit: number): string {
  const clean = text.replace(UNSAFE, ' ').replace(/\s+/g, ' ').trim();
  return clean.length <= limit ? clean : `${clean.slice(0, limit - 1)}…`;
}

/** `Approval needed: <tool> for <agent>`, safe to put in a header. */
export function approvalSubject(toolName: string, agentName: string): string {
  return `Approval needed: ${oneLine(toolName, SUBJECT_PART_LIMIT)} for ${oneLine(agentName, SUBJECT_PART_LIMIT)}`;
}

/** `<countersign.<hash>@host>`, the same every time for the same parts (a card and its recipient). */
export function stableMessageId(host: string, ...parts: readonly string[]): string {
  const hash = createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 32);
  return `<countersign.${hash}@${host}>`;
}
