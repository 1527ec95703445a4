// Where a runtime's events go once the commit that makes them lands: its listeners, the notifier, and for a model's
// deltas (no state, no commit) the store's event stream too. Failures go to `onError`, never to the run.
import type { ModelDeltaEvent, RunEvent } from '../run/run-events.js';
import type { SnapshotStore } from '../ports/snapshot-store.js';
import type { RuntimeOptions } from './runtime-options.js';

export type ReportError = (error: unknown, operation: string, runId?: string) => void;

/** The runtime's listeners, and how it tells them (and the notifier) what happened. */
export interface Announcer {
  readonly reportError: ReportError;
  /** Tells listeners and the notifier what a commit that just landed announced. */
  announce(events: readonly RunEvent[]): void;
  /** Tells listeners, the notifier and the store's event stream of a streaming model's delta at once. */
  announceDelta(event: ModelDeltaEvent): void;
  /** What `agent.execute` reports to `onError` (nothing when there is none: execute prints it). */
  readonly executeReports: {
    onError?: (error: unknown, context: { readonly operation: string; readonly runId: string }) => void;
  };
  subscribe(listener: (event: RunEvent) => void): () => void;
}

export function createAnnouncer(
  options: Pick<RuntimeOptions, 'onError' | 'notifier'>,
  store: SnapshotStore,
): Announcer {
  const listeners = new Set<(event: RunEvent) => void>();

  const reportError: ReportError = (error, operation, runId) => {
    try {
      options.onError?.(error, runId === undefined ? { operation } : { operation, runId });
    } catch {
      // The error reporter's own failure has nowhere left to go.
    }
  };

  /**
   * The full error of a failed model call (the run's own `error` only says what others may read), or a refused grant
   * or rule: to `onError`; with none, execute prints it (console.error, redacted) and the run's message says so.
   */
  const executeReports =
    options.onError === undefined
      ? {}
      : {
          onError: (error: unknown, context: { readonly operation: string; readonly runId: string }) =>
            reportError(error, context.operation, context.runId),
        };

  const announce = (events: readonly RunEvent[]) => {
    if (events.length === 0) return;
    for (const event of events) {
      for (const listener of listeners) {
        try {
          listener(event);
        } catch (error) {
          reportError(error, 'listener', event.runId);
        }
      }
    }
    options.notifier?.publish(events).catch((error: unknown) => reportError(error, 'notify', events[0]!.runId));
  };

  /**
   * It announces no state, so it waits for no commit, and nothing replays it to whoever was not listening.
   */
  const announceDelta = (event: ModelDeltaEvent) => {
    const events = [event];
    announce(events);
    store.publishTransient?.(events).catch((error: unknown) => reportError(error, 'notify', event.runId));
  };

  return {
    reportError,
    announce,
    announceDelta,
    executeReports,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
