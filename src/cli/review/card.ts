import type { PendingApprovalEntry } from '../../ports/snapshot-store.js';
import { argumentLines, inert, requestLines } from '../format.js';
import type { Paint } from './paint.js';

/** Argument lines a card shows before "v to view all". */
export const CARD_ARGUMENT_LINES = 12;

/** Where a card sits in the review: "2 of 5". */
export interface CardPosition {
  readonly index: number;
  readonly total: number;
}

/**
 * A pending approval as the terminal reviewer shows it: position and agent, then what `countersign pending` prints
 * (tool, description, run, session, times, connector, the tool's claims, why, warnings), then the redacted arguments
 * cut at `CARD_ARGUMENT_LINES` unless `full`. Everything is made inert before it is coloured.
 */
export function formatCard(
  item: PendingApprovalEntry,
  position: CardPosition,
  now: number,
  paint: Paint,
  full = false,
): string {
  const header = paint.key(`${position.index} of ${position.total}`) + paint.muted(inert(`  agent ${item.agentName}`));
  const about = requestLines(item, item.request, now).map((line) =>
    line.tone === undefined ? inert(line.text) : paint[line.tone](inert(line.text)),
  );
  const args = argumentLines(item.request.args);
  const shown = full || args.length <= CARD_ARGUMENT_LINES ? args : args.slice(0, CARD_ARGUMENT_LINES);
  const cut = args.length - shown.length;
  return [
    header,
    ...about,
    ...shown.map(inert),
    ...(cut > 0 ? [paint.muted(`  | … ${cut} more line${cut === 1 ? '' : 's'} (v to view all)`)] : []),
  ].join('\n');
}
