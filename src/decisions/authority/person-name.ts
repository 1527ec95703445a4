// Names of people (approvers, voters, requesters, granters) compared as people read them: `Ops-Lead`, `ops-lead ` and
// `ｏｐｓ-lead` are one person. A name that hides characters a reader cannot see is refused, never compared.
import { z } from 'zod';

/** Control characters, format characters (bidi overrides, zero-width joiners), line separators and other default-ignorable code points. */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]/u;

/** Why `name` cannot name a person (it hides a character, or is blank), or undefined when it can. */
export function personNameProblem(name: string): string | undefined {
  const match = INVISIBLE.exec(name);
  if (match !== null) {
    const code = match[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
    return `has an invisible or control character (U+${code}) at position ${match.index}; type the name without it`;
  }
  if (name.trim() === '') return 'is blank; give the name of a person';
  return undefined;
}

/** A person's name as it is compared: Unicode NFKC, trimmed, case-folded. */
export function personKey(name: string): string {
  return name.normalize('NFKC').trim().toLowerCase().normalize('NFKC');
}

/** True when `a` and `b` name the same person (both given, neither hiding a character, equal once normalized). */
export function samePerson(a: string | undefined, b: string | undefined): boolean {
  if (a === undefined || b === undefined) return false;
  if (personNameProblem(a) !== undefined || personNameProblem(b) !== undefined) return false;
  return personKey(a) === personKey(b);
}

/** True when `name` is one of the people `list` names. */
export function listsPerson(list: readonly string[], name: string | undefined): boolean {
  return list.some((entry) => samePerson(entry, name));
}

/** A person's name at a public boundary (a response's `approvedBy`, a run's `requestedBy`): 1 to 256 characters, nothing hidden. */
export const personNameSchema = z
  .string()
  .min(1)
  .max(256)
  .superRefine((name, ctx) => {
    const problem = personNameProblem(name);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
  });
