/**
 * A personal API token as kept: who it names, what it is for, and its life. The token itself is never kept, only its
 * SHA-256 (`hash`), so a copy of the store signs nobody in.
 *
 * @example
 * const listed: readonly PersonToken[] = await runtime.personTokens!.list();
 * listed.filter((token) => token.revokedAt === undefined).map((token) => token.person);
 */
export interface PersonToken {
  /** Public id, part of the token; names it in lists and `revoke`. */
  readonly id: string;
  /** The person every decision made with the token is recorded as (`approvedBy`). */
  readonly person: string;
  /** What the token is for ("laptop CLI", "ops runbook"). */
  readonly label?: string;
  readonly createdAt: number;
  /** Epoch ms after which the token is refused; none when it lasts until revoked. */
  readonly expiresAt?: number;
  /** Set once the token is revoked; it is refused from then on. */
  readonly revokedAt?: number;
}

/** A `PersonToken` with the SHA-256 (base64url) of its secret, as a `PersonTokenStore` keeps it. */
export interface StoredPersonToken extends PersonToken {
  readonly hash: string;
}

/**
 * Where personal API tokens are kept (`createMemoryPersonTokenStore`, `createRedisPersonTokenStore`): by id, hashed.
 *
 * @example
 * const runtime = createRuntime({ agents, store, personTokens: createRedisPersonTokenStore({ redis, prefix: 'myapp:' }) });
 */
export interface PersonTokenStore {
  /** Keeps a new token; an id already kept is refused (throws). */
  add(token: StoredPersonToken): Promise<void>;
  get(id: string): Promise<StoredPersonToken | undefined>;
  /** Every token kept, revoked ones included, oldest first. */
  list(): Promise<readonly StoredPersonToken[]>;
  /** Marks a token revoked at `at` (once: a second revoke keeps the first time); undefined for an unknown id. */
  revoke(id: string, at: number): Promise<StoredPersonToken | undefined>;
}
