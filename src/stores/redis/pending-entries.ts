// Claiming and acknowledging a consumer's pending entries: XACK (and XDEL) once handled, the dead-letter stream
// for entries delivered too often, XAUTOCLAIM of entries a dead consumer left behind, and XCLAIM JUSTID to keep
// the entries this consumer still holds from being claimed while they are merely slow.
import { ensureGroup, isNoGroup } from './consumer-group.js';
import { asClient } from './redis-client.js';
import type { StreamErrorInfo } from './stream-error-info.js';
import { compareIds, parseEntries, text, type Entry, type HeldEntry } from './stream-entries.js';
import type { GroupReaderOptions } from './group-reader-options.js';
import { toStoreError } from './unavailable.js';

/** Redis calls on the entries one consumer holds; each reports its own failures and never throws. */
export interface PendingEntries {
  /** Acknowledges a handled entry; left pending (delivered again) when Redis fails. */
  ack(id: string): Promise<void>;
  /** Copies an entry delivered more than `maxDeliveries` times to `${key}:dead`, then acknowledges it. */
  deadLetter(entry: HeldEntry): Promise<void>;
  /** Takes over at most `count` entries idle for `claimIdleMs`, skipping those `isHeld`; undefined when none or on failure. */
  claimIdle(
    count: number,
    isHeld: (id: string) => boolean,
  ): Promise<{ readonly entries: readonly Entry[]; readonly deliveries: ReadonlyMap<string, number> } | undefined>;
  /** Resets the idle time of the held entries still this consumer's. */
  refresh(ids: readonly string[], isHeld: (id: string) => boolean): Promise<void>;
  /** Creates the group again after Redis said it is gone. */
  recreateGroup(): Promise<void>;
}

export function pendingEntries(options: GroupReaderOptions, report: (info: StreamErrorInfo) => void): PendingEntries {
  return new ConsumerPendingEntries(options, report);
}

type Claimed = { readonly entries: readonly Entry[]; readonly deliveries: ReadonlyMap<string, number> };

/** The pending entries of one consumer (`options.consumer`); holds the XAUTOCLAIM cursor between claims. */
class ConsumerPendingEntries implements PendingEntries {
  readonly #options: GroupReaderOptions;
  readonly #report: (info: StreamErrorInfo) => void;
  readonly #redis: ReturnType<typeof asClient>;
  #cursor = '0-0';

  constructor(options: GroupReaderOptions, report: (info: StreamErrorInfo) => void) {
    this.#options = options;
    this.#report = report;
    this.#redis = asClient(options.redis);
  }

  async ack(id: string): Promise<void> {
    const { key, group } = this.#options;
    try {
      if (this.#options.deleteOnAck) {
        await Promise.all([this.#redis.call('XACK', key, group, id), this.#redis.call('XDEL', key, id)]);
      } else {
        await this.#redis.call('XACK', key, group, id);
      }
    } catch (error) {
      // Left pending: it will be claimed and delivered again (at-least-once).
      this.#report({ error: toStoreError(`acknowledge ${id} on ${key}`, error), phase: 'ack', entryId: id });
    }
  }

  async recreateGroup(): Promise<void> {
    try {
      await ensureGroup(this.#options.redis, this.#options.key, this.#options.group, this.#options.startId);
    } catch (error) {
      this.#report({ error, phase: 'group' });
    }
  }

  async deadLetter(entry: HeldEntry): Promise<void> {
    const { key, group, maxDeliveries } = this.#options;
    try {
      await this.#redis.call(
        'XADD',
        `${key}:dead`,
        'MAXLEN',
        '~',
        10_000,
        '*',
        ...Object.entries(entry.fields).flat(),
        'deadId',
        entry.id,
        'deadGroup',
        group,
        'deadDeliveries',
        entry.deliveries,
      );
      await this.ack(entry.id);
      this.#report({
        error: new Error(
          `Entry ${entry.id} of ${key} was delivered ${entry.deliveries} times (maxDeliveries ${maxDeliveries}); moved to ${key}:dead and acknowledged.`,
        ),
        phase: 'dead-letter',
        entryId: entry.id,
        deliveries: entry.deliveries,
      });
    } catch (error) {
      this.#report({
        error: toStoreError(`dead-letter ${entry.id} of ${key}`, error),
        phase: 'dead-letter',
        entryId: entry.id,
        deliveries: entry.deliveries,
      });
    }
  }

  async claimIdle(count: number, isHeld: (id: string) => boolean): Promise<Claimed | undefined> {
    const { key, group, consumer } = this.#options;
    try {
      const reply = await this.#redis.call(
        'XAUTOCLAIM',
        key,
        group,
        consumer,
        this.#options.claimIdleMs,
        this.#cursor,
        'COUNT',
        count,
      );
      if (!Array.isArray(reply)) return undefined;
      this.#cursor = text(reply[0]) ?? '0-0';
      const entries = parseEntries(reply[1]).filter((entry) => !isHeld(entry.id));
      if (entries.length === 0) return undefined;
      return { entries, deliveries: await this.#deliveryCounts(entries.map((entry) => entry.id)) };
    } catch (error) {
      if (isNoGroup(error)) await this.recreateGroup();
      else this.#report({ error: toStoreError(`claim idle entries of ${key}`, error), phase: 'claim' });
      return undefined;
    }
  }

  async refresh(ids: readonly string[], isHeld: (id: string) => boolean): Promise<void> {
    if (ids.length === 0) return;
    const { key, group, consumer } = this.#options;
    try {
      // Refresh only what is still ours: an entry another consumer claimed
      // while this process stalled stays with it.
      const ours = [...(await this.#deliveryCounts(ids)).keys()].filter(isHeld);
      if (ours.length > 0) await this.#redis.call('XCLAIM', key, group, consumer, 0, ...ours, 'JUSTID');
    } catch (error) {
      this.#report({ error: toStoreError(`refresh the entries held from ${key}`, error), phase: 'heartbeat' });
    }
  }

  /** Delivery counts of entries this consumer now owns, from XPENDING. */
  async #deliveryCounts(ids: readonly string[]): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    if (ids.length === 0) return counts;
    const { key, group, consumer } = this.#options;
    const sorted = [...ids].sort(compareIds);
    // One range query instead of one per id; the range may also hold this
    // consumer's failed entries waiting to be claimed again, hence the slack.
    const reply = await this.#redis.call(
      'XPENDING',
      key,
      group,
      sorted[0]!,
      sorted[sorted.length - 1]!,
      Math.max(ids.length * 4, 1_000),
      consumer,
    );
    if (Array.isArray(reply)) {
      for (const row of reply) {
        if (!Array.isArray(row)) continue;
        const id = text(row[0]);
        const count = Number(row[3]);
        if (id !== undefined && Number.isFinite(count)) counts.set(id, count);
      }
    }
    return counts;
  }
}
