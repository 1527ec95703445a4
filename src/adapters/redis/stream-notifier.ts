import { ConfigError } from '../../errors.js';
import type { RunEvent } from '../../machine/run-events.js';
import { redisKeys } from './keys.js';
import { toStoreError } from './unavailable.js';
import {
  backOff,
  asClient,
  checkTiming,
  defaultConsumerName,
  ensureGroup,
  entriesOfReadReply,
  runGroupReader,
  type RedisClient,
  type StreamErrorInfo,
} from './stream-group.js';

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

const EVENT_TYPES: ReadonlySet<string> = new Set<RunEvent['type']>([
  'approval-requested',
  'approval-resolved',
  'run-completed',
  'run-failed',
  'run-cancelled',
  'tool-finished',
]);

/**
 * The RunEvent of a stream entry (fields `type`, `runId`, `event`), or an
 * Error saying why it is not one; for tools that read the stream directly.
 *
 * @example
 * for (const [id, flat] of await redis.xrange('cs:events', '-', '+')) {
 *   const fields = Object.fromEntries(Array.from({ length: flat.length / 2 }, (_, i) => [flat[2 * i], flat[2 * i + 1]]));
 *   const event = parseEventEntry(fields);
 *   if (!(event instanceof Error)) console.log(id, event.type, event.runId);
 * }
 */
export function parseEventEntry(fields: Readonly<Record<string, string>>): RunEvent | Error {
  const json = fields['event'];
  if (json === undefined) return new Error('The entry has no `event` field.');
  let event: unknown;
  try {
    event = JSON.parse(json);
  } catch (error) {
    return new Error(`The \`event\` field is not JSON: ${(error as Error).message}`);
  }
  if (typeof event !== 'object' || event === null) return new Error('The `event` field is not a JSON object.');
  const { type, runId } = event as { type?: unknown; runId?: unknown };
  if (typeof type !== 'string' || !EVENT_TYPES.has(type)) {
    return new Error(`Unknown event type ${JSON.stringify(type)}; known: ${[...EVENT_TYPES].join(', ')}. Upgrade countersign where this reader runs.`);
  }
  if (typeof runId !== 'string') return new Error('The event has no string `runId`.');
  if (fields['runId'] !== undefined && fields['runId'] !== runId) {
    return new Error(`The entry's runId field (${fields['runId']}) does not match the event's (${runId}).`);
  }
  return event as RunEvent;
}

function defaultOnError(info: StreamErrorInfo): void {
  console.error(`countersign stream (${info.phase}${info.entryId ? ` ${info.entryId}` : ''}):`, info.error);
}

/**
 * Reads the run events the Redis store writes to the stream `${prefix}events`
 * through a consumer group: at-least-once, acknowledged only after the handler
 * resolves; a consumer that dies leaves its events to be claimed by the others.
 *
 * Any channel notifier (anything with `publish(events)`: webhooks, Slack,
 * Telegram …) is driven from it in one line, so an app running several
 * instances sends each event once per group, even when the instance that
 * committed it dies: give each channel its own group, and have every
 * instance consume it. Awaiting `flush()` acks an event only once the
 * channel has delivered it (or given up); a redelivered event is harmless,
 * as channels ask once per approval and webhooks keep the same `webhook-id`.
 *
 * @example
 * // Every instance of the app, for the webhook channel:
 * const stream = createStreamNotifier({ redis, group: 'webhooks' });
 * const webhooks = createWebhookNotifier({ url, secret });
 * await stream.consume((event) => webhooks.publish([event]).then(() => webhooks.flush()), { signal });
 *
 * @example
 * import { Redis } from 'ioredis';
 * import { createStreamNotifier } from 'countersign/redis';
 *
 * const notifier = createStreamNotifier({ redis: new Redis(), group: 'slack' });
 * const stop = new AbortController();
 * await notifier.consume(async (event, { id }) => {
 *   if (event.type === 'approval-requested') await slack.post(event.request, { dedupeKey: id });
 * }, { signal: stop.signal });
 *
 * // A live feed for server-sent events:
 * const unsubscribe = notifier.subscribe((event, { id }) => sse.write(`id: ${id}\ndata: ${JSON.stringify(event)}\n\n`));
 */
