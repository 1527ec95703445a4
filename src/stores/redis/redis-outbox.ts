/**
 * A run's outbox: what a commit still has to publish (its events, to the
 * stream) and index (the pending and running sets) after its script landed.
 * `finish` does it right after the commit; `drain` finishes what a process
 * that died in between left behind.
 */
import type { Cluster, Redis } from 'ioredis';
import type { RunEvent } from '../../index.js';
import { globEscape, type RedisKeys } from './keys.js';
import { sendBatch, type BatchCommand } from './redis-batch.js';
import { decodeIndex, type IndexEntry } from './redis-encoding.js';
import { addEventCommand } from './stream-event-entry.js';
import { guarded, toStoreError } from './unavailable.js';

export interface Outbox {
  /** ZREM what left the index, ZADD what joined it, grouped per key; an entry with its run keys' TTL is indexed again with it. */
  applyIndex(previous: readonly IndexEntry[], next: readonly IndexEntry[]): BatchCommand[];
  /**
   * Publishes a commit's events and updates the indexes, then clears its
   * outbox field. Failures go to `report` and are left for `drain`. Resolves
   * once the events are in the stream; clearing the field is not awaited (a
   * commit costs two round trips, not three): if it is lost, a later drain
   * publishes the events again, which at-least-once readers already expect.
   */
  finish(runId: string, field: string, events: readonly RunEvent[], previous: string, index: string): Promise<void>;
  /** Finishes every outbox entry written at or before `cutoff` (ms since the epoch), in every run; returns how many. */
  drain(cutoff: number): Promise<number>;
}

export interface OutboxOptions {
  readonly redis: Redis | Cluster;
  readonly keys: RedisKeys;
  /** The connection's own ioredis `keyPrefix`, which SCAN patterns and results do not get. */
  readonly connectionPrefix: string;
  /** Where a failed `finish` is reported. */
  readonly report: (error: Error) => void;
}

export function createOutbox(options: OutboxOptions): Outbox {
  const { redis, keys, report } = options;
  const applyIndex = (previous: readonly IndexEntry[], next: readonly IndexEntry[]): BatchCommand[] =>
    indexCommands(keys, previous, next);

  const finish = async (runId: string, field: string, events: readonly RunEvent[], previous: string, index: string) => {
    const failed = (error: unknown) =>
      report(
        toStoreError('finish a commit (its events and index updates stay in the outbox for drainOutboxes)', error),
      );
    try {
      await sendBatch(redis, [
        ...applyIndex(decodeIndex(previous), decodeIndex(index)),
        ...events.map((event) => addEventCommand(keys.events, event)),
      ]);
    } catch (error) {
      failed(error);
      return;
    }
    redis.hdel(keys.outbox(runId), field).catch(failed);
  };

  const drain = async (cutoff: number): Promise<number> => {
    const head = `${keys.prefix}run:{`;
    let finished = 0;
    for await (const found of scanOutboxes(options)) {
      for (const key of found) {
        if (key.startsWith(head) && key.endsWith('}:outbox'))
          finished += await drainRun(options, key.slice(head.length, -'}:outbox'.length), cutoff);
      }
    }
    return finished;
  };

  return { applyIndex, finish, drain };
}

/** `Outbox.applyIndex`: the commands that take the indexes from `previous` to `next`. */
function indexCommands(keys: RedisKeys, previous: readonly IndexEntry[], next: readonly IndexEntry[]): BatchCommand[] {
  const id = (entry: IndexEntry) => `${entry[0]}\u0000${entry[2]}`;
  const nextIds = new Set(next.map(id));
  const previousExact = new Set(previous.map((entry) => `${id(entry)}\u0000${entry[1]}`));
  const removals = new Map<string, string[]>();
  const additions = new Map<string, (string | number)[]>();
  for (const entry of previous)
    if (!nextIds.has(id(entry))) removals.set(entry[0], [...(removals.get(entry[0]) ?? []), entry[2]]);
  const keptAlive: BatchCommand[] = [];
  for (const entry of next) {
    const [key, score, member, keysTtlMs] = entry;
    // Every time, like the commit script: the run's keys may now live longer than when the member was added.
    if (keysTtlMs !== undefined) keptAlive.push(['countersignIndexMember', keys.full(key), score, member, keysTtlMs]);
    else if (!previousExact.has(`${id(entry)}\u0000${score}`))
      additions.set(key, [...(additions.get(key) ?? []), score, member]);
  }
  return [
    ...[...removals].map(([key, members]): BatchCommand => ['zrem', keys.full(key), ...members]),
    ...[...additions].map(([key, pairs]): BatchCommand => ['zadd', keys.full(key), ...pairs]),
    ...keptAlive,
  ];
}

/** Finishes one run's outbox entries written at or before `cutoff`, oldest first; returns how many. */
async function drainRun({ redis, keys }: OutboxOptions, runId: string, cutoff: number): Promise<number> {
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
    const events = meta.events ?? [];
    await guarded('publish an outbox', () =>
      sendBatch(redis, [
        ...indexCommands(keys, decodeIndex(previous), decodeIndex(index)),
        ...events.map((event) => addEventCommand(keys.events, event)),
      ]),
    );
    await guarded('clear an outbox', () => redis.hdel(keys.outbox(runId), field));
    finished++;
  }
  // Put back what the run's latest commit indexes, in case an older entry just removed it (a stale extra is only a hint).
  if (finished > 0)
    await guarded('repair the indexes', () => sendBatch(redis, indexCommands(keys, [], decodeIndex(currentIndex))));
  return finished;
}

/** The outbox keys on every primary, a SCAN page at a time, without the connection's own prefix. */
async function* scanOutboxes({ redis, keys, connectionPrefix }: OutboxOptions): AsyncGenerator<string[]> {
  const nodes: (Redis | Cluster)[] = redis.isCluster ? (redis as Cluster).nodes('master') : [redis];
  const pattern = `${globEscape(connectionPrefix)}${keys.outboxPattern}`;
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [nextCursor, found] = await guarded('scan the outboxes', () =>
        (node as Redis).scan(cursor, 'MATCH', pattern, 'COUNT', 1000, 'TYPE', 'hash'),
      );
      cursor = nextCursor;
      if (found.length > 0) yield found.map((key) => key.slice(connectionPrefix.length));
    } while (cursor !== '0');
  }
}
