import { randomUUID } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import { ConfigError, SnapshotError, StoreUnavailableError, VersionConflictError } from '../../errors.js';
import { deepFreeze } from '../../machine/freeze.js';
import type { RunEvent } from '../../machine/run-events.js';
import { checkMessages, decodeHead, encodeHead, SUPPORTED_SCHEMA_VERSIONS, type SnapshotHead } from '../../machine/snapshot-codec.js';
import type { ListPendingOptions, PendingApprovalEntry, PendingPage, SnapshotStore } from '../../ports/snapshot-store.js';
import type { AgentSnapshot } from '../../machine/types.js';
import { expiredBound, globEscape, padExpiry, parsePendingMember, pendingMember, redisKeys, type RedisKeys } from './keys.js';
import { createRedisOnceStore } from './redis-once-store.js';
import { jobStreamOf } from './resume-queue.js';
import type { OnceStore } from '../../ports/once-store.js';
import { registerScripts, STREAM_MAXLEN } from './scripts.js';
import { guarded, toStoreError } from './unavailable.js';

/**
 * Options of `createRedisStore`.
 *
 * @example
 * const options: RedisStoreOptions = { redis: new Redis(process.env.REDIS_URL!), prefix: 'myapp:', retentionMs: 86_400_000 };
 * const store = createRedisStore(options);
 */
export interface RedisStoreOptions {
  /** An ioredis connection or Cluster. The store defines its Lua commands on it. */
  readonly redis: Redis | Cluster;
  /** Put before every key; `cs:` by default (the notifier, queue and worker default to it too). No braces: the run id is the hash tag. */
  readonly prefix?: string;
  /** How long the keys of a finished (completed, failed, cancelled) run are kept: 7 days by default. */
  readonly retentionMs?: number;
  /** How long a waiting run is kept past its latest `expiresAt`: 1 day by default. A request without expiry keeps its run forever. */
  readonly graceMs?: number;
  /** Milliseconds since the epoch; `Date.now` by default. Used for TTLs and outbox ages. */
  readonly clock?: () => number;
  /**
   * What a commit waits for before it resolves, beyond the primary's memory. Without it, a commit is as durable
   * as the server's persistence, which this store does not check.
   *
   * - `{ replicas, timeoutMs }`: until `replicas` replicas hold it (Redis `WAIT`, up to `timeoutMs`, default
   *   1,000 ms). A commit not acknowledged in time rejects with a retryable `StoreUnavailableError`: it landed on
   *   the primary but might not survive a failover, so nothing is acknowledged on it (a retry of the decision finds
   *   it recorded). One server only, not a Cluster.
   * - `{ appendfsync: 'always' }`: the server must run `appendonly yes` with `appendfsync always` (Redis then
   *   fsyncs every write before replying). Checked with `CONFIG GET` before the first write, and again until it
   *   holds; a server that does not is a `ConfigError`, and nothing is written.
   */
  readonly durability?: { readonly replicas: number; readonly timeoutMs?: number } | { readonly appendfsync: 'always' };
  /**
   * Called when a step after a commit fails (publishing its events, updating
   * the indexes). The commit itself landed; its work stays in the run's
   * outbox until `drainOutboxes` (or `runsToRecover`) finishes it.
   */
  readonly onError?: (error: Error) => void;
  /**
   * Where a commit's events and index updates are applied. `'inline'` (the default on one server): inside the
   * commit's own script, so a commit is one round trip and publishes atomically with the state it announces.
   * `'outbox'` (always on a Cluster, whose indexes and stream live in other slots): the script queues them in the
   * run's outbox and a second round trip applies them; a process that dies in between leaves them for
   * `drainOutboxes`.
   */
  readonly publish?: 'inline' | 'outbox';
}

/**
 * Options of `RedisStore.drainOutboxes`.
 *
 * @example
 * const options: DrainOptions = { minAgeMs: 30_000 };
 * setInterval(() => void store.drainOutboxes(options), 60_000);
 */
export interface DrainOptions {
  /** Leave entries younger than this to the commit that wrote them (5 s by default). */
  readonly minAgeMs?: number;
  /** Finish only entries written before this time (ms since the epoch); overrides `minAgeMs`. */
  readonly before?: number;
}

/**
 * A `SnapshotStore` on Redis, plus the repair of commits whose process died
 * between the commit and publishing its events.
 *
 * @example
 * const store: RedisStore = createRedisStore({ redis });
 * const moved = await store.drainOutboxes();
 */
export interface RedisStore extends SnapshotStore {
  /** The key names this store uses. */
  readonly keys: RedisKeys;
  /** A `OnceStore` on the same connection and prefix (`createRedisOnceStore`); where a commit settles a webhook-id's claim. */
  readonly once: OnceStore;
  /**
   * Publishes the events and applies the index updates a commit left behind
   * when its process died right after it (SCANs every run's outbox: run it
   * from a periodic job, not per request). Returns how many outbox entries it
   * finished. `runsToRecover` calls it first.
   */
  drainOutboxes(options?: DrainOptions): Promise<number>;
}

