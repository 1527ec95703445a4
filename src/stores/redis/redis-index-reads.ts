/**
 * Reading the Redis store's global indexes (pending approvals, running runs).
 * They live outside the runs' slots, so they are hints: every read checks a
 * member against its run's head and removes what no longer holds.
 */
import type { Cluster, Redis } from 'ioredis';
import type { ListPendingOptions, PendingApprovalEntry, PendingPage } from '../../index.js';
import { runNextNudgeAt } from '../../kit/index.js';
import { expiredBound, padExpiry, parsePendingMember, type RedisKeys } from './keys.js';
import { sendBatch, type BatchCommand } from './redis-batch.js';
import {
  decodeCursor,
  decodeIndex,
  encodeCursor,
  indexedHead,
  pageLimit,
  parseRunningMember,
  type IndexedHead,
  type StoredHead,
} from './redis-encoding.js';
import type { Outbox } from './redis-outbox.js';
import { guarded } from './unavailable.js';

export interface IndexReads {
  listPending(options: ListPendingOptions): Promise<PendingPage>;
  /** Runs with a pending request whose `expiresAt` is at or before `now`. */
  expiredRuns(now: number, limit: number): Promise<string[]>;
  /** Running runs whose leases all ended by `now`, or idle since before `staleBefore`. */
  abandonedRuns(now: number, staleBefore: number, limit: number): Promise<string[]>;
  /** Waiting runs with a reminder or escalation due at or before `now`. */
  nudgeDueRuns(now: number, limit: number): Promise<string[]>;
}

export function createIndexReads(
  redis: Redis | Cluster,
  keys: RedisKeys,
  outbox: Pick<Outbox, 'applyIndex'>,
): IndexReads {
  return new RedisIndexReads(redis, keys, outbox);
}

/** The request a pending member stands for, if its run still waits for it. */
function pendingRequest(member: string, heads: Map<string, StoredHead | undefined>) {
  const parsed = parsePendingMember(member);
  const stored = parsed && heads.get(parsed.runId);
  if (!parsed || !stored || stored.head.status !== 'awaitingApproval') return undefined;
  const request = stored.head.pendingApprovals.find((item) => item.approvalId === parsed.approvalId);
  if (!request || padExpiry(request.expiresAt ?? Number.MAX_SAFE_INTEGER) !== parsed.expiry) return undefined;
  const { runId, agentName, sessionId, requestedBy } = stored.head;
  return {
    runId,
    agentName,
    ...(sessionId === undefined ? {} : { sessionId }),
    ...(requestedBy === undefined ? {} : { requestedBy }),
    request,
  };
}

/** The index reads over one client, its keys, and the outbox that says what a run's commit indexes. */
class RedisIndexReads implements IndexReads {
  readonly #redis: Redis | Cluster;
  readonly #keys: RedisKeys;
  readonly #outbox: Pick<Outbox, 'applyIndex'>;

  constructor(redis: Redis | Cluster, keys: RedisKeys, outbox: Pick<Outbox, 'applyIndex'>) {
    this.#redis = redis;
    this.#keys = keys;
    this.#outbox = outbox;
  }

