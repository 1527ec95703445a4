import type { RunEvent } from '../../index.js';
import type { RedisClient } from './redis-client.js';
import type { StreamErrorInfo } from './stream-error-info.js';

/**
 * What a consumer learns about the stream entry an event came in.
 *
 * @example
 * const handler: StreamEventHandler = async (event, { id, deliveries }) => {
 *   if (deliveries > 1 && (await sent.has(id))) return; // at-least-once: skip what was already done
 *   await slack.post(event);
 *   await sent.add(id);
 * };
 */
export interface StreamEventMeta {
  /**
   * The stream entry id (`<ms>-<seq>`); stable across redeliveries of this
   * entry. The store may also publish one event twice (its outbox drain after
   * a crash), under a new id: where an effect must happen once, deduplicate by
   * the event itself (type, runId, approvalId).
   */
  readonly id: string;
  /** 1 on first delivery; more when the entry comes again after a failed handler or a dead consumer. */
  readonly deliveries: number;
}

/**
 * Receives one event; the entry is acknowledged only after this resolves. A
 * rejection leaves it pending, to be delivered again after `claimIdleMs`.
 *
 * @example
 * const handler: StreamEventHandler = async (event) => {
 *   if (event.type === 'approval-requested') await mailer.send(event.request);
 * };
 */
export type StreamEventHandler = (event: RunEvent, meta: StreamEventMeta) => Promise<void> | void;

/**
 * Receives the live feed of `subscribe`; called synchronously, so hand slow work off.
 *
 * @example
 * const listener: StreamEventListener = (event, { id }) => sse.write(`id: ${id}\ndata: ${JSON.stringify(event)}\n\n`);
 */
export type StreamEventListener = (event: RunEvent, meta: { readonly id: string }) => void;

/**
 * Options of `createStreamNotifier`.
 *
 * @example
 * const options: StreamNotifierOptions = { redis, prefix: 'myapp:', group: 'slack', concurrency: 4, onError: (info) => log.warn(info) };
 */
export interface StreamNotifierOptions {
  /** Any ioredis client; blocking reads run on `redis.duplicate()` connections, so this one stays free. */
  readonly redis: RedisClient;
  /** Key prefix shared with the Redis store; events are read from `${prefix}events`. Default `'cs:'`, the same as the store's. */
  readonly prefix?: string;
  /** The consumer group: each group sees every event once; consumers in a group share the work. */
  readonly group: string;
  /** This consumer's name inside the group. Default: `<hostname>:<pid>:<random>`, unique per notifier. */
  readonly consumer?: string;
  /**
   * Where a group that does not exist yet starts: `'latest'` (default) with
   * events written from now on, `'earliest'` with every event still in the stream.
   */
  readonly from?: 'latest' | 'earliest';
  /**
   * How long one blocking read waits for new events, in ms; keep it below the
   * client's `commandTimeout`, if one is set. Default 5,000.
   */
  readonly blockMs?: number;
  /**
   * An entry unacknowledged this long (its consumer died, or its handler
   * failed) is claimed and delivered again, in ms. Entries a live consumer is
   * still handling are kept fresh and never claimed. Default 30,000.
   */
  readonly claimIdleMs?: number;
  /** Most events read (and held) at once. Default 50. */
  readonly batch?: number;
  /**
   * Most handlers running at once. Default 1: events are handled in stream
   * order, except that an event whose handler failed comes again later, after
   * newer ones.
   */
  readonly concurrency?: number;
  /**
   * An entry delivered more times than this is copied to `${prefix}events:dead`,
   * acknowledged and reported to `onError` (phase `'dead-letter'`). Default 20.
   */
  readonly maxDeliveries?: number;
  /** Problems handled without stopping: Redis errors (retried), failing handlers, malformed entries. Default: `console.error`. */
  readonly onError?: (info: StreamErrorInfo) => void;
}

/**
 * A reader of the run-event stream: `consume` through a consumer group, or a
 * live `subscribe` feed. Also fits `createApprovalApp(runtime, { events })`.
 *
 * @example
 * const notifier: StreamNotifier = createStreamNotifier({ redis, group: 'audit' });
 * await notifier.createGroup();
 */
export interface StreamNotifier {
  /** The stream read: `${prefix}events`. */
  readonly key: string;
  readonly group: string;
  readonly consumer: string;
  /**
   * Creates the consumer group now (idempotent). With `from: 'latest'`, call it
   * at deploy time so events written before the first `consume` are kept.
   */
  createGroup(): Promise<void>;
  /**
   * Hands every event of the group to `handler`, at least once, until `signal`
   * aborts or `close()` is called; then stops reading, lets the handlers
   * already running finish (acking them) and resolves. A handler that rejects
   * leaves its event pending: it is delivered again after `claimIdleMs`. One
   * `consume` at a time per notifier; run more notifiers (consumer names) to
   * spread the load.
   */
  consume(handler: StreamEventHandler, options?: { readonly signal?: AbortSignal }): Promise<void>;
  /**
   * A live feed (for server-sent events): every listener in every process
   * sees each event written while it is subscribed (the first listener also
   * those of the second before it subscribed, so nothing is lost while the
   * feed connects). No consumer group and no
   * acknowledgements, so nothing is redelivered; use `consume` where an event
   * must not be missed. Returns a function that unsubscribes.
   */
  subscribe(listener: StreamEventListener): () => void;
  /**
   * Stops `consume` and the live feed for good and waits for the handlers in
   * flight; the `redis` client passed in stays open. Idempotent.
   */
  close(): Promise<void>;
}
