// Shared by the event notifier and the resume worker: one consumer of a Redis
// Stream consumer group, at-least-once. Entries are acknowledged only after
// their handler settles; entries a dead consumer left behind are claimed, and
// entries this consumer still holds are kept fresh (pending-entries.ts) so
// nobody claims work that is merely slow.
import { ConfigError } from '../../errors.js';
import { ensureGroup, isNoGroup } from './consumer-group.js';
import { guardedHook } from './error-hook.js';
import { pendingEntries } from './pending-entries.js';
import { backOff } from './redis-backoff.js';
import { asClient } from './redis-client.js';
import { entriesOfReadReply, type Entry, type HeldEntry } from './stream-entries.js';
import { toStoreError } from './unavailable.js';
import type { GroupReaderOptions } from './group-reader-options.js';

/**
 * Runs one consumer of a consumer group until `signal` aborts, then stops
 * reading, waits for every held entry to settle (acking those that succeed)
 * and returns.
 */
export async function runGroupReader(options: GroupReaderOptions, signal: AbortSignal): Promise<void> {
  const { key, group, consumer } = options;
  const redis = asClient(options.redis);
  const held = new Map<string, HeldEntry>();
  const isHeld = (id: string) => held.has(id);
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
  const report = guardedHook(options.onError);
  const pending = pendingEntries(options, report);

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
    if (done) await pending.ack(entry.id);
    running--;
    settle(entry.id);
    pump();
  };

  const pump = () => {
    while (running < options.concurrency && queue.length > 0) void run(queue.shift()!);
  };

  const accept = (entries: readonly Entry[], deliveries: ReadonlyMap<string, number> | number) => {
    for (const { id, fields } of entries) {
      // Our own entry, still running and refreshed by the heartbeat.
      if (held.has(id)) continue;
      if (fields === null) {
        // Deleted from the stream while pending (trimmed): nothing to deliver.
        void pending.ack(id);
        continue;
      }
      const count = typeof deliveries === 'number' ? deliveries : (deliveries.get(id) ?? 1);
      const entry: HeldEntry = { id, fields, deliveries: count };
      held.set(id, entry);
      if (count > options.maxDeliveries) void pending.deadLetter(entry).then(() => settle(id));
      else queue.push(entry);
    }
    pump();
  };

  const claim = async () => {
    const room = options.batch - held.size;
    if (room <= 0 || signal.aborted) return;
    const claimed = await pending.claimIdle(room, isHeld);
    // Claimed just as we stopped: left pending for another consumer.
    if (claimed && !signal.aborted) accept(claimed.entries, claimed.deliveries);
  };

  /** Runs `task` unless its previous run is still going. */
  const everyTick = (task: () => Promise<void>) => {
    let busy = false;
    return () => {
      if (busy) return;
      busy = true;
      void task().finally(() => {
        busy = false;
      });
    };
  };
  const claimTick = everyTick(claim);
  const claimTimer = setInterval(claimTick, Math.max(Math.floor(options.claimIdleMs / 2), 10));
  const beatTimer = setInterval(
    everyTick(() => pending.refresh([...held.keys()], isHeld)),
    Math.max(Math.floor(options.claimIdleMs / 3), 10),
  );
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
          await pending.recreateGroup();
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
