// Shared by the event notifier and the resume worker: one consumer of a Redis
// Stream consumer group, at-least-once. Entries are acknowledged only after
// their handler settles; entries a dead consumer left behind are claimed, and
// entries this consumer still holds are kept fresh (pending-entries.ts) so
// nobody claims work that is merely slow.
import { ConfigError } from '../../errors.js';
import { ensureGroup, isNoGroup } from './consumer-group.js';
import { guardedHook } from './error-hook.js';
import { pendingEntries, type PendingEntries } from './pending-entries.js';
import { backOff } from './redis-backoff.js';
import { asClient } from './redis-client.js';
import type { StreamErrorInfo } from './stream-error-info.js';
import { entriesOfReadReply, type Entry, type HeldEntry } from './stream-entries.js';
import { toStoreError } from './unavailable.js';
import type { GroupReaderOptions } from './group-reader-options.js';

/**
 * Runs one consumer of a consumer group until `signal` aborts, then stops
 * reading, waits for every held entry to settle (acking those that succeed)
 * and returns.
 */
export async function runGroupReader(options: GroupReaderOptions, signal: AbortSignal): Promise<void> {
  const report = guardedHook(options.onError);
  const reader = new GroupReader(options, signal, report);
  await setUpGroup(options, signal, report);
  await reader.run();
}

/** Group setup retries while Redis is unreachable; a wrong key type is thrown. */
async function setUpGroup(
  options: GroupReaderOptions,
  signal: AbortSignal,
  report: (info: StreamErrorInfo) => void,
): Promise<void> {
  for (let attempt = 0; !signal.aborted; attempt++) {
    try {
      await ensureGroup(options.redis, options.key, options.group, options.startId);
      return;
    } catch (error) {
      if (error instanceof ConfigError) throw error;
      report({ error, phase: 'group' });
      await backOff(attempt, signal);
    }
  }
}

/** Returns a tick that runs `task` unless its previous run is still going. */
function everyTick(task: () => Promise<void>): () => void {
  let busy = false;
  return () => {
    if (busy) return;
    busy = true;
    void task().finally(() => {
      busy = false;
    });
  };
}

/** One consumer's state: the entries it holds, those queued to run, and the handlers running. */
class GroupReader {
  readonly #options: GroupReaderOptions;
  readonly #signal: AbortSignal;
  readonly #report: (info: StreamErrorInfo) => void;
  readonly #pending: PendingEntries;
  readonly #held = new Map<string, HeldEntry>();
  readonly #queue: HeldEntry[] = [];
  readonly #settledAll: Array<() => void> = [];
  #running = 0;
  #wake: (() => void) | undefined;
  readonly #isHeld = (id: string) => this.#held.has(id);

  constructor(options: GroupReaderOptions, signal: AbortSignal, report: (info: StreamErrorInfo) => void) {
    this.#options = options;
    this.#signal = signal;
    this.#report = report;
    this.#pending = pendingEntries(options, report);
  }

  /** Claims and heartbeats on timers, reads until aborted, then drains. */
  async run(): Promise<void> {
    const { claimIdleMs } = this.#options;
    const claimTick = everyTick(() => this.#claim());
    const claimTimer = setInterval(claimTick, Math.max(Math.floor(claimIdleMs / 2), 10));
    const beatTimer = setInterval(
      everyTick(() => this.#pending.refresh([...this.#held.keys()], this.#isHeld)),
      Math.max(Math.floor(claimIdleMs / 3), 10),
    );
    claimTimer.unref();
    beatTimer.unref();
    claimTick();

    // Blocking reads get their own connection so acks and claims never wait behind them.
    const blocking = asClient(this.#options.redis).duplicate();
    // Read failures are reported from the loop; without a listener ioredis would print them.
    blocking.on('error', () => {});
    const interrupt = () => blocking.disconnect();
    this.#signal.addEventListener('abort', interrupt, { once: true });
    try {
      await this.#readLoop(blocking);
    } finally {
      this.#signal.removeEventListener('abort', interrupt);
      blocking.disconnect();
      clearInterval(claimTimer);
      // Drain: every entry already held runs to the end and is acked; the
      // heartbeat keeps them ours meanwhile.
      this.#pump();
      if (this.#held.size > 0) await new Promise<void>((resolve) => this.#settledAll.push(resolve));
      clearInterval(beatTimer);
    }
  }

  async #readLoop(blocking: ReturnType<typeof asClient>): Promise<void> {
    const { key, group, consumer } = this.#options;
    let failures = 0;
    while (!this.#signal.aborted) {
      const room = this.#options.batch - this.#held.size;
      if (room <= 0) {
        await this.#untilRoom();
        continue;
      }
      let reply: unknown;
      try {
        reply = await blocking.call(
          'XREADGROUP',
          'GROUP',
          group,
          consumer,
          'COUNT',
          room,
          'BLOCK',
          this.#options.blockMs,
          'STREAMS',
          key,
          '>',
        );
        failures = 0;
      } catch (error) {
        if (this.#signal.aborted) break;
        if (isNoGroup(error)) {
          await this.#pending.recreateGroup();
        } else {
          this.#report({ error: toStoreError(`read ${key}`, error), phase: 'read' });
          await backOff(failures++, this.#signal);
        }
        continue;
      }
      this.#accept(entriesOfReadReply(reply), 1);
    }
  }

  #notify(): void {
    const resume = this.#wake;
    this.#wake = undefined;
    resume?.();
  }

  #untilRoom(): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        this.#signal.removeEventListener('abort', done);
        resolve();
      };
      this.#wake = done;
      this.#signal.addEventListener('abort', done, { once: true });
    });
  }

  #settle(id: string): void {
    this.#held.delete(id);
    if (this.#held.size === 0) for (const resolve of this.#settledAll.splice(0)) resolve();
    this.#notify();
  }

  async #run(entry: HeldEntry): Promise<void> {
    this.#running++;
    let done = false;
    try {
      done = await this.#options.handle(entry);
    } catch (error) {
      this.#report({ error, phase: 'handler', entryId: entry.id, deliveries: entry.deliveries });
    }
    if (done) await this.#pending.ack(entry.id);
    this.#running--;
    this.#settle(entry.id);
    this.#pump();
  }

  #pump(): void {
    while (this.#running < this.#options.concurrency && this.#queue.length > 0) void this.#run(this.#queue.shift()!);
  }

  #accept(entries: readonly Entry[], deliveries: ReadonlyMap<string, number> | number): void {
    for (const { id, fields } of entries) {
      // Our own entry, still running and refreshed by the heartbeat.
      if (this.#held.has(id)) continue;
      if (fields === null) {
        // Deleted from the stream while pending (trimmed): nothing to deliver.
        void this.#pending.ack(id);
        continue;
      }
      const count = typeof deliveries === 'number' ? deliveries : (deliveries.get(id) ?? 1);
      const entry: HeldEntry = { id, fields, deliveries: count };
      this.#held.set(id, entry);
      if (count > this.#options.maxDeliveries) void this.#pending.deadLetter(entry).then(() => this.#settle(id));
      else this.#queue.push(entry);
    }
    this.#pump();
  }

  async #claim(): Promise<void> {
    const room = this.#options.batch - this.#held.size;
    if (room <= 0 || this.#signal.aborted) return;
    const claimed = await this.#pending.claimIdle(room, this.#isHeld);
    // Claimed just as we stopped: left pending for another consumer.
    if (claimed && !this.#signal.aborted) this.#accept(claimed.entries, claimed.deliveries);
  }
}
