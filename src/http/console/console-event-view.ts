import type { RunEvent } from '../../index.js';
import { shownName, shownText } from './console-text.js';

/**
 * A run event as a console session receives it (`GET /events`, which moves the live cards along): who decided, why,
 * a tool's result and why a run failed or was cancelled come through the display filter the history page uses, so
 * a live card line shows a name or a reason as every other console surface does (invisible and bidi characters as
 * `[U+XXXX]`, long text cut visibly), never raw.
 */
export function consoleEventView(event: RunEvent): RunEvent {
  switch (event.type) {
    case 'approval-resolved': {
      const { by, reason } = event.entry;
      return {
        ...event,
        entry: {
          ...event.entry,
          ...(by === undefined ? {} : { by: shownName(by) }),
          ...(reason === undefined ? {} : { reason: shownText(reason) }),
        },
      };
    }
    case 'tool-finished':
      return { ...event, result: shownText(event.result) };
    case 'run-failed':
      return { ...event, error: { ...event.error, message: shownText(event.error.message) } };
    case 'run-cancelled':
      return { ...event, reason: shownText(event.reason) };
    default:
      return event;
  }
}