export function createStreamNotifier(options: StreamNotifierOptions): StreamNotifier {
  // The same key the Redis store writes its events to, with the same default prefix.
  const key = redisKeys(options.prefix).events;
  const { group } = options;
  if (typeof group !== 'string' || group.length === 0) throw new ConfigError('createStreamNotifier: `group` must be a non-empty string, e.g. "slack".');
  const consumer = options.consumer ?? defaultConsumerName();
  const blockMs = options.blockMs ?? 5_000;
  const claimIdleMs = options.claimIdleMs ?? 30_000;
  const batch = options.batch ?? 50;
  const concurrency = options.concurrency ?? 1;
  const maxDeliveries = options.maxDeliveries ?? 20;
  checkTiming('createStreamNotifier', { blockMs, claimIdleMs, batch, concurrency, maxDeliveries });
  const startId = options.from === 'earliest' ? '0' : '$';
  const onError = options.onError ?? defaultOnError;
  const report = (info: StreamErrorInfo) => {
    try {
      onError(info);
    } catch {
      // A throwing error hook must not take the reader down.
    }
  };

  let consuming: { controller: AbortController; done: Promise<void> } | undefined;

  let closed = false;
  const closedError = () => new ConfigError(`This notifier (group ${group}, consumer ${consumer}) is closed; create a new one.`);

  const consume: StreamNotifier['consume'] = (handler, consumeOptions = {}) => {
    if (closed) return Promise.reject(closedError());
    if (consuming) {
      return Promise.reject(
        new ConfigError(`This notifier (consumer ${consumer}) is already consuming; create another notifier with its own consumer name to read in parallel.`),
      );
    }
    const controller = new AbortController();
    const outer = consumeOptions.signal;
    const abort = () => controller.abort();
    if (outer?.aborted) controller.abort();
    outer?.addEventListener('abort', abort, { once: true });
    const done = runGroupReader(
      {
        redis: options.redis,
        key,
        group,
        consumer,
        startId,
        blockMs,
        claimIdleMs,
        batch,
        concurrency,
        maxDeliveries,
        deleteOnAck: false,
        onError: report,
        handle: async (entry) => {
          const event = parseEventEntry(entry.fields);
          if (event instanceof Error) {
            // Redelivering it would fail the same way: ack and report.
            report({ error: event, phase: 'malformed', entryId: entry.id, deliveries: entry.deliveries });
            return true;
          }
          await handler(event, { id: entry.id, deliveries: entry.deliveries });
          return true;
        },
      },
      controller.signal,
    ).finally(() => {
      outer?.removeEventListener('abort', abort);
      if (consuming?.controller === controller) consuming = undefined;
    });
    consuming = { controller, done };
    return done;
  };

  const listeners = new Set<StreamEventListener>();
  let tail: { controller: AbortController; done: Promise<void> } | undefined;

  /** Reads the stream from entries written at `sinceMs` on, for the live listeners. */
  const runTail = async (signal: AbortSignal, sinceMs: number) => {
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
            if (entry.fields === null) continue;
            const event = parseEventEntry(entry.fields);
            if (event instanceof Error) {
              report({ error: event, phase: 'malformed', entryId: entry.id });
              continue;
            }
            for (const listener of [...listeners]) {
              try {
                listener(event, { id: entry.id });
              } catch (error) {
                report({ error, phase: 'handler', entryId: entry.id });
              }
            }
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
  };

  const stopTail = () => {
    const current = tail;
    tail = undefined;
    current?.controller.abort();
    return current?.done ?? Promise.resolve();
  };

  return {
    key,
    group,
    consumer,
    createGroup: () => ensureGroup(options.redis, key, group, startId),
    consume,
    subscribe(listener) {
      if (closed) throw closedError();
      listeners.add(listener);
      if (!tail) {
        const controller = new AbortController();
        // A second back covers the connection's start and a little clock skew with the Redis server.
        tail = { controller, done: runTail(controller.signal, Date.now() - 1_000) };
      }
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0) void stopTail();
      };
    },
    async close() {
      closed = true;
      listeners.clear();
      const current = consuming;
      current?.controller.abort();
      await Promise.allSettled([stopTail(), current?.done]);
    },
  };
}
