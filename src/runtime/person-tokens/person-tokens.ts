// Personal API tokens: a token names one person, so whatever is decided with it is recorded as that person, whatever
// the request body says. `cspt_<id>_<secret>`: the id finds the record, the secret is checked against its hash.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { personNameSchema } from '../../decisions/authority/person-name.js';
import { optionsObject } from '../../options.js';
import type { PersonToken, PersonTokenStore, StoredPersonToken } from '../../ports/person-token-store.js';
import { parseArgument } from '../parse-argument.js';

const TOKEN_SHAPE = /^cspt_([A-Za-z0-9_-]{16})_([A-Za-z0-9_-]{43})$/;

/**
 * What `issue` takes: the person, what the token is for, and how long it lasts (until revoked by default).
 *
 * @example
 * const input: IssuePersonToken = { person: 'ana@example.com', label: 'laptop CLI', expiresInMs: 90 * 24 * 3_600_000 };
 */
export interface IssuePersonToken {
  readonly person: string;
  readonly label?: string;
  readonly expiresInMs?: number;
}

/**
 * The personal API tokens of a runtime made with `personTokens` (`runtime.personTokens`): issue one to a named
 * person (the token is shown once; only its hash is kept), check one, list and revoke them.
 *
 * @example
 * const { token, record } = await runtime.personTokens!.issue({ person: 'ana@example.com', label: 'laptop CLI' });
 * // give `token` to Ana; her CLI sends it as the bearer token and her decisions are recorded as ana@example.com
 * await runtime.personTokens!.revoke(record.id);
 */
export interface PersonTokens {
  issue(input: IssuePersonToken): Promise<{ readonly token: string; readonly record: PersonToken }>;
  /** The live token `token` is (right secret, not revoked, not expired), or undefined. */
  verify(token: string): Promise<PersonToken | undefined>;
  /** The token with id `id` while it is live (not revoked, not expired), or undefined: a session it opened ends with it. */
  live(id: string): Promise<PersonToken | undefined>;
  /** Every token issued, revoked and expired ones included (never their secrets or hashes), oldest first. */
  list(): Promise<readonly PersonToken[]>;
  /** Revokes a token at once; undefined for an unknown id. */
  revoke(id: string): Promise<PersonToken | undefined>;
}

const issueSchema = optionsObject({
  person: personNameSchema,
  label: z.string().min(1).max(200).optional(),
  expiresInMs: z.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional(),
});
const idSchema = z.string().regex(/^[A-Za-z0-9_-]{16}$/, 'must be the 16-character id of a personal token');

const hashOf = (secret: string) => createHash('sha256').update(secret).digest('base64url');

/** The record without its hash: what leaves the store. */
function publicRecord({ hash: _hash, ...record }: StoredPersonToken): PersonToken {
  return record;
}

/** True when `token` looks like a personal token (so the shared bearer tokens need not be tried). */
export function isPersonTokenShape(token: string): boolean {
  return TOKEN_SHAPE.test(token);
}

export function createPersonTokens(store: PersonTokenStore, clock: () => number): PersonTokens {
  const isLive = (stored: StoredPersonToken) =>
    stored.revokedAt === undefined && (stored.expiresAt === undefined || stored.expiresAt > clock());
  return {
    async issue(input) {
      const { person, label, expiresInMs } = parseArgument(issueSchema, input, 'personTokens.issue');
      const id = randomBytes(12).toString('base64url');
      const secret = randomBytes(32).toString('base64url');
      const now = clock();
      const stored: StoredPersonToken = {
        id,
        person,
        ...(label === undefined ? {} : { label }),
        createdAt: now,
        ...(expiresInMs === undefined ? {} : { expiresAt: now + expiresInMs }),
        hash: hashOf(secret),
      };
      await store.add(stored);
      return { token: `cspt_${id}_${secret}`, record: publicRecord(stored) };
    },
    async verify(token) {
      const match = TOKEN_SHAPE.exec(token);
      if (match === null) return undefined;
      const stored = await store.get(match[1]!);
      if (stored === undefined) return undefined;
      const offered = Buffer.from(hashOf(match[2]!));
      const kept = Buffer.from(stored.hash);
      if (offered.length !== kept.length || !timingSafeEqual(offered, kept)) return undefined;
      return isLive(stored) ? publicRecord(stored) : undefined;
    },
    async live(id) {
      if (!idSchema.safeParse(id).success) return undefined;
      const stored = await store.get(id);
      return stored !== undefined && isLive(stored) ? publicRecord(stored) : undefined;
    },
    async list() {
      return (await store.list()).map(publicRecord);
    },
    async revoke(id) {
      const revoked = await store.revoke(parseArgument(idSchema, id, 'personTokens.revoke'), clock());
      return revoked === undefined ? undefined : publicRecord(revoked);
    },
  };
}
