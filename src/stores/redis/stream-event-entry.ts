import type { RunEvent } from '../../index.js';
import type { BatchCommand } from './redis-batch.js';
import { STREAM_MAXLEN } from './run-scripts.js';

const EVENT_TYPES: ReadonlySet<string> = new Set<RunEvent['type']>([
  'approval-requested',
  'approval-resolved',
  'approval-voted',
  'run-completed',
  'run-failed',
  'run-cancelled',
  'tool-finished',
  'model-delta',
]);

/** The XADD that writes `event` to the stream `key`, trimmed as the commit script trims it. */
export function addEventCommand(key: string, event: RunEvent): BatchCommand {
  return [
    'xadd',
    key,
    'MAXLEN',
    '~',
    STREAM_MAXLEN,
    '*',
    'type',
    event.type,
    'runId',
    event.runId,
    'event',
    JSON.stringify(event),
  ];
}

/**
 * The RunEvent of a stream entry (fields `type`, `runId`, `event`), or an
 * Error saying why it is not one. The entry's fields are the stream notifier's own format, read by
 * `createStreamNotifier` and the live feed; a user reads events through `createStreamNotifier({ onEvent })`.
 * @internal
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
    return new Error(
      `Unknown event type ${JSON.stringify(type)}; known: ${[...EVENT_TYPES].join(', ')}. Upgrade countersign where this reader runs.`,
    );
  }
  if (typeof runId !== 'string') return new Error('The event has no string `runId`.');
  if (fields['runId'] !== undefined && fields['runId'] !== runId) {
    return new Error(`The entry's runId field (${fields['runId']}) does not match the event's (${runId}).`);
  }
  return event as RunEvent;
}
