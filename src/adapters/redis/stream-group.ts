// Shared by the event notifier and the resume worker: one consumer of a Redis
// Stream consumer group, at-least-once. Entries are acknowledged only after
// their handler settles; entries a dead consumer left behind are claimed with
// XAUTOCLAIM; entries this consumer still holds are kept fresh with XCLAIM
// JUSTID so nobody claims work that is merely slow.
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import { retryDelay, type RetryPolicy } from '../../delivery/retry.js';
import { ConfigError } from '../../errors.js';
import { toStoreError } from './unavailable.js';

/**
 * An ioredis client: a single `Redis` connection or a `Cluster`.
 *
 * @example
 * const redis: RedisClient = new Redis(process.env.REDIS_URL!);
 */
export type RedisClient = Redis | Cluster;

/**
 * What a stream reader tells `onError` about a problem it handled without stopping.
 *
 * @example
 * createStreamNotifier({ redis, group: 'slack', onError: (info: StreamErrorInfo) => log.warn({ phase: info.phase, entry: info.entryId }, String(info.error)) });
 */
export interface StreamErrorInfo {
  readonly error: unknown;
  /**
   * Where it happened: `'read'`, `'claim'`, `'heartbeat'`, `'ack'` and
   * `'group'` are Redis calls (retried); `'handler'` is the handler rejecting
   * (the entry stays pending and is delivered again once idle for
   * `claimIdleMs`); `'malformed'` is an entry that could not be read (acked);
   * `'dead-letter'` is an entry delivered more than `maxDeliveries` times
   * (copied to the dead-letter stream, then acked).
   */
  readonly phase: 'read' | 'claim' | 'heartbeat' | 'ack' | 'group' | 'handler' | 'malformed' | 'dead-letter';
  /** The stream entry id, when the problem is about one entry. */
  readonly entryId?: string;
  /** How many times the entry has been delivered, counting this time. */
  readonly deliveries?: number;
}

/** The few ioredis calls a reader makes; both `Redis` and `Cluster` have them. */
interface Client {
  call(command: string, ...args: (string | number)[]): Promise<unknown>;
  duplicate(): Client;
  disconnect(): void;
  on(event: 'error', listener: (error: unknown) => void): unknown;
}

export function asClient(redis: RedisClient): Client {
  return redis as unknown as Client;
}

export interface Entry {
  readonly id: string;
  /** Null when the entry was deleted from the stream while it was pending. */
  readonly fields: Readonly<Record<string, string>> | null;
}

export interface HeldEntry {
  readonly id: string;
  readonly fields: Readonly<Record<string, string>>;
  readonly deliveries: number;
}