const DAY = 86_400_000;
/** How old an outbox entry must be before a drain takes it from the commit that wrote it. */
const DEFAULT_DRAIN_AGE_MS = 5_000;
/** Runs whose stored message and audit counts this store remembers, to send only new messages without asking first. */
const KNOWN_RUNS = 10_000;
/** Runs whose latest snapshot this store keeps for `peek` (a decision on one of them skips the load). */
const PEEKED_RUNS = 1_000;

/** What the write script answers (see `WRITE_RUN`). */
type WriteReply = [code: number, detail: number | string | null, number?, number?];

/** ARGV 16 to 21 of the write script when the commit queues nothing and replaces no remembered key. */
const NOTHING_FOLDED: readonly string[] = ['', '', '', '', '', ''];

/** A run's membership of one global index: [key relative to the prefix, score, member]. */
type IndexEntry = readonly [key: string, score: number, member: string];

interface StoredHead {
  readonly version: number;
  readonly head: IndexedHead;
  readonly index: string;
}

function pageLimit(limit: number | undefined): number {
  return Math.min(Math.max(Math.trunc(limit ?? 50), 1), 500);
}

/** Member of the running indexes: the version makes a late index update from an older commit harmless. */
function runningMember(runId: string, version: number): string {
  return `${version}@${runId}`;
}

function parseRunningMember(member: string): { runId: string; version: number } | undefined {
  const at = member.indexOf('@');
  const version = Number(member.slice(0, at));
  return at > 0 && Number.isInteger(version) ? { runId: member.slice(at + 1), version } : undefined;
}

/** Where a run belongs in the global indexes, as the memory store would find it. */
function indexEntries(snapshot: Omit<AgentSnapshot, 'messages'>): IndexEntry[] {
  const entries: IndexEntry[] = [];
  if (snapshot.status === 'awaitingApproval') {
    for (const request of snapshot.pendingApprovals) {
      const member = pendingMember(request.expiresAt, request.approvalId, snapshot.runId, snapshot.agentName);
      entries.push(['pending', 0, member], [`pending:agent:${snapshot.agentName}`, 0, member]);
    }
  } else if (snapshot.status === 'running') {
    const leased = snapshot.toolCalls.filter((record) => record.status === 'executing');
    const member = runningMember(snapshot.runId, snapshot.version);
    if (leased.length > 0) entries.push(['running:lease', Math.max(...leased.map((record) => record.lease?.until ?? 0)), member]);
    else entries.push(['running:idle', snapshot.updatedAt, member]);
  }
  return entries;
}

/** The head as stored: the codec's encoding (`{ json: head }` for the usual plain-JSON head, superjson's otherwise). */
function encodeStoredHead(head: Omit<AgentSnapshot, 'messages'>): string {
  return JSON.stringify(encodeHead(head));
}

function encodeIndex(entries: readonly IndexEntry[]): string {
  return entries.length === 0 ? '' : JSON.stringify(entries);
}

function decodeIndex(text: string | null | undefined): IndexEntry[] {
  if (!text) return [];
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) ? (parsed as IndexEntry[]) : [];
  } catch {
    return [];
  }
}

function decodeStoredHead(text: string, audit: readonly string[] = []): SnapshotHead {
  let encoded: { json?: Record<string, unknown> };
  try {
    encoded = JSON.parse(text) as typeof encoded;
    // The audit list is kept apart from the head (it grows per decision); put it back before validating the whole head once.
    if (encoded.json) encoded.json['audit'] = audit.length === 0 ? [] : JSON.parse(`[${audit.join(',')}]`);
  } catch (error) {
    throw new SnapshotError('Invalid snapshot in Redis: the head or audit list is not JSON.', { path: 'head', supportedVersions: SUPPORTED_SCHEMA_VERSIONS, cause: error });
  }
  return decodeHead(encoded);
}

type IndexedHead = Pick<SnapshotHead, 'runId' | 'agentName' | 'status' | 'pendingApprovals' | 'toolCalls' | 'updatedAt'>;

/**
 * The part of a head the indexes are checked against. Listing a page reads up
 * to 50 heads, and full validation (superjson plus zod) costs about 45 µs
 * each, so a head with no superjson extras (the usual case) is only checked
 * for the fields used here; `load` still validates everything.
 */
function indexedHead(text: string): IndexedHead {
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
    typeof head.status === 'string' &&
    typeof head.updatedAt === 'number' &&
    Array.isArray(head.toolCalls) &&
    Array.isArray(head.pendingApprovals) &&
    head.pendingApprovals.every((request: unknown) => typeof (request as { approvalId?: unknown } | null)?.approvalId === 'string');
  return plain ? deepFreeze(head as IndexedHead) : decodeStoredHead(text);
}