  async listPending(listOptions: ListPendingOptions): Promise<PendingPage> {
    const redis = this.#redis;
    const keys = this.#keys;
    const limit = pageLimit(listOptions.limit);
    const { agent, sessionId } = listOptions;
    // A session's index is the smallest; with an agent too, its members are filtered by the agent their member names.
    const key =
      sessionId !== undefined
        ? keys.pendingSession(sessionId)
        : agent !== undefined
          ? keys.pendingAgent(agent)
          : keys.pending;
    const wanted = (member: string) =>
      sessionId === undefined || agent === undefined || parsePendingMember(member)?.agentName === agent;
    let start = listOptions.cursor === undefined ? '-' : `(${decodeCursor(listOptions.cursor)}`;
    const items: { member: string; entry: PendingApprovalEntry }[] = [];
    const stale: string[] = [];
    let exhausted = false;
    let lastScanned: string | undefined;
    // Stale members (a run that stopped waiting) are skipped and removed; a bounded number of reads keeps a page cheap.
    for (let round = 0; round < 8 && items.length <= limit; round++) {
      // Read a little ahead, more each round, so a run of stale entries costs a few round trips, not one per entry.
      const want = round === 0 ? limit + 1 : Math.min(Math.max(limit + 1 - items.length, 25 << round), 1000);
      const members = await guarded('list pending approvals', () =>
        redis.zrangebylex(key, start, '+', 'LIMIT', 0, want),
      );
      if (members.length === 0) {
        exhausted = true;
        break;
      }
      const heads = await this.#readHeads(members.flatMap((member) => parsePendingMember(member)?.runId ?? []));
      for (const member of members) {
        const entry = pendingRequest(member, heads);
        if (!entry) stale.push(member);
        else if (wanted(member)) items.push({ member, entry });
        lastScanned = member;
        if (items.length > limit) break;
      }
      start = `(${lastScanned!}`;
      if (items.length <= limit && members.length < want) {
        exhausted = true;
        break;
      }
    }
    if (stale.length > 0) await guarded('repair the pending index', () => this.#send(this.#removePending(stale, key)));
    const page = items.slice(0, limit);
    const cursor = items.length > limit ? page.at(-1)!.member : exhausted ? undefined : lastScanned;
    return { items: page.map((item) => item.entry), ...(cursor === undefined ? {} : { cursor: encodeCursor(cursor) }) };
  }

  async expiredRuns(now: number, limit: number): Promise<string[]> {
    const due: string[] = [];
    const stale: string[] = [];
    let start = '-';
    for (let round = 0; round < 8 && due.length < limit; round++) {
      const batch = Math.max(limit - due.length, 50);
      const members = await guarded('list expired approvals', () =>
        this.#redis.zrangebylex(this.#keys.pending, start, expiredBound(now), 'LIMIT', 0, batch),
      );
      if (members.length === 0) break;
      const heads = await this.#readHeads(members.flatMap((member) => parsePendingMember(member)?.runId ?? []));
      for (const member of members) {
        const entry = pendingRequest(member, heads);
        if (!entry) stale.push(member);
        else if (
          entry.request.expiresAt !== undefined &&
          entry.request.expiresAt <= now &&
          !due.includes(entry.runId) &&
          due.length < limit
        )
          due.push(entry.runId);
      }
      start = `(${members.at(-1)!}`;
      if (members.length < batch) break;
    }
    if (stale.length > 0) await guarded('repair the pending index', () => this.#send(this.#removePending(stale)));
    return due;
  }

  async abandonedRuns(now: number, staleBefore: number, limit: number): Promise<string[]> {
    const due: string[] = [];
    const abandoned = (head: IndexedHead) => {
      const leased = head.toolCalls.filter((record) => record.status === 'executing');
      return leased.length > 0
        ? leased.every((record) => (record.lease?.until ?? 0) <= now)
        : head.updatedAt < staleBefore;
    };
    await this.#scoredRuns(this.#keys.runningLease, String(now), 'running', abandoned, due, limit);
    await this.#scoredRuns(this.#keys.runningIdle, `(${staleBefore}`, 'running', abandoned, due, limit);
    return due;
  }

  async nudgeDueRuns(now: number, limit: number): Promise<string[]> {
    const due: string[] = [];
    await this.#scoredRuns(
      this.#keys.nudges,
      String(now),
      'awaitingApproval',
      (head) => (runNextNudgeAt(head) ?? Number.POSITIVE_INFINITY) <= now,
      due,
      limit,
    );
    return due;
  }

  #send(commands: readonly BatchCommand[]) {
    return sendBatch(this.#redis, commands);
  }

  async #readHeads(runIds: Iterable<string>): Promise<Map<string, StoredHead | undefined>> {
    const unique = [...new Set(runIds)];
    const replies = (await guarded('read run heads', () =>
      this.#send(unique.map((runId): BatchCommand => ['hmget', this.#keys.head(runId), 'v', 'h', 'x'])),
    )) as (string | null)[][];
    const heads = new Map<string, StoredHead | undefined>();
    unique.forEach((runId, index) => {
      const [version, head, indexText] = replies[index]!;
      heads.set(
        runId,
        version == null || head == null
          ? undefined
          : { version: Number(version), head: indexedHead(head), index: indexText ?? '' },
      );
    });
    return heads;
  }

  /**
   * Removes stale members from the global index and from the agent's and session's indexes each member names, and
   * from `scanned` when given (a session's index, whose members written before they named the session do not).
   */
  #removePending(stale: readonly string[], scanned?: string): BatchCommand[] {
    const keys = this.#keys;
    const byKey = new Map<string, string[]>();
    for (const member of stale) {
      const parsed = parsePendingMember(member);
      const named = parsed
        ? [
            keys.pendingAgent(parsed.agentName),
            ...(parsed.sessionId === undefined ? [] : [keys.pendingSession(parsed.sessionId)]),
          ]
        : [];
      const from = new Set([keys.pending, ...named, ...(scanned === undefined ? [] : [scanned])]);
      for (const key of from) byKey.set(key, [...(byKey.get(key) ?? []), member]);
    }
    return [...byKey].map(([key, members]): BatchCommand => ['zrem', key, ...members]);
  }

  /**
   * Adds to `due` (up to `limit`) the runs of a versioned sorted set (`running:*`, `nudges`) scored at or below
   * `max` whose head is at the member's version, in `status`, and `isDue`; a member from an older commit is dropped
   * and what the run's current commit indexes is put back.
   */
  async #scoredRuns(
    key: string,
    max: string,
    status: IndexedHead['status'],
    isDue: (head: IndexedHead) => boolean,
    due: string[],
    limit: number,
  ): Promise<void> {
    let offset = 0;
    for (let round = 0; round < 8 && due.length < limit; round++) {
      const batch = Math.max(limit - due.length, 50);
      const members = await guarded('list indexed runs', () =>
        this.#redis.zrangebyscore(key, '-inf', max, 'LIMIT', offset, batch),
      );
      if (members.length === 0) break;
      const parsed = members.map((member) => ({ member, run: parseRunningMember(member) }));
      const heads = await this.#readHeads(parsed.flatMap((item) => item.run?.runId ?? []));
      const repairs: BatchCommand[] = [];
      for (const { member, run } of parsed) {
        const stored = run && heads.get(run.runId);
        if (!run || !stored || stored.version !== run.version || stored.head.status !== status) {
          // A hint from an older commit: drop it and put back what the run's current commit indexes.
          repairs.push(['zrem', key, member], ...this.#outbox.applyIndex([], decodeIndex(stored?.index)));
          continue;
        }
        offset++;
        if (isDue(stored.head) && !due.includes(run.runId) && due.length < limit) due.push(run.runId);
      }
      await guarded('repair the run indexes', () => this.#send(repairs));
      if (members.length < batch) break;
    }
  }
}
