import type { JsonValue } from '../run/json-value.js';

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
 * or of an agent (`scope: 'agent'`), within its bounds. Immutable once written: what changes is the uses spent (one
 * `GrantUse` record each) and its revocation (a record that, once written, is never removed by the library and keeps
 * the grant from being written again). `signature` binds every other field when the agent has a `decisionSecret`.
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
  /**
   * On a grant given on a sub-agent's call (`agentAsTool`): the agents above that sub-agent, the root's first. It
   * covers the sub-agent's calls under that chain only; a grant without it, only the agent's calls in its own runs.
   */
  readonly delegatedBy?: readonly string[];
  readonly signature?: string;
}

/**
 * One use of a grant, spent by one call: `useKey` is the call's idempotency key `${runId}:${toolCallId}`, so the same
 * call spends one use however often it is evaluated (a resent command, a re-evaluation after a crash). `signature`
 * (with a `decisionSecret`) binds the grant, the key and the time, so a receipt cannot be made up in storage.
 *
 * @example
 * const use: GrantUse = { grantId: 'grt_…', useKey: `${runId}:${toolCallId}`, at: Date.now() };
 */
export interface GrantUse {
  readonly grantId: string;
  readonly useKey: string;
  /** Epoch ms by the agent's clock: when the use was spent (and the instant its grant's expiry is checked at). */
  readonly at: number;
  readonly signature?: string;
}

/** A grant as a store lists it: with how many of its uses are spent (its use records, never fewer than were seen). */
export interface GrantState extends Grant {
  readonly used: number;
}

/** Everything a store holds of one grant, for a check before a tool runs: the signed grant, its uses, its revocation. */
export interface GrantRecord {
  readonly grant: Grant;
  /** How many use records it has. */
  readonly used: number;
  /** True once revoked: for good, whatever the grant's expiry. */
  readonly revoked: boolean;
}

/** Which grants `GrantStore.list` returns: those of a session, of an agent, of one scope (all filters given must match). */
export interface GrantFilter {
  readonly sessionId?: string;
  readonly agentName?: string;
  readonly scope?: 'session' | 'agent';
  /** Epoch ms by the caller's clock: grants expired by then are left out. */
  readonly now: number;
  /** Also list grants whose uses are all spent (a call that spent one of them is covered by it again). */
  readonly includeUsedUp?: boolean;
}

/** What became of an attempt to spend one use of a grant. `'used'` also when this `useKey` already spent one. */
export type ConsumeOutcome = 'used' | 'used-up' | 'expired' | 'revoked' | 'missing';

/**
 * Where grants live, keyed by session and by agent. `consume` is atomic and idempotent per call: a grant with
 * `uses: 3` covers at most three distinct calls however many processes race for it and however often a call is
 * resent; `revoke` takes effect at once and for good.
 *
 * @example
 * const grants = createMemoryGrantStore();
 * const agent = createAgent({ name: 'files', model, tools, grantStore: grants });
 * for (const grant of await grants.list({ sessionId: 'chat-42', now: Date.now() })) await grants.revoke(grant.id);
 */
export interface GrantStore {
  /**
   * Writes a grant unless one with its id was written before (however long ago revoked): true when written. `uses`
   * are the uses already spent (calls of the decision's own turn the grant decided).
   */
  put(grant: Grant, uses?: readonly GrantUse[]): Promise<boolean>;
  /** Live grants (not revoked, expired at `now` or, unless `includeUsedUp`, used up), oldest first, that match every filter given. */
  list(filter: GrantFilter): Promise<readonly GrantState[]>;
  /**
   * Spends one use of `use.grantId` for `use.useKey` at `use.at` (the agent's clock), recording `use`: `'used'` when
   * spent now or already spent by the same key (nothing spent again); else why not.
   */
  consume(use: GrantUse): Promise<ConsumeOutcome>;
  /** The grant with its use count and revocation, revoked or not; undefined when the store has no such grant. */
  get(id: string): Promise<GrantRecord | undefined>;
  /** The use `useKey` spent of the grant, as recorded (with its signature); undefined when it spent none. */
  useOf(grantId: string, useKey: string): Promise<GrantUse | undefined>;
  /** Revokes a grant: it covers nothing from now on, and is never written again. False when there is no such live grant. */
  revoke(id: string): Promise<boolean>;
  /** Revokes every grant of a session; returns how many. */
  revokeSession(sessionId: string): Promise<number>;
}
