import type { RunEvent } from '../../index.js';

/**
 * A run event as a session an inbox link signed in may see it: what the inbox shows (pending requests, their votes,
 * reminders, escalations and decisions) and that a decided call or its run ended, without what the inbox never shows
 * (the model's text, a tool's result, a run's output, error or where it came from). Undefined: not sent at all.
 */
export function inboxEventView(event: RunEvent): RunEvent | undefined {
  switch (event.type) {
    case 'model-delta':
    case 'run-completed':
      return undefined;
    case 'approval-requested':
    case 'approval-reminder':
    case 'approval-escalated': {
      const { origin: _origin, ...rest } = event;
      return rest;
    }
    case 'tool-finished':
      return { ...event, result: '' };
    case 'run-failed':
      return { ...event, error: { code: event.error.code, message: '' } };
    case 'run-cancelled':
      return { type: event.type, runId: event.runId, agentName: event.agentName, reason: '' };
    default:
      return event;
  }
}
