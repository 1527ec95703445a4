import type { RunEvent } from '../run/run-events.js';

/**
 * Where a runtime announces what happened to its runs (a Redis Stream, a
 * webhook, a chat bot). `publish` is called only after the state the events
 * announce is committed; a `model-delta` announces no state and comes as a
 * streaming model answers (a notifier that speaks only of decisions ignores it).
 *
 * @example
 * const notifier: Notifier = { async publish(events) { for (const e of events) await bot.post(e) } };
 */
export interface Notifier {
  publish(events: readonly RunEvent[]): Promise<void>;
}
