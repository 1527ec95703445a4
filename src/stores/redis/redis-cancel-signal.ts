// Cancel notices through Redis pub/sub: one PUBLISH per cancel, and one subscribed connection per process while
// anyone listens (opened for the first listener, closed with the last).
import type { Cluster, Redis } from 'ioredis';
import { z } from 'zod';
import type { CancelNotice, CancelSignal } from '../../index.js';
import type { RedisClient } from './redis-client.js';
import { guarded } from './unavailable.js';

const noticeSchema = z.object({ runId: z.string().min(1).max(256), reason: z.string().max(10_000) });

/** How often the listening connection is pinged by default (ms). */
export const DEFAULT_CANCEL_HEARTBEAT_MS = 10_000;

/**
 * A `CancelSignal` on `channel` of `redis` (a Cluster broadcasts a PUBLISH to every node, so any node's subscriber
 * hears it). The listening connection is pinged every `heartbeatMs`: one that has not answered the previous ping
 * went quiet without closing (half-open), so it is dropped and made again, and listeners are told they may have
 * missed notices.
 */
export function createRedisCancelSignal(
  redis: RedisClient,
  channel: string,
  heartbeatMs = DEFAULT_CANCEL_HEARTBEAT_MS,
): CancelSignal {
  const listeners = new Set<(notice: CancelNotice) => void>();
  const gapListeners = new Set<() => void>();
  let session: Subscriber | undefined;

  const close = (current: typeof session) => {
    if (current === undefined || session !== current) return;
    session = undefined;
    clearInterval(current.heartbeat);
    current.connection.disconnect();
  };

  const open = () =>
    openSubscriber(redis, channel, heartbeatMs, {
      message: (from, message) => {
        if (from !== channel) return;
        const notice = parseNotice(message);
        if (notice) callEach(listeners, (listener) => listener(notice));
      },
      missed: () => callEach(gapListeners, (missed) => missed()),
    });

  return {
    async publish(notice) {
      await guarded('publish a cancel', () =>
        redis.publish(channel, JSON.stringify({ runId: notice.runId, reason: notice.reason })),
      );
    },
    async listen(listener, missed) {
      const entry = (notice: CancelNotice) => listener(notice);
      const gap = () => missed?.();
      listeners.add(entry);
      gapListeners.add(gap);
      session ??= open();
      const current = session;
      const stop = () => {
        listeners.delete(entry);
        gapListeners.delete(gap);
        if (listeners.size === 0) close(current);
      };
      try {
        await current.ready;
      } catch (error) {
        stop();
        close(current);
        throw error;
      }
      return stop;
    },
  };
}

/** The one subscribed connection of a process, its heartbeat, and the first SUBSCRIBE. */
interface Subscriber {
  readonly connection: Redis;
  readonly ready: Promise<unknown>;
  readonly heartbeat: NodeJS.Timeout;
}

/** A notice from a message on the channel; undefined when it is not JSON or not a notice. */
function parseNotice(message: string): CancelNotice | undefined {
  let parsed: ReturnType<typeof noticeSchema.safeParse>;
  try {
    parsed = noticeSchema.safeParse(JSON.parse(message));
  } catch {
    return undefined;
  }
  return parsed.success ? parsed.data : undefined;
}

/** Calls `call` on each of (a copy of) `listeners`: one listener's failure must not keep the call from the others. */
function callEach<Listener>(listeners: ReadonlySet<Listener>, call: (listener: Listener) => void): void {
  for (const listener of [...listeners]) {
    try {
      call(listener);
    } catch {
      // The listener's failure is its own.
    }
  }
}

/**
 * Opens a subscribed connection to `channel`: `on.message` gets its messages, `on.missed` runs after a reconnect
 * once subscribed again (confirmed), since notices may have gone by meanwhile.
 */
function openSubscriber(
  redis: RedisClient,
  channel: string,
  heartbeatMs: number,
  on: { message: (from: string, message: string) => void; missed: () => void },
): Subscriber {
  // Same options as the store's connection (keyPrefix too); on one server named after it, so an operator can tell it apart.
  const single = redis as Redis;
  const connection = (
    redis.isCluster
      ? (redis as Cluster).duplicate()
      : single.duplicate({ connectionName: `${single.options.connectionName ?? 'countersign'}-cancels` })
  ) as Redis;
  connection.on('error', () => {});
  connection.on('message', on.message);
  let connected = false;
  let unanswered = false;
  connection.on('ready', () => {
    unanswered = false;
    if (connected)
      connection
        .subscribe(channel)
        .then(on.missed)
        .catch(() => {});
    connected = true;
  });
  // A link that goes quiet without closing delivers nothing and reports nothing; only an unanswered ping shows it.
  const heartbeat = setInterval(() => {
    if (connection.status !== 'ready') return;
    if (unanswered) {
      unanswered = false;
      connection.disconnect(true);
      return;
    }
    unanswered = true;
    connection.ping().then(
      () => (unanswered = false),
      () => {},
    );
  }, heartbeatMs);
  heartbeat.unref();
  return { connection, heartbeat, ready: guarded('listen for cancels', () => connection.subscribe(channel)) };
}
