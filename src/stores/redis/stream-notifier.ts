// createStreamNotifier: the run-event stream read through a consumer group (`consume`, at-least-once) or as a
// live feed (`subscribe`), on the same key and with the same default prefix as the Redis store.
import { ConfigError } from '../../errors.js';
import { redisKeys } from './keys.js';
import { checkTiming, defaultConsumerName, ensureGroup } from './consumer-group.js';
import { guardedHook } from './error-hook.js';
import type { GroupReaderOptions } from './group-reader-options.js';
import { createLiveFeed } from './live-feed.js';
import type { StreamErrorInfo } from './stream-error-info.js';
import { parseEventEntry } from './stream-event-entry.js';
import { runGroupReader } from './stream-group.js';
import type { StreamNotifier, StreamNotifierOptions } from './stream-notifier-options.js';

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
  const settings = readerSettings(options);
  const { key, group, consumer, startId } = settings;
  const report = guardedHook(options.onError ?? defaultOnError);

  let consuming: { controller: AbortController; done: Promise<void> } | undefined;

  let closed = false;
  const closedError = () =>
    new ConfigError(`This notifier (group ${group}, consumer ${consumer}) is closed; create a new one.`);

  const consume: StreamNotifier['consume'] = (handler, consumeOptions = {}) => {
    if (closed) return Promise.reject(closedError());
    if (consuming) {
      return Promise.reject(
        new ConfigError(
          `This notifier (consumer ${consumer}) is already consuming; create another notifier with its own consumer name to read in parallel.`,
        ),
      );
    }
    const controller = new AbortController();
    const outer = consumeOptions.signal;
    const abort = () => controller.abort();
    if (outer?.aborted) controller.abort();
    outer?.addEventListener('abort', abort, { once: true });
    const done = runGroupReader(
      { ...settings, onError: report, handle: eventHandler(handler, report) },
      controller.signal,
    ).finally(() => {
      outer?.removeEventListener('abort', abort);
      if (consuming?.controller === controller) consuming = undefined;
    });
    consuming = { controller, done };
    return done;
  };

  const feed = createLiveFeed({ redis: options.redis, key, batch: settings.batch, blockMs: settings.blockMs, report });

  return {
    key,
    group,
    consumer,
    createGroup: () => ensureGroup(options.redis, key, group, startId),
    consume,
    subscribe(listener) {
      if (closed) throw closedError();
      return feed.subscribe(listener);
    },
    async close() {
      closed = true;
      const current = consuming;
      current?.controller.abort();
      await Promise.allSettled([feed.close(), current?.done]);
    },
  };
}

/** The notifier's options with their defaults, checked, as its group reader takes them. */
function readerSettings(options: StreamNotifierOptions): Omit<GroupReaderOptions, 'handle' | 'onError'> {
  // The same key the Redis store writes its events to, with the same default prefix.
  const key = redisKeys(options.prefix).events;
  const { group } = options;
  if (typeof group !== 'string' || group.length === 0)
    throw new ConfigError('createStreamNotifier: `group` must be a non-empty string, e.g. "slack".');
  const consumer = options.consumer ?? defaultConsumerName();
  const blockMs = options.blockMs ?? 5_000;
  const claimIdleMs = options.claimIdleMs ?? 30_000;
  const batch = options.batch ?? 50;
  const concurrency = options.concurrency ?? 1;
  const maxDeliveries = options.maxDeliveries ?? 20;
  checkTiming('createStreamNotifier', { blockMs, claimIdleMs, batch, concurrency, maxDeliveries });
  const startId = options.from === 'earliest' ? '0' : '$';
  return {
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
  };
}

/** Hands each entry's event to `handler`; an entry that is not an event is reported and acked. */
function eventHandler(
  handler: Parameters<StreamNotifier['consume']>[0],
  report: (info: StreamErrorInfo) => void,
): GroupReaderOptions['handle'] {
  return async (entry) => {
    const event = parseEventEntry(entry.fields);
    if (event instanceof Error) {
      // Redelivering it would fail the same way: ack and report.
      report({ error: event, phase: 'malformed', entryId: entry.id, deliveries: entry.deliveries });
      return true;
    }
    await handler(event, { id: entry.id, deliveries: entry.deliveries });
    return true;
  };
}
