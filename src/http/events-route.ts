import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { RunEvent } from '../index.js';
import { parseWith } from '../kit/index.js';
import type { AppEnv } from './app-env.js';
import { eventsQuery } from './schemas.js';

/**
 * Where `GET /events` gets its events: `runtime.subscribe` by default, or
 * anything with the same shape, such as a reader of a Redis stream that
 * carries the events of every process.
 *
 * @example
 * const events: EventFeed = { subscribe: (listener) => streamReader.onEvent(listener) };
 * createApprovalApp(runtime, { bearerToken, events });
 */
export interface EventFeed {
  subscribe(listener: (event: RunEvent) => void): () => void;
}

/** A client that cannot keep up is disconnected (it reconnects and reads the state again) instead of growing memory. */
const MAX_QUEUED = 1000;

/**
 * Streams run events as server-sent events (`event: approval-requested`,
 * `data: <the RunEvent as JSON>`), filtered by `?agent=` and `?runId=`,
 * with a comment line every `heartbeatMs` so proxies keep the connection.
 * Unsubscribes from the feed when the client goes away.
 *
 * @example
 * app.get('/events', (c) => streamEvents(c, runtime, { heartbeatMs: 15_000 }));
 */
export function streamEvents(
  c: Context<AppEnv>,
  feed: EventFeed,
  options: {
    readonly heartbeatMs: number;
    readonly onError: (error: unknown) => void;
    /** What of each event this client may see; undefined from it: not sent. Default: the whole event. */
    readonly view?: (event: RunEvent) => RunEvent | undefined;
  },
): Response {
  const filter = parseWith(eventsQuery, c.req.query(), 'query');
  c.header('x-accel-buffering', 'no');
  return streamSSE(c, async (stream) => {
    const queue: RunEvent[] = [];
    let wake: (() => void) | undefined;
    let closed = false;
    const stop = () => {
      closed = true;
      wake?.();
    };
    const unsubscribe = feed.subscribe((whole) => {
      const event = options.view === undefined ? whole : options.view(whole);
      if (closed || event === undefined) return;
      if (filter.agent !== undefined && event.agentName !== filter.agent) return;
      if (filter.runId !== undefined && event.runId !== filter.runId) return;
      if (queue.length >= MAX_QUEUED) return stop();
      queue.push(event);
      wake?.();
    });
    stream.onAbort(stop);
    try {
      await stream.write(': connected\n\nretry: 3000\n\n');
      while (!closed) {
        const event = queue.shift();
        if (event !== undefined) {
          await stream.writeSSE({ event: event.type, data: JSON.stringify(event) });
          continue;
        }
        const timedOut = await new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => resolve(true), options.heartbeatMs);
          wake = () => {
            clearTimeout(timer);
            resolve(false);
          };
        });
        wake = undefined;
        if (timedOut && !closed) await stream.write(': heartbeat\n\n');
      }
    } catch (error) {
      // A write to a client that went away fails; anything else is worth reporting.
      if (!stream.aborted) options.onError(error);
    } finally {
      closed = true;
      unsubscribe();
    }
  });
}
