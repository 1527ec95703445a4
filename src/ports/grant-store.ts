import type { JsonValue } from '../machine/types.js';

/**
 * What a decision with `scope: 'session'` or `'agent'` may cover beyond the call it answered: for how long, how
 * many times, and for which arguments. `argsMatch` maps a dotted path into the call's parsed input (`'path'`,
 * `'options.force'`) to a string glob (`'/tmp/*'`, matched against string values only) or an exact JSON value; every
 * entry must match. In a glob `*` is letters, digits and `. _ + @ = , : ~ -` within one path segment (never `/`,
 * whitespace, control characters or shell text), `**` the same across segments, `?` one such character; a value with
 * a `..` segment matches no glob. It is data, not a function, because grants are stored and signed.
 *
 * @example
 * const bounds: GrantBounds = { ttlMs: 15 * 60_000, uses: 3, argsMatch: { path: '/tmp/*' } };
 */
export interface GrantBounds {
  readonly ttlMs?: number;
  readonly uses?: number;
  readonly argsMatch?: { readonly [path: string]: JsonValue };
}

/**
 * A standing decision: a person's approval or denial of one tool, for every run of a session (`scope: 'session'`)
 * or of an agent (`scope: 'agent'`), within its bounds. Immutable once written; only its use count and its
 * revocation change. `signature` binds every other field when the agent has a `decisionSecret`.
 */
export interface Grant {
  /** `grt_…`, derived from the run and the approval it came from, so writing it again is harmless. */
  readonly id: string;
  readonly scope: 'session' | 'agent';
  readonly agentName: string;
  /** Set on a `'session'` grant. */
  readonly sessionId?: string;
  readonly toolName: string;
  readonly decision: 'approved' | 'denied';
  readonly grantedBy?: string;
  readonly grantedAt: number;
  /** Epoch ms; a session grant without `ttlMs` lasts until revoked or the session is cleared. */
  readonly expiresAt?: number;
  /** How many calls it may decide besides the one it was given for; unlimited when left out. */
  readonly uses?: number;
  readonly argsMatch?: { readonly [path: string]: JsonValue };
  readonly approvalId: string;
  readonly runId: string;
  /** The rule and approvers of the request the grant came from. */
  readonly ruleId?: string;
  readonly approvers?: readonly string[];
  readonly signature?: string;
}

/** A grant as a store lists it: with how many of its uses are spent. */
export interface GrantState extends Grant {
  readonly used: number;
}

/** Which grants `GrantStore.list` returns: those of a session, of an agent, of one scope (all filters given must match). */
export interface GrantFilter {
  readonly sessionId?: string;
  readonly agentName?: string;
  readonly scope?: 'session' | 'agent';
  /** Epoch ms by the caller's clock: grants expired by then are left out. */
  readonly now: number;
}

/** What became of an attempt to spend one use of a grant. */
export type ConsumeOutcome = 'used' | 'used-up' | 'expired' | 'revoked' | 'missing';

/**
 * Where grants live, keyed by session and by agent. `consume` is atomic: a grant with `uses: 3` covers at most
 * three calls however many processes race for it; `revoke` takes effect at once.
 *
 * @example
 * const grants = createMemoryGrantStore();
 * const agent = createAgent({ name: 'files', model, tools, grantStore: grants });
 * for (const grant of await grants.list({ sessionId: 'chat-42', now: Date.now() })) await grants.revoke(grant.id);
 */
export interface GrantStore {
  /** Writes a grant unless one with its id was written before (even if revoked since): true when written. `used` starts the count. */
  put(grant: Grant, used?: number): Promise<boolean>;
  /** Live grants (not revoked, expired at `now` or used up), oldest first, that match every filter given. */
  list(filter: GrantFilter): Promise<readonly GrantState[]>;
  /** Spends one use of a grant at `now` (the agent's clock). */
  consume(id: string, now: number): Promise<ConsumeOutcome>;
  /** Revokes a grant: it covers nothing from now on. False when there is no such live grant. */
  revoke(id: string): Promise<boolean>;
  /** Revokes every grant of a session; returns how many. */
  revokeSession(sessionId: string): Promise<number>;
}
