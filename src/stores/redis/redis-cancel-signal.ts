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
export function createRedisCancelSignal(redis: RedisClient, channel: string, heartbeatMs = DEFAULT_CANCEL_HEARTBEAT_MS): CancelSignal {
  const listeners = new Set<(notice: CancelNotice) => void>();
  const gapListeners = new Set<() => void>();
  let session: { readonly connection: Redis; readonly ready: Promise<unknown>; readonly heartbeat: NodeJS.Timeout } | undefined;

  const deliver = (from: string, message: string) => {
    if (from !== channel) return;
    let parsed: ReturnType<typeof noticeSchema.safeParse>;
    try {
      parsed = noticeSchema.safeParse(JSON.parse(message));
    } catch {
      return;
    }
    if (!parsed.success) return;
    for (const listener of [...listeners]) {
      try {
        listener(parsed.data);
      } catch {
        // One listener's failure must not keep the notice from the others.
      }
    }
  };

  const close = (current: typeof session) => {
    if (current === undefined || session !== current) return;
    session = undefined;
    clearInterval(current.heartbeat);
    current.connection.disconnect();
  };

  /** After a reconnect: subscribed again (confirmed), then every listener is told it may have missed notices. */
  const resubscribed = (connection: Redis) => {
    connection
      .subscribe(channel)
      .then(() => {
        for (const missed of [...gapListeners]) {
          try {
            missed();
          } catch {
            // As with notices: one listener's failure is its own.
          }
        }
      })
      .catch(() => {});
  };

  const open = () => {
    // Same options as the store's connection (keyPrefix too); on one server named after it, so an operator can tell it apart.
    const single = redis as Redis;
    const connection = (
      redis.isCluster ? (redis as Cluster).duplicate() : single.duplicate({ connectionName: `${single.options.connectionName ?? 'countersign'}-cancels` })
    ) as Redis;
    connection.on('error', () => {});
    connection.on('message', deliver);
    let connected = false;
    let unanswered = false;
    connection.on('ready', () => {
      unanswered = false;
      if (connected) resubscribed(connection);
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
  };

  return {
    async publish(notice) {
      await guarded('publish a cancel', () => redis.publish(channel, JSON.stringify({ runId: notice.runId, reason: notice.reason })));
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
