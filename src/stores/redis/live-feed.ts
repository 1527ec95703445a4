// The live feed of the event stream behind `subscribe`: one XREAD loop per notifier while anyone listens, no
// consumer group and no acknowledgements, every listener told of each event written while it is subscribed.
import { backOff } from './redis-backoff.js';
import { asClient, type RedisClient } from './redis-client.js';
import type { StreamErrorInfo } from './stream-error-info.js';
import { entriesOfReadReply, type Entry } from './stream-entries.js';
import { parseEventEntry } from './stream-event-entry.js';
import type { StreamEventListener } from './stream-notifier-options.js';
import { toStoreError } from './unavailable.js';

export interface LiveFeed {
  /** Adds a listener, starting the read loop for the first one; returns a function that removes it (the last one stops the loop). */
  subscribe(listener: StreamEventListener): () => void;
  /** Removes every listener and waits for the read loop to stop. */
  close(): Promise<void>;
}

/** What a live feed reads and where it reports. */
interface LiveFeedOptions {
  readonly redis: RedisClient;
  readonly key: string;
  readonly batch: number;
  readonly blockMs: number;
  readonly report: (info: StreamErrorInfo) => void;
}

export function createLiveFeed(options: LiveFeedOptions): LiveFeed {
  const listeners = new Set<StreamEventListener>();
  let tail: { controller: AbortController; done: Promise<void> } | undefined;

  const stopTail = () => {
    const current = tail;
    tail = undefined;
    current?.controller.abort();
    return current?.done ?? Promise.resolve();
  };

  return {
    subscribe(listener) {
      listeners.add(listener);
      if (!tail) {
        const controller = new AbortController();
        // A second back covers the connection's start and a little clock skew with the Redis server.
        tail = { controller, done: runTail(options, listeners, controller.signal, Date.now() - 1_000) };
      }
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0) void stopTail();
      };
    },
    close() {
      listeners.clear();
      return stopTail();
    },
  };
}

/** Reads the stream from entries written at `sinceMs` on, for the live listeners, until `signal` aborts. */
async function runTail(
  options: LiveFeedOptions,
  listeners: ReadonlySet<StreamEventListener>,
  signal: AbortSignal,
  sinceMs: number,
): Promise<void> {
  const { key, batch, blockMs, report } = options;
  const connection = asClient(options.redis).duplicate();
  connection.on('error', () => {});
  const interrupt = () => connection.disconnect();
  signal.addEventListener('abort', interrupt, { once: true });
  try {
    // Entry ids start with the time they were written. Starting from the time of
    // the subscribe call (not from the newest entry once connected, nor '$' on
    // every read) loses nothing written while the connection comes up.
    let last = `${Math.max(0, sinceMs)}-0`;
    let failures = 0;
    while (!signal.aborted) {
      try {
        const reply = await connection.call('XREAD', 'COUNT', batch, 'BLOCK', blockMs, 'STREAMS', key, last);
        failures = 0;
        for (const entry of entriesOfReadReply(reply)) {
          last = entry.id;
          tell(listeners, entry, report);
        }
      } catch (error) {
        if (signal.aborted) break;
        report({ error: toStoreError(`read ${key}`, error), phase: 'read' });
        await backOff(failures++, signal);
      }
    }
  } finally {
    signal.removeEventListener('abort', interrupt);
    connection.disconnect();
  }
}

/** Tells every listener of the event in `entry`; a malformed entry and a throwing listener are reported. */
function tell(
  listeners: ReadonlySet<StreamEventListener>,
  entry: Entry,
  report: (info: StreamErrorInfo) => void,
): void {
  if (entry.fields === null) return;
  const event = parseEventEntry(entry.fields);
  if (event instanceof Error) {
    report({ error: event, phase: 'malformed', entryId: entry.id });
    return;
  }
  for (const listener of [...listeners]) {
    try {
      listener(event, { id: entry.id });
    } catch (error) {
      report({ error, phase: 'handler', entryId: entry.id });
    }
  }
}