export function defaultConsumerName(): string {
  return `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
}

function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (value instanceof Uint8Array) return Buffer.from(value).toString('utf8');
  return undefined;
}

function parseFields(raw: unknown): Record<string, string> | null {
  if (!Array.isArray(raw)) return null;
  const fields: Record<string, string> = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = text(raw[i]);
    const value = text(raw[i + 1]);
    if (name !== undefined && value !== undefined) fields[name] = value;
  }
  return fields;
}

/** `[[id, [field, value, ...] | null], ...]` into entries. */
export function parseEntries(raw: unknown): Entry[] {
  if (!Array.isArray(raw)) return [];
  const entries: Entry[] = [];
  for (const item of raw) {
    if (!Array.isArray(item)) continue;
    const id = text(item[0]);
    if (id === undefined) continue;
    entries.push({ id, fields: parseFields(item[1]) });
  }
  return entries;
}

/**
 * The entries of one stream in an XREAD / XREADGROUP reply. RESP2 answers
 * `[[key, entries]]`; RESP3 with ioredis' default "legacy" mapping flattens the
 * map to `[key, entries]`; the "resp3" mapping gives `{ key: entries }`.
 */
export function entriesOfReadReply(reply: unknown): Entry[] {
  if (reply === null || reply === undefined) return [];
  if (Array.isArray(reply)) {
    if (reply.length === 0) return [];
    if (Array.isArray(reply[0])) return reply.flatMap((pair: unknown) => (Array.isArray(pair) ? parseEntries(pair[1]) : []));
    const entries: Entry[] = [];
    for (let i = 0; i + 1 < reply.length; i += 2) entries.push(...parseEntries(reply[i + 1]));
    return entries;
  }
  if (reply instanceof Map) return [...reply.values()].flatMap((value) => parseEntries(value));
  if (typeof reply === 'object') return Object.values(reply).flatMap((value) => parseEntries(value));
  return [];
}

/** How a reader waits while Redis fails: 100 ms, doubling up to 5 s, jittered so instances do not retry in step; it never gives up. */
const REDIS_BACKOFF: RetryPolicy = { maxAttempts: Number.POSITIVE_INFINITY, backoffMs: 100, maxBackoffMs: 5_000 };

/** The wait after `failures` failures in a row (0 for the first), until `signal` aborts. */
export function backOff(failures: number, signal: AbortSignal): Promise<void> {
  return abortable(retryDelay(failures + 2, REDIS_BACKOFF), signal);
}

function abortable(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

export interface GroupReaderOptions {
  readonly redis: RedisClient;
  readonly key: string;
  readonly group: string;
  readonly consumer: string;
  /** Where a group created here starts: `'0'` every entry in the stream, `'$'` only new ones. */
  readonly startId: '0' | '$';
  readonly blockMs: number;
  readonly claimIdleMs: number;
  /** Most entries held (read but not yet settled) at once. */
  readonly batch: number;
  /** Most handlers running at once; entries start in the order they arrived. */
  readonly concurrency: number;
  readonly maxDeliveries: number;
  /** Also XDEL an entry once it is acked (for a stream read by this one group only). */
  readonly deleteOnAck: boolean;
  /** Resolves `true` to ack, `false` to leave the entry pending (already reported); a rejection also leaves it pending. */
  readonly handle: (entry: HeldEntry) => Promise<boolean>;
  readonly onError: (info: StreamErrorInfo) => void;
}

/** Validates the numeric options every reader shares. */
export function checkTiming(name: string, values: Record<string, number | undefined>): void {
  for (const [option, value] of Object.entries(values)) {
    if (value !== undefined && !(Number.isFinite(value) && value > 0)) {
      throw new ConfigError(`${name}: ${option} must be a positive number of milliseconds or a positive count, got ${String(value)}.`);
    }
  }
}

/** XGROUP CREATE … MKSTREAM; an existing group is fine. */
export async function ensureGroup(redis: RedisClient, key: string, group: string, startId: '0' | '$'): Promise<void> {
  try {
    await asClient(redis).call('XGROUP', 'CREATE', key, group, startId, 'MKSTREAM');
  } catch (error) {
    if (error instanceof Error && /BUSYGROUP/.test(error.message)) return;
    if (error instanceof Error && /WRONGTYPE/.test(error.message)) {
      throw new ConfigError(`Cannot create consumer group ${group} on ${key}: ${error.message} The key must be a Redis Stream (or absent).`);
    }
    // Anything else (refused, closed, LOADING, CLUSTERDOWN) is worth retrying.
    throw toStoreError(`create consumer group ${group} on ${key}`, error);
  }
}

/**
 * Runs one consumer of a consumer group until `signal` aborts, then stops
 * reading, waits for every held entry to settle (acking those that succeed)
 * and returns.
 */
export async function runGroupReader(options: GroupReaderOptions, signal: AbortSignal): Promise<void> {
  const { key, group, consumer } = options;
  const redis = asClient(options.redis);
  const held = new Map<string, HeldEntry>();
  const queue: HeldEntry[] = [];
  let running = 0;
  let wake: (() => void) | undefined;
  const notify = () => {
    const resume = wake;
    wake = undefined;
    resume?.();
  };
  const untilRoom = () =>
    new Promise<void>((resolve) => {
      const done = () => {
        signal.removeEventListener('abort', done);
        resolve();
      };
      wake = done;
      signal.addEventListener('abort', done, { once: true });
    });
  const settledAll: Array<() => void> = [];

  const report = (info: StreamErrorInfo) => {
    try {
      options.onError(info);
    } catch {
      // A throwing error hook must not take the reader down.
    }
  };

  // Group setup retries while Redis is unreachable; a wrong key type is thrown.
  for (let attempt = 0; !signal.aborted; attempt++) {
    try {
      await ensureGroup(options.redis, key, group, options.startId);
      break;
    } catch (error) {
      if (error instanceof ConfigError) throw error;
      report({ error, phase: 'group' });
      await backOff(attempt, signal);
    }
  }

  const ack = async (id: string) => {
    try {
      if (options.deleteOnAck) {
        await Promise.all([redis.call('XACK', key, group, id), redis.call('XDEL', key, id)]);
      } else {
        await redis.call('XACK', key, group, id);
      }
    } catch (error) {
      // Left pending: it will be claimed and delivered again (at-least-once).
      report({ error: toStoreError(`acknowledge ${id} on ${key}`, error), phase: 'ack', entryId: id });
    }
  };

  const settle = (id: string) => {
    held.delete(id);
    if (held.size === 0) for (const resolve of settledAll.splice(0)) resolve();
    notify();
  };

  const run = async (entry: HeldEntry) => {
    running++;
    let done = false;
    try {
      done = await options.handle(entry);
    } catch (error) {
      report({ error, phase: 'handler', entryId: entry.id, deliveries: entry.deliveries });
    }
    if (done) await ack(entry.id);
    running--;
    settle(entry.id);
    pump();
  };

  const pump = () => {
    while (running < options.concurrency && queue.length > 0) void run(queue.shift()!);
  };

  const deadLetter = async (entry: HeldEntry) => {
    try {
      await redis.call(
        'XADD', `${key}:dead`, 'MAXLEN', '~', 10_000, '*',
        ...Object.entries(entry.fields).flat(), 'deadId', entry.id, 'deadGroup', group, 'deadDeliveries', entry.deliveries,
      );
      await ack(entry.id);
      report({
        error: new Error(`Entry ${entry.id} of ${key} was delivered ${entry.deliveries} times (maxDeliveries ${options.maxDeliveries}); moved to ${key}:dead and acknowledged.`),
        phase: 'dead-letter',
        entryId: entry.id,
        deliveries: entry.deliveries,
      });
    } catch (error) {
      report({ error: toStoreError(`dead-letter ${entry.id} of ${key}`, error), phase: 'dead-letter', entryId: entry.id, deliveries: entry.deliveries });
    }
    settle(entry.id);
  };

  const accept = (entries: readonly Entry[], deliveries: ReadonlyMap<string, number> | number) => {
    for (const { id, fields } of entries) {
      // Our own entry, still running and refreshed by the heartbeat.
      if (held.has(id)) continue;
      if (fields === null) {
        // Deleted from the stream while pending (trimmed): nothing to deliver.
        void ack(id);
        continue;
      }
      const count = typeof deliveries === 'number' ? deliveries : (deliveries.get(id) ?? 1);
      const entry: HeldEntry = { id, fields, deliveries: count };
      held.set(id, entry);
      if (count > options.maxDeliveries) void deadLetter(entry);
      else queue.push(entry);
    }
    pump();
  };

  /** Delivery counts of entries this consumer now owns, from XPENDING. */
  const deliveryCounts = async (ids: readonly string[]): Promise<Map<string, number>> => {
    const counts = new Map<string, number>();
    if (ids.length === 0) return counts;
    const sorted = [...ids].sort(compareIds);
    // One range query instead of one per id; the range may also hold this
    // consumer's failed entries waiting to be claimed again, hence the slack.
    const reply = await redis.call('XPENDING', key, group, sorted[0]!, sorted[sorted.length - 1]!, Math.max(ids.length * 4, 1_000), consumer);
    if (Array.isArray(reply)) {
      for (const row of reply) {
        if (!Array.isArray(row)) continue;
        const id = text(row[0]);
        const count = Number(row[3]);
        if (id !== undefined && Number.isFinite(count)) counts.set(id, count);
      }
    }
    return counts;
  };

  let cursor = '0-0';
  const claim = async () => {
    const room = options.batch - held.size;
    if (room <= 0 || signal.aborted) return;
    try {
      const reply = await redis.call('XAUTOCLAIM', key, group, consumer, options.claimIdleMs, cursor, 'COUNT', room);
      if (!Array.isArray(reply)) return;
      cursor = text(reply[0]) ?? '0-0';
      const entries = parseEntries(reply[1]).filter((entry) => !held.has(entry.id));
      if (entries.length === 0) return;
      const counts = await deliveryCounts(entries.map((entry) => entry.id));
      if (signal.aborted) {
        // Claimed just as we stopped: left pending for another consumer.
        return;
      }
      accept(entries, counts);
    } catch (error) {
      if (isNoGroup(error)) await recreateGroup();
      else report({ error: toStoreError(`claim idle entries of ${key}`, error), phase: 'claim' });
    }
  };

  const heartbeat = async () => {
    const ids = [...held.keys()];
    if (ids.length === 0) return;
    try {
      // Refresh only what is still ours: an entry another consumer claimed
      // while this process stalled stays with it.
      const ours = [...(await deliveryCounts(ids)).keys()].filter((id) => held.has(id));
      if (ours.length > 0) await redis.call('XCLAIM', key, group, consumer, 0, ...ours, 'JUSTID');
    } catch (error) {
      report({ error: toStoreError(`refresh the entries held from ${key}`, error), phase: 'heartbeat' });
    }
  };

  const recreateGroup = async () => {
    try {
      await ensureGroup(options.redis, key, group, options.startId);
    } catch (error) {
      report({ error, phase: 'group' });
    }
  };

  let claiming = false;
  const claimTick = () => {
    if (claiming) return;
    claiming = true;
    void claim().finally(() => {
      claiming = false;
    });
  };
  let beating = false;
  const beatTick = () => {
    if (beating) return;
    beating = true;
    void heartbeat().finally(() => {
      beating = false;
    });
  };
  const claimTimer = setInterval(claimTick, Math.max(Math.floor(options.claimIdleMs / 2), 10));
  const beatTimer = setInterval(beatTick, Math.max(Math.floor(options.claimIdleMs / 3), 10));
  claimTimer.unref();
  beatTimer.unref();
  claimTick();

  // Blocking reads get their own connection so acks and claims never wait behind them.
  const blocking = redis.duplicate();
  // Read failures are reported from the loop; without a listener ioredis would print them.
  blocking.on('error', () => {});
  const interrupt = () => blocking.disconnect();
  signal.addEventListener('abort', interrupt, { once: true });
  try {
    let failures = 0;
    while (!signal.aborted) {
      const room = options.batch - held.size;
      if (room <= 0) {
        await untilRoom();
        continue;
      }
      let reply: unknown;
      try {
        reply = await blocking.call('XREADGROUP', 'GROUP', group, consumer, 'COUNT', room, 'BLOCK', options.blockMs, 'STREAMS', key, '>');
        failures = 0;
      } catch (error) {
        if (signal.aborted) break;
        if (isNoGroup(error)) {
          await recreateGroup();
        } else {
          report({ error: toStoreError(`read ${key}`, error), phase: 'read' });
          await backOff(failures++, signal);
        }
        continue;
      }
      accept(entriesOfReadReply(reply), 1);
    }
  } finally {
    signal.removeEventListener('abort', interrupt);
    blocking.disconnect();
    clearInterval(claimTimer);
    // Drain: every entry already held runs to the end and is acked; the
    // heartbeat keeps them ours meanwhile.
    pump();
    if (held.size > 0) await new Promise<void>((resolve) => settledAll.push(resolve));
    clearInterval(beatTimer);
  }
}

function isNoGroup(error: unknown): boolean {
  return error instanceof Error && /NOGROUP/.test(error.message);
}

/** Orders stream ids (`ms-seq`) numerically. */
export function compareIds(a: string, b: string): number {
  const [aMs = 0n, aSeq = 0n] = a.split('-').map((part) => BigInt(part));
  const [bMs = 0n, bSeq = 0n] = b.split('-').map((part) => BigInt(part));
  if (aMs !== bMs) return aMs < bMs ? -1 : 1;
  if (aSeq !== bSeq) return aSeq < bSeq ? -1 : 1;
  return 0;
}