function encodeCursor(member: string): string {
  return Buffer.from(member, 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): string {
  const member = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!parsePendingMember(member)) throw new ConfigError('listPending: this cursor was not returned by this store; pass back the cursor of the previous page, or none.');
  return member;
}

/**
 * A `SnapshotStore` on Redis (standalone or Cluster), through ioredis.
 *
 * Layout: each run keeps a small head hash, an append-only list of messages
 * and one of audit entries, and an outbox, all under the hash tag `{runId}`.
 * A commit is one Lua compare-and-set on the version that writes the new head,
 * appends only the new messages and audit entries, sets every key's TTL and
 * queues the commit's events in the outbox, atomically. Right after it, the
 * events go to the stream `${prefix}events` (fields `type`, `runId`, `event`)
 * and the pending and running indexes are updated; a process that dies in
 * between leaves that work in the outbox for `drainOutboxes`.
 *
 * Indexes: `${prefix}pending` and `${prefix}pending:agent:<name>` hold one
 * member per pending approval, ordered by expiry then approval id (all scores
 * 0, the order is in the member's bytes, so a page resumes exactly after its
 * cursor); `${prefix}running:lease` and `${prefix}running:idle` hold running
 * runs by lease end and by `updatedAt`. They live outside the runs' slots, so
 * they are hints: every read checks them against the run's head and removes
 * what no longer holds.
 *
 * TTLs: a finished run's keys expire `retentionMs` after its last commit; a
 * waiting run's keys live until its latest `expiresAt` plus `graceMs` (no
 * expiry when a request has none); a running run's keys never expire.
 *
 * @example
 * import { Redis } from 'ioredis';
 * import { createRuntime } from 'countersign';
 * import { createRedisStore } from 'countersign/redis';
 *
 * const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
 * const store = createRedisStore({ redis, prefix: 'myapp:', retentionMs: 3 * 86_400_000 });
 * const runtime = createRuntime({ agents: [agent], store });
 */
