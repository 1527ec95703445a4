/**
 * How the Redis store writes a run's head and index entries and reads them back:
 * the head encoding, the members of the pending and running indexes, page cursors, key TTLs.
 * Pure functions; nothing here talks to Redis.
 */
import { ConfigError, SnapshotError } from '../../errors.js';
import { SUPPORTED_SCHEMA_VERSIONS, type AgentSnapshot } from '../../index.js';
import { deepFreeze, decodeHead, encodeHead, type SnapshotHead, runNextNudgeAt } from '../../kit/index.js';
import { parsePendingMember, pendingMember } from './keys.js';

/**
 * A run's membership of one global index: [key relative to the prefix, score, member], and for an index whose key
 * its members keep alive (a session's pending approvals) the TTL in ms of the run's keys at this commit (0: none).
 */
export type IndexEntry = readonly [key: string, score: number, member: string, keysTtlMs?: number];

/** The part of a head the indexes are checked against. */
export type IndexedHead = Pick<
  SnapshotHead,
  'runId' | 'agentName' | 'sessionId' | 'requestedBy' | 'status' | 'pendingApprovals' | 'toolCalls' | 'updatedAt'
>;

/** A run's head hash as read for an index check: its version, head and index entries. */
export interface StoredHead {
  readonly version: number;
  readonly head: IndexedHead;
  readonly index: string;
}

/** A page size within 1 to 500; 50 when not given. */
export function pageLimit(limit: number | undefined): number {
  return Math.min(Math.max(Math.trunc(limit ?? 50), 1), 500);
}

/** Member of the running and nudge indexes: the version makes a late index update from an older commit harmless. */
function runningMember(runId: string, version: number): string {
  return `${version}@${runId}`;
}

export function parseRunningMember(member: string): { runId: string; version: number } | undefined {
  const at = member.indexOf('@');
  const version = Number(member.slice(0, at));
  return at > 0 && Number.isInteger(version) ? { runId: member.slice(at + 1), version } : undefined;
}

/**
 * Where a run belongs in the global indexes, as the memory store would find it. `keysTtlMs` is how long the run's
 * keys live after this commit (`keysTtl`): a session's index, which no sweep reads whole, lives at least as long.
 */
export function indexEntries(snapshot: Omit<AgentSnapshot, 'messages'>, keysTtlMs: number): IndexEntry[] {
  const entries: IndexEntry[] = [];
  if (snapshot.status === 'awaitingApproval') {
    const { runId, agentName, sessionId } = snapshot;
    for (const request of snapshot.pendingApprovals) {
      const member = pendingMember(request.expiresAt, request.approvalId, runId, agentName, sessionId);
      entries.push(['pending', 0, member], [`pending:agent:${agentName}`, 0, member]);
      if (sessionId !== undefined) entries.push([`pending:session:${sessionId}`, 0, member, keysTtlMs]);
    }
    const nudgeAt = runNextNudgeAt(snapshot);
    if (nudgeAt !== undefined) entries.push(['nudges', nudgeAt, runningMember(snapshot.runId, snapshot.version)]);
  } else if (snapshot.status === 'running') {
    const leased = snapshot.toolCalls.filter((record) => record.status === 'executing');
    const member = runningMember(snapshot.runId, snapshot.version);
    if (leased.length > 0)
      entries.push(['running:lease', Math.max(...leased.map((record) => record.lease?.until ?? 0)), member]);
    else entries.push(['running:idle', snapshot.updatedAt, member]);
  }
  return entries;
}

/** The head as stored: the codec's encoding (`{ json: head }` for the usual plain-JSON head, superjson's otherwise). */
export function encodeStoredHead(head: Omit<AgentSnapshot, 'messages'>): string {
  return JSON.stringify(encodeHead(head));
}

export function encodeIndex(entries: readonly IndexEntry[]): string {
  return entries.length === 0 ? '' : JSON.stringify(entries);
}

export function decodeIndex(text: string | null | undefined): IndexEntry[] {
  if (!text) return [];
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) ? (parsed as IndexEntry[]) : [];
  } catch {
    return [];
  }
}

/** A head as stored, with its audit list put back, validated whole. */
export function decodeStoredHead(text: string, audit: readonly string[] = []): SnapshotHead {
  let encoded: { json?: Record<string, unknown> };
  try {
    encoded = JSON.parse(text) as typeof encoded;
    // The audit list is kept apart from the head (it grows per decision); put it back before validating the whole head once.
    if (encoded.json) encoded.json['audit'] = audit.length === 0 ? [] : JSON.parse(`[${audit.join(',')}]`);
  } catch (error) {
    throw new SnapshotError('Invalid snapshot in Redis: the head or audit list is not JSON.', {
      path: 'head',
      supportedVersions: SUPPORTED_SCHEMA_VERSIONS,
      cause: error,
    });
  }
  return decodeHead(encoded);
}

/**
 * The indexed part of a stored head. Listing a page reads up
 * to 50 heads, and full validation (superjson plus zod) costs about 45 µs
 * each, so a head with no superjson extras (the usual case) is only checked
 * for the fields used here; `load` still validates everything.
 */
export function indexedHead(text: string): IndexedHead {
  let encoded: { json?: Partial<Record<keyof IndexedHead, unknown>>; meta?: unknown };
  try {
    encoded = JSON.parse(text) as typeof encoded;
  } catch {
    return decodeStoredHead(text);
  }
  const head = encoded.json;
  const plain =
    encoded.meta === undefined &&
    head !== undefined &&
    typeof head.runId === 'string' &&
    typeof head.agentName === 'string' &&
    (head.requestedBy === undefined || typeof head.requestedBy === 'string') &&
    typeof head.status === 'string' &&
    typeof head.updatedAt === 'number' &&
    Array.isArray(head.toolCalls) &&
    Array.isArray(head.pendingApprovals) &&
    head.pendingApprovals.every(
      (request: unknown) => typeof (request as { approvalId?: unknown } | null)?.approvalId === 'string',
    );
  return plain ? deepFreeze(head as IndexedHead) : decodeStoredHead(text);
}

export function encodeCursor(member: string): string {
  return Buffer.from(member, 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string): string {
  const member = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!parsePendingMember(member))
    throw new ConfigError(
      'listPending: this cursor was not returned by this store; pass back the cursor of the previous page, or none.',
    );
  return member;
}

/**
 * How long a run's keys live after this commit, in ms (0: no expiry). A finished run's keys expire `retentionMs`
 * after its last commit; a waiting run's keys live until its latest `expiresAt` plus `graceMs` (no expiry when a
 * request has none); a running run's keys never expire.
 */
export function keysTtl(snapshot: AgentSnapshot, now: number, retentionMs: number, graceMs: number): number {
  switch (snapshot.status) {
    case 'completed':
    case 'failed':
    case 'cancelled':
      return Math.ceil(retentionMs);
    case 'awaitingApproval': {
      const expiries = snapshot.pendingApprovals.map((request) => request.expiresAt);
      if (expiries.length === 0 || expiries.some((expiresAt) => expiresAt === undefined)) return 0;
      const latest = Math.max(...(expiries as number[]));
      return Math.max(1, Math.ceil(Math.max(latest - now, 0) + graceMs));
    }
    default:
      return 0;
  }
}
