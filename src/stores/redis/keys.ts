import { ConfigError } from '../../errors.js';

/** The prefix every key gets when none is given; the same as the stream notifier's, resume queue's and worker's. */
export const DEFAULT_PREFIX = 'cs:';

/**
 * Every key countersign's Redis adapters use, in one place.
 *
 * A run's keys all carry the hash tag `{<runId>}`, so they share one Cluster
 * slot and one Lua script can read and write all of them. The global keys
 * (indexes, the event stream, rules) have no tag and live wherever their name
 * hashes; nothing writes them in the same script as a run's keys.
 */
export interface RedisKeys {
  readonly prefix: string;
  /** Hash: `v` version, `h` the encoded head (superjson JSON, audit left out), `x` the run's index entries. */
  head(runId: string): string;
  /** List: one JSON string per message, append-only. */
  messages(runId: string): string;
  /** List: one JSON string per audit entry, append-only. */
  audit(runId: string): string;
  /** Hash, one field per commit (in commit order): what it still has to publish and index; emptied right after the commit. */
  outbox(runId: string): string;
  /** The four keys above, in the order the Lua scripts take them. */
  run(runId: string): readonly [head: string, messages: string, audit: string, outbox: string];
  /** SCAN pattern matching every run's outbox. */
  readonly outboxPattern: string;
  /** Stream of run events: fields `type`, `runId`, `event` (JSON of the `RunEvent`). */
  readonly events: string;
  /** Sorted set of pending approvals (all scores 0; the member sorts by expiry, see `pendingMember`). */
  readonly pending: string;
  /** The same, for one agent. */
  pendingAgent(agentName: string): string;
  /**
   * The same, for one session (`sessionId` follows the run id's rules: no brace, so no hash tag). Its key lives at
   * least as long as the keys of every run it holds (see `INDEX_MEMBER`), so a session nobody lists again goes away.
   */
  pendingSession(sessionId: string): string;
  /** Sorted set of running runs with a tool lease, scored by when the last lease ends. */
  readonly runningLease: string;
  /** Sorted set of running runs without a lease, scored by `updatedAt`. */
  readonly runningIdle: string;
  /** Sorted set of waiting runs with a reminder or escalation to come, scored by when the soonest is due (`runNextNudgeAt`). */
  readonly nudges: string;
  /** String kept by `remember`. */
  remember(key: string): string;
  /** Hash of stored policy rules, id to encoded rule. */
  readonly rules: string;
  /** Hash of personal API tokens, id to JSON (the token's hash, never the token). */
  readonly personTokens: string;
  /** Hash of one grant: `g` its signed JSON, `u:<runId>:<toolCallId>` one signed receipt per use spent, `r` its revocation (kept for good); key TTL = the grant's ttl. */
  grant(grantId: string): string;
  /**
   * Sorted sets of grant ids by `grantedAt`: every grant, a session's, an agent's `'agent'`-scoped ones. A session's
   * and an agent's key lives at least as long as every grant it holds (see `INDEX_MEMBER`); every grant's is tidied
   * when listed.
   */
  readonly grantsAll: string;
  grantsSession(sessionId: string): string;
  grantsAgent(agentName: string): string;
  /** Pub/sub channel of cancel notices (`{"runId","reason"}` JSON), see `CancelSignal`. */
  readonly cancels: string;
  /** Turns a key name relative to the prefix (as kept in a run's index entries) into the full name. */
  full(relative: string): string;
}

/** Escapes the characters Redis glob patterns (SCAN MATCH) treat specially. */
export function globEscape(text: string): string {
  return text.replace(/[*?[\]\\]/g, (char) => `\\${char}`);
}

export function redisKeys(prefix: string = DEFAULT_PREFIX): RedisKeys {
  if (/[{}]/.test(prefix)) {
    throw new ConfigError(
      `Redis prefix ${JSON.stringify(prefix)} contains a brace: a hash tag in the prefix would put every run in one Cluster slot. Use a prefix without { or }.`,
    );
  }
  const run = (runId: string, part: string) => `${prefix}run:{${runId}}:${part}`;
  return {
    prefix,
    head: (runId) => run(runId, 'head'),
    messages: (runId) => run(runId, 'msgs'),
    audit: (runId) => run(runId, 'audit'),
    outbox: (runId) => run(runId, 'outbox'),
    run: (runId) => [run(runId, 'head'), run(runId, 'msgs'), run(runId, 'audit'), run(runId, 'outbox')] as const,
    outboxPattern: `${globEscape(prefix)}run:{*}:outbox`,
    events: `${prefix}events`,
    pending: `${prefix}pending`,
    pendingAgent: (agentName) => `${prefix}pending:agent:${agentName}`,
    pendingSession: (sessionId) => `${prefix}pending:session:${sessionId}`,
    runningLease: `${prefix}running:lease`,
    runningIdle: `${prefix}running:idle`,
    nudges: `${prefix}nudges`,
    remember: (key) => `${prefix}remember:${key}`,
    rules: `${prefix}rules`,
    personTokens: `${prefix}person-tokens`,
    grant: (grantId) => `${prefix}grant:${grantId}`,
    grantsAll: `${prefix}grants`,
    grantsSession: (sessionId) => `${prefix}grants:session:${sessionId}`,
    grantsAgent: (agentName) => `${prefix}grants:agent:${agentName}`,
    cancels: `${prefix}cancels`,
    full: (relative) => `${prefix}${relative}`,
  };
}

/** Expiry times are ms since the epoch; 16 digits keep them in order as text until the year 318857. */
const NO_EXPIRY = Number.MAX_SAFE_INTEGER;

function pad(expiresAt: number): string {
  return Math.max(0, Math.floor(expiresAt)).toString().padStart(16, '0');
}

/**
 * A pending approval's member in the `pending` sorted sets. Every member has
 * score 0, so the set is ordered by the member's bytes: expiry first (no
 * expiry last, as the memory store sorts), then approval id, then run id. The
 * NUL separators sort before any printable character, so an approval id that
 * is a prefix of another sorts first, exactly as in the memory store. The
 * agent and the session come last: they name the other indexes holding the
 * member, so a sweep that finds it stale (its run's keys expired) removes it
 * from all of them. Members written before the session was added have none.
 */
export function pendingMember(
  expiresAt: number | undefined,
  approvalId: string,
  runId: string,
  agentName: string,
  sessionId?: string,
): string {
  const member = `${pad(expiresAt ?? NO_EXPIRY)}|${approvalId}\u0000${runId}\u0000${agentName}`;
  return sessionId === undefined ? member : `${member}\u0000${sessionId}`;
}

export function parsePendingMember(
  member: string,
): { expiry: string; approvalId: string; runId: string; agentName: string; sessionId?: string } | undefined {
  const bar = member.indexOf('|');
  const [approvalId, runId, agentName, sessionId, extra] = member.slice(bar + 1).split('\u0000');
  if (
    bar !== 16 ||
    approvalId === undefined ||
    runId === undefined ||
    agentName === undefined ||
    sessionId === '' ||
    extra !== undefined
  )
    return undefined;
  return {
    expiry: member.slice(0, bar),
    approvalId,
    runId,
    agentName,
    ...(sessionId === undefined ? {} : { sessionId }),
  };
}

/** The exclusive upper bound (ZRANGEBYLEX) of members expiring at or before `now`. */
export function expiredBound(now: number): string {
  return `(${pad(Math.floor(now) + 1)}`;
}

export { pad as padExpiry };