export function createRedisStore(options: RedisStoreOptions): RedisStore {
  const { redis } = options;
  const keys = redisKeys(options.prefix);
  const retentionMs = options.retentionMs ?? 7 * DAY;
  const graceMs = options.graceMs ?? DAY;
  const clock = options.clock ?? Date.now;
  if (!(Number.isFinite(retentionMs) && retentionMs >= 1)) throw new ConfigError(`createRedisStore: retentionMs must be a positive number of milliseconds, got ${retentionMs}.`);
  if (!(Number.isFinite(graceMs) && graceMs >= 0)) throw new ConfigError(`createRedisStore: graceMs must be zero or more milliseconds, got ${graceMs}.`);
  if (options.publish !== undefined && options.publish !== 'inline' && options.publish !== 'outbox') {
    throw new ConfigError(`createRedisStore: publish must be 'inline' or 'outbox', got ${String(options.publish)}.`);
  }
  const wanted = options.durability;
  const fsyncAlways = wanted !== undefined && 'appendfsync' in wanted;
  if (fsyncAlways && wanted.appendfsync !== 'always') throw new ConfigError(`createRedisStore: durability.appendfsync can only be 'always', got ${String(wanted.appendfsync)}.`);
  const durability = wanted === undefined || 'appendfsync' in wanted ? undefined : { replicas: wanted.replicas, timeoutMs: wanted.timeoutMs ?? 1_000 };
  if (durability) {
    if (!(Number.isInteger(durability.replicas) && durability.replicas >= 1)) throw new ConfigError(`createRedisStore: durability.replicas must be a whole number of at least 1, got ${durability.replicas}.`);
    if (!(Number.isInteger(durability.timeoutMs) && durability.timeoutMs >= 1)) throw new ConfigError(`createRedisStore: durability.timeoutMs must be a whole number of milliseconds, at least 1, got ${durability.timeoutMs}.`);
    // WAIT counts the writes of the connection it is sent on; a Cluster sends it to any node.
    if (redis.isCluster) throw new ConfigError('createRedisStore: durability waits for replicas with WAIT on the connection that wrote, which a Cluster cannot do; use appendfsync always on every node instead.', 'redis_unsupported');
  }
  const scripts = registerScripts(redis);
  const report = (error: Error) => {
    try {
      options.onError?.(error);
    } catch {
      // A failing error hook must not turn a landed commit into a failure.
    }
  };

  // Stored message and audit counts per run version, as last seen by this store: lets a commit send only its new
  // entries without asking first. A wrong guess costs one more round trip, never a wrong write (the script checks).
  // The commit id is the run's latest as last seen, sent with the next commit so a run deleted and made again under
  // the same id by someone else is a conflict, not a successor.
  const known = new Map<string, { version: number; messages: number; audit: number; commit: string }>();
  // The latest snapshot per run, as committed or loaded here: `peek` hands it out, and a commit from it is checked
  // by the script against the stored version and commit id, so a stale one is refused, never written.
  const latest = new Map<string, AgentSnapshot>();
  const remember = (snapshot: AgentSnapshot, commit: string) => {
    const { runId } = snapshot;
    known.delete(runId);
    known.set(runId, { version: snapshot.version, messages: snapshot.messages.length, audit: snapshot.audit.length, commit });
    if (known.size > KNOWN_RUNS) known.delete(known.keys().next().value!);
    latest.delete(runId);
    latest.set(runId, snapshot);
    if (latest.size > PEEKED_RUNS) latest.delete(latest.keys().next().value!);
  };
  const forget = (runId: string) => {
    known.delete(runId);
    latest.delete(runId);
  };
  const inline = !redis.isCluster && options.publish !== 'outbox';

  const ttlFor = (snapshot: AgentSnapshot, now: number): number => {
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
  };

  /** A command sent in a batch: an index update, an event for the stream, a head read. */
  type FollowUp = readonly [name: 'zrem' | 'zadd' | 'xadd' | 'hmget', key: string, ...args: (string | number)[]];

  const xadd = (event: RunEvent): FollowUp => ['xadd', keys.events, 'MAXLEN', '~', STREAM_MAXLEN, '*', 'type', event.type, 'runId', event.runId, 'event', JSON.stringify(event)];

  /** ZREM what left the index, ZADD what joined it; grouped per key. */
  const applyIndex = (previous: readonly IndexEntry[], next: readonly IndexEntry[]): FollowUp[] => {
    const id = (entry: IndexEntry) => `${entry[0]}\u0000${entry[2]}`;
    const nextIds = new Set(next.map(id));
    const previousExact = new Set(previous.map((entry) => `${id(entry)}\u0000${entry[1]}`));
    const removals = new Map<string, string[]>();
    const additions = new Map<string, (string | number)[]>();
    for (const entry of previous) if (!nextIds.has(id(entry))) removals.set(entry[0], [...(removals.get(entry[0]) ?? []), entry[2]]);
    for (const entry of next) {
      if (!previousExact.has(`${id(entry)}\u0000${entry[1]}`)) additions.set(entry[0], [...(additions.get(entry[0]) ?? []), entry[1], entry[2]]);
    }
    return [
      ...[...removals].map(([key, members]): FollowUp => ['zrem', keys.full(key), ...members]),
      ...[...additions].map(([key, pairs]): FollowUp => ['zadd', keys.full(key), ...pairs]),
    ];
  };

  /**
   * Sends a batch of commands and returns their replies: on one server as one
   * pipeline (one write, one round trip); on a Cluster one by one, since their
   * keys live on different nodes and a Cluster pipeline must stay on one.
   */
  const send = async (commands: readonly FollowUp[]): Promise<unknown[]> => {
    if (commands.length === 0) return [];
    if (redis.isCluster) {
      return Promise.all(commands.map(([name, ...args]) => (redis as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>)[name]!(...args)));
    }
    const results = (await (redis as Redis).pipeline(commands.map((command) => [...command])).exec()) ?? [];
    const failure = results.find(([error]) => error);
    if (failure) throw failure[0];
    return results.map(([, reply]) => reply);
  };

  /**
   * Publishes a commit's events and updates the indexes, then clears its
   * outbox field. Failures are left for `drainOutboxes`. The commit resolves
   * once the events are in the stream; clearing the field is not awaited (a
   * commit costs two round trips, not three): if it is lost, a later drain
   * publishes the events again, which at-least-once readers already expect.
   */
  const finish = async (runId: string, field: string, events: readonly RunEvent[], previous: string, index: string) => {
    const failed = (error: unknown) => report(toStoreError('finish a commit (its events and index updates stay in the outbox for drainOutboxes)', error));
    try {
      await send([...applyIndex(decodeIndex(previous), decodeIndex(index)), ...events.map(xadd)]);
    } catch (error) {
      failed(error);
      return;
    }
    redis.hdel(keys.outbox(runId), field).catch(failed);
  };

  /** Runs the write script; returns its reply. */
  const write = async (mode: 'create' | number, next: AgentSnapshot, seenMessages: number, seenAudit: number, prepared: Prepared, folded: readonly string[] = NOTHING_FOLDED) => {
    if (fsyncAlways) await checkFsync();
    const newMessages = next.messages.slice(seenMessages).map((message) => JSON.stringify(message));
    const newAudit = next.audit.slice(seenAudit).map((entry) => JSON.stringify(entry));
    const guess = known.get(next.runId);
    const latestCommit = mode !== 'create' && guess?.version === mode ? guess.commit : '';
    try {
      return (await guarded(mode === 'create' ? 'create a run' : 'commit a run', () =>
        scripts.countersignWriteRun(
          ...keys.run(next.runId),
          mode,
          next.version,
          seenMessages,
          seenAudit,
          prepared.head,
          prepared.index,
          prepared.ttl,
          prepared.field,
          inline ? '' : prepared.meta,
          prepared.events.length,
          newMessages.length,
          newAudit.length,
          inline ? 'inline' : 'outbox',
          inline ? fullPrefix : '',
          latestCommit,
          ...folded,
          ...newMessages,
          ...newAudit,
          ...(inline ? prepared.events.flatMap((event) => [event.type, event.runId, JSON.stringify(event)]) : []),
        ),
      )) as WriteReply;
    } catch (error) {
      // Landed or not, what this store knew of the run may no longer hold.
      forget(next.runId);
      throw error;
    }
  };

  /**
   * After a write that landed: reply 1 is this call's own write; reply 3 is
   * the same commit resent by ioredis after its first reply was lost, which
   * had landed, so its outbox entry (if not yet drained) is finished here.
   */
  const landed = async (snapshot: AgentSnapshot, prepared: Prepared, reply: WriteReply): Promise<void> => {
    remember(snapshot, prepared.field);
    if (durability) await replicated(snapshot);
    if (reply[0] === 1) {
      if (reply[2] === 1) await finish(snapshot.runId, prepared.field, prepared.events, String(reply[1]), prepared.index);
      return;
    }
    const entry = reply[1];
    if (typeof entry === 'string') await finish(snapshot.runId, prepared.field, prepared.events, entry.split('\n')[2] ?? '', prepared.index);
  };

  /** With `durability: { appendfsync: 'always' }`: the server fsyncs every write before replying, checked once it holds. */
  let fsyncChecked: Promise<void> | undefined;
  const checkFsync = (): Promise<void> =>
    (fsyncChecked ??= (async () => {
      const [[, appendonly], [, appendfsync]] = (await guarded('read its persistence settings', () =>
        Promise.all([redis.config('GET', 'appendonly'), redis.config('GET', 'appendfsync')]).catch((error: unknown) => {
          // A managed server that renames or hides CONFIG cannot be checked: no retry will help.
          if (error instanceof Error && /unknown command/i.test(error.message)) {
            throw new ConfigError(`createRedisStore: durability { appendfsync: 'always' } checks the server with CONFIG GET, which it refuses (${error.message}); use durability: { replicas } instead.`, 'redis_unsupported');
          }
          throw error;
        }),
      )) as unknown as [[string, string?], [string, string?]];
      if (appendonly !== 'yes' || appendfsync !== 'always') {
        throw new ConfigError(
          `createRedisStore: durability { appendfsync: 'always' } needs a server with appendonly yes and appendfsync always; this one has appendonly ${appendonly ?? '(unknown)'} and appendfsync ${appendfsync ?? '(unknown)'}, so an acknowledged decision could be lost in a crash. Set both (redis.conf or CONFIG SET), or use durability: { replicas }. Nothing was written.`,
          'redis_unsupported',
        );
      }
    })().catch((error: unknown) => {
      fsyncChecked = undefined;
      throw error;
    }));

  /** Resolves once `durability.replicas` replicas hold every write this connection made, else throws (retryable). */
  const replicated = async (snapshot: AgentSnapshot): Promise<void> => {
    const { replicas, timeoutMs } = durability!;
    const acknowledged = await guarded('wait for replicas', () => (redis as Redis).wait(replicas, timeoutMs));
    if (acknowledged < replicas) {
      throw new StoreUnavailableError(
        `Redis replicated version ${snapshot.version} of run ${snapshot.runId} to ${acknowledged} of ${replicas} replicas within ${timeoutMs} ms, so it is not acknowledged (it may not survive a failover; a retry finds it recorded).`,
      );
    }
  };

  interface Prepared {
    readonly head: string;
    readonly index: string;
    readonly ttl: number;
    /** The commit's outbox field and id: the version first, so fields sort in commit order. */
    readonly field: string;
    readonly meta: string;
    readonly events: readonly RunEvent[];
  }

  const prepare = (snapshot: AgentSnapshot, events: readonly RunEvent[]): Prepared => {
    const { messages: _messages, audit: _audit, ...rest } = snapshot;
    const now = clock();
    return {
      head: encodeStoredHead({ ...rest, audit: [] }),
      index: encodeIndex(indexEntries(snapshot)),
      ttl: ttlFor(snapshot, now),
      // Also the commit's id: the script recognises a resend of this very commit by it.
      field: `${String(snapshot.version).padStart(12, '0')}:${randomUUID()}`,
      meta: inline ? '' : JSON.stringify({ t: now, events }),
      events,
    };
  };

  const readHeads = async (runIds: Iterable<string>): Promise<Map<string, StoredHead | undefined>> => {
    const unique = [...new Set(runIds)];
    const replies = (await guarded('read run heads', () => send(unique.map((runId): FollowUp => ['hmget', keys.head(runId), 'v', 'h', 'x'])))) as (string | null)[][];
    const heads = new Map<string, StoredHead | undefined>();
    unique.forEach((runId, index) => {
      const [version, head, indexText] = replies[index]!;
      heads.set(runId, version == null || head == null ? undefined : { version: Number(version), head: indexedHead(head), index: indexText ?? '' });
    });
    return heads;
  };

  const removePending = (stale: readonly string[]): FollowUp[] => {
    const byKey = new Map<string, string[]>();
    for (const member of stale) {
      const parsed = parsePendingMember(member);
      for (const key of [keys.pending, ...(parsed ? [keys.pendingAgent(parsed.agentName)] : [])]) byKey.set(key, [...(byKey.get(key) ?? []), member]);
    }
    return [...byKey].map(([key, members]): FollowUp => ['zrem', key, ...members]);
  };

  /** The request a pending member stands for, if its run still waits for it. */
  const pendingRequest = (member: string, heads: Map<string, StoredHead | undefined>) => {
    const parsed = parsePendingMember(member);
    const stored = parsed && heads.get(parsed.runId);
    if (!parsed || !stored || stored.head.status !== 'awaitingApproval') return undefined;
    const request = stored.head.pendingApprovals.find((item) => item.approvalId === parsed.approvalId);
    if (!request || padExpiry(request.expiresAt ?? Number.MAX_SAFE_INTEGER) !== parsed.expiry) return undefined;
    return { runId: stored.head.runId, agentName: stored.head.agentName, request };
  };

  const drainRun = async (runId: string, cutoff: number): Promise<number> => {
    const [outbox, currentIndex] = await guarded('read an outbox', () =>
      Promise.all([redis.hgetall(keys.outbox(runId)), redis.hget(keys.head(runId), 'x')]),
    );
    let finished = 0;
    for (const field of Object.keys(outbox).sort()) {
      const [metaText = '', index = '', previous = ''] = outbox[field]!.split('\n');
      let meta: { t?: number; events?: RunEvent[] };
      try {
        meta = JSON.parse(metaText) as typeof meta;
      } catch {
        meta = {};
      }
      if ((meta.t ?? 0) > cutoff) break;
      await guarded('publish an outbox', () => send([...applyIndex(decodeIndex(previous), decodeIndex(index)), ...(meta.events ?? []).map(xadd)]));
      await guarded('clear an outbox', () => redis.hdel(keys.outbox(runId), field));
      finished++;
    }
    // Put back what the run's latest commit indexes, in case an older entry just removed it (a stale extra is only a hint).
    if (finished > 0) await guarded('repair the indexes', () => send(applyIndex([], decodeIndex(currentIndex))));
    return finished;
  };

  // ioredis adds a connection's keyPrefix to command keys but not to SCAN patterns or SCAN results.
  const connectionPrefix = String(
    (redis.isCluster ? (redis as Cluster).options.redisOptions?.keyPrefix ?? (redis as Cluster).options.keyPrefix : (redis as Redis).options.keyPrefix) ?? '',
  );
  /** Where the inline script finds the stream and the indexes: keys it is not given, so ioredis does not prefix them. */
  const fullPrefix = `${connectionPrefix}${keys.prefix}`;
  /** The full key of a queue's job stream when the commit script can add to it (same connection, one server), else ''. */
  const foldedJobStream = (queue: object): string => {
    const stream = jobStreamOf(queue);
    return inline && stream?.redis === redis ? `${connectionPrefix}${stream.key}` : '';
  };
  const scanOutboxes = async function* (): AsyncGenerator<string[]> {
    const nodes: (Redis | Cluster)[] = redis.isCluster ? (redis as Cluster).nodes('master') : [redis];
    const pattern = `${globEscape(connectionPrefix)}${keys.outboxPattern}`;
    for (const node of nodes) {
      let cursor = '0';
      do {
        const [nextCursor, found] = await guarded('scan the outboxes', () => (node as Redis).scan(cursor, 'MATCH', pattern, 'COUNT', 1000, 'TYPE', 'hash'));
        cursor = nextCursor;
        if (found.length > 0) yield found.map((key) => key.slice(connectionPrefix.length));
      } while (cursor !== '0');
    }
  };

  const store: RedisStore = {
    keys,
    shared: true,

    async create(snapshot, events = []) {
      const prepared = prepare(snapshot, events);
      const reply = await write('create', snapshot, 0, 0, prepared);
      if (reply[0] === 1 || reply[0] === 3) return landed(snapshot, prepared, reply);
      throw new VersionConflictError(snapshot.runId, snapshot.version, Number(reply[1]));
    },

    async load(runId) {
      const reply = (await guarded('load a run', () => scripts.countersignLoadRun(...(keys.run(runId).slice(0, 3) as [string, string, string])))) as
        | [string, string, string[], string[], string]
        | null;
      if (!reply) {
        forget(runId);
        return undefined;
      }
      const [version, headText, messageTexts, auditTexts, commit] = reply;
      const head = decodeStoredHead(headText, auditTexts);
      let messages: unknown;
      try {
        messages = messageTexts.length === 0 ? [] : JSON.parse(`[${messageTexts.join(',')}]`);
      } catch (error) {
        throw new SnapshotError(`Invalid snapshot in Redis: a message of run ${runId} is not JSON.`, { path: 'messages', supportedVersions: SUPPORTED_SCHEMA_VERSIONS, cause: error });
      }
      checkMessages(messages);
      const snapshot = deepFreeze({ ...head, messages } as AgentSnapshot);
      // A head whose own version disagrees with the stored one is not vouched for: nothing is kept from it.
      if (Number(version) === snapshot.version) remember(snapshot, commit);
      else forget(runId);
      return snapshot;
    },

    peek(runId) {
      const snapshot = latest.get(runId);
      return snapshot !== undefined && known.get(runId)?.version === snapshot.version ? snapshot : undefined;
    },

    async commit(next, expectedVersion, events = [], commitOptions = {}) {
      if (next.version <= expectedVersion) {
        throw new ConfigError(
          `commit: run ${next.runId} has version ${next.version}, not above the expected ${expectedVersion}; ` +
            'commit the snapshot a step returned (every step raises the version), so a resent commit can be told apart.',
        );
      }
      const guess = known.get(next.runId);
      // Without a count we know, guess that nothing is new: the script answers with the real counts if not.
      let seenMessages = guess?.version === expectedVersion ? guess.messages : next.messages.length;
      let seenAudit = guess?.version === expectedVersion ? guess.audit : next.audit.length;
      const prepared = prepare(next, events);
      // Waiting for replicas comes after the script: a commit that then fails must not have queued or answered yet.
      const fold = inline && durability === undefined;
      const jobStream = commitOptions.queue === undefined || !fold ? '' : foldedJobStream(commitOptions.queue);
      const replace = fold ? commitOptions.replaceRemembered : undefined;
      const folded = [
        jobStream,
        next.runId,
        ...(replace === undefined ? ['', '', '', ''] : [`${connectionPrefix}${keys.remember(replace.key)}`, replace.expected, replace.value, String(Math.ceil(replace.ttlMs))]),
      ];
      for (let attempt = 0; attempt < 2; attempt++) {
        const reply = await write(expectedVersion, next, seenMessages, seenAudit, prepared, folded);
        if (reply[0] === 1 || reply[0] === 3) {
          await landed(next, prepared, reply);
          // A resent commit (3) had queued the job with its first landing; whether it replaced the key is unknown, so the caller does.
          return { queued: jobStream !== '', replaced: reply[0] === 1 && reply[3] === 1 };
        }
        const actual = Number(reply[1]);
        if (reply[0] === 0) {
          forget(next.runId);
          throw new VersionConflictError(next.runId, expectedVersion, actual === -1 ? undefined : actual);
        }
        seenMessages = Number(reply[2]);
        seenAudit = Number(reply[3]);
        // History is append-only: a snapshot with fewer messages than stored is not a successor of the stored run.
        if (seenMessages > next.messages.length || seenAudit > next.audit.length) throw new VersionConflictError(next.runId, expectedVersion, actual);
      }
      throw new VersionConflictError(next.runId, expectedVersion, undefined);
    },

    async listPending(listOptions: ListPendingOptions = {}): Promise<PendingPage> {
      const limit = pageLimit(listOptions.limit);
      const key = listOptions.agent === undefined ? keys.pending : keys.pendingAgent(listOptions.agent);
      let start = listOptions.cursor === undefined ? '-' : `(${decodeCursor(listOptions.cursor)}`;
      const items: { member: string; entry: PendingApprovalEntry }[] = [];
      const stale: string[] = [];
      let exhausted = false;
      let lastScanned: string | undefined;
      // Stale members (a run that stopped waiting) are skipped and removed; a bounded number of reads keeps a page cheap.
      for (let round = 0; round < 8 && items.length <= limit; round++) {
        // Read a little ahead, more each round, so a run of stale entries costs a few round trips, not one per entry.
        const want = round === 0 ? limit + 1 : Math.min(Math.max(limit + 1 - items.length, 25 << round), 1000);
        const members = await guarded('list pending approvals', () => redis.zrangebylex(key, start, '+', 'LIMIT', 0, want));
        if (members.length === 0) {
          exhausted = true;
          break;
        }
        const heads = await readHeads(members.flatMap((member) => parsePendingMember(member)?.runId ?? []));
        for (const member of members) {
          const entry = pendingRequest(member, heads);
          if (entry) items.push({ member, entry });
          else stale.push(member);
          lastScanned = member;
          if (items.length > limit) break;
        }
        start = `(${lastScanned!}`;
        if (items.length <= limit && members.length < want) {
          exhausted = true;
          break;
        }
      }
      if (stale.length > 0) await guarded('repair the pending index', () => send(removePending(stale)));
      const page = items.slice(0, limit);
      const cursor = items.length > limit ? page.at(-1)!.member : exhausted ? undefined : lastScanned;
      return { items: page.map((item) => item.entry), ...(cursor === undefined ? {} : { cursor: encodeCursor(cursor) }) };
    },

    async expiredRuns(now, limit = 100) {
      const due: string[] = [];
      const stale: string[] = [];
      let start = '-';
      for (let round = 0; round < 8 && due.length < limit; round++) {
        const batch = Math.max(limit - due.length, 50);
        const members = await guarded('list expired approvals', () => redis.zrangebylex(keys.pending, start, expiredBound(now), 'LIMIT', 0, batch));
        if (members.length === 0) break;
        const heads = await readHeads(members.flatMap((member) => parsePendingMember(member)?.runId ?? []));
        for (const member of members) {
          const entry = pendingRequest(member, heads);
          if (!entry) stale.push(member);
          else if (entry.request.expiresAt !== undefined && entry.request.expiresAt <= now && !due.includes(entry.runId) && due.length < limit) due.push(entry.runId);
        }
        start = `(${members.at(-1)!}`;
        if (members.length < batch) break;
      }
      if (stale.length > 0) await guarded('repair the pending index', () => send(removePending(stale)));
      return due;
    },

    async runsToRecover(now, staleBefore, limit = 100) {
      // A commit from before staleBefore is abandoned too: its process would have finished it long ago.
      await store.drainOutboxes({ before: Math.max(clock() - DEFAULT_DRAIN_AGE_MS, staleBefore) });
      const due: string[] = [];
      for (const [key, max] of [
        [keys.runningLease, String(now)],
        [keys.runningIdle, `(${staleBefore}`],
      ] as const) {
        let offset = 0;
        for (let round = 0; round < 8 && due.length < limit; round++) {
          const batch = Math.max(limit - due.length, 50);
          const members = await guarded('list running runs', () => redis.zrangebyscore(key, '-inf', max, 'LIMIT', offset, batch));
          if (members.length === 0) break;
          const parsed = members.map((member) => ({ member, run: parseRunningMember(member) }));
          const heads = await readHeads(parsed.flatMap((item) => item.run?.runId ?? []));
          const repairs: FollowUp[] = [];
          for (const { member, run } of parsed) {
            const stored = run && heads.get(run.runId);
            if (!run || !stored || stored.version !== run.version || stored.head.status !== 'running') {
              // A hint from an older commit: drop it and put back what the run's current commit indexes.
              repairs.push(['zrem', key, member], ...applyIndex([], decodeIndex(stored?.index)));
              continue;
            }
            offset++;
            const leased = stored.head.toolCalls.filter((record) => record.status === 'executing');
            const abandoned = leased.length > 0 ? leased.every((record) => (record.lease?.until ?? 0) <= now) : stored.head.updatedAt < staleBefore;
            if (abandoned && !due.includes(run.runId) && due.length < limit) due.push(run.runId);
          }
          await guarded('repair the running index', () => send(repairs));
          if (members.length < batch) break;
        }
      }
      return due;
    },

    async delete(runId) {
      forget(runId);
      const previous = (await guarded('delete a run', () => scripts.countersignDeleteRun(...keys.run(runId)))) as string | null;
      const entries = decodeIndex(previous);
      if (entries.length > 0) await guarded('remove a run from the indexes', () => send(applyIndex(entries, [])));
    },

    once: createRedisOnceStore({ redis, prefix: keys.prefix }),

    async drainOutboxes(drainOptions: DrainOptions = {}) {
      const cutoff = drainOptions.before ?? clock() - (drainOptions.minAgeMs ?? DEFAULT_DRAIN_AGE_MS);
      const head = `${keys.prefix}run:{`;
      let finished = 0;
      for await (const found of scanOutboxes()) {
        for (const key of found) {
          if (key.startsWith(head) && key.endsWith('}:outbox')) finished += await drainRun(key.slice(head.length, -'}:outbox'.length), cutoff);
        }
      }
      return finished;
    },
  };
  return store;
}
