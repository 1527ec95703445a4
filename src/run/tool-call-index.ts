import { replacedAt } from './derived-array.js';
import type { ToolCall, ToolCallRecord } from './types.js';

/** A record the loop still has to run (or finish running). */
export const isRunnable = (record: ToolCallRecord): boolean =>
  record.status === 'approved' || record.status === 'executing';

/**
 * What a turn's record array knows about itself, kept beside the (frozen,
 * so unchanging) array: where each call id sits, how many records are
 * runnable, and an index before which none is. A step that changes one
 * record of a thousand derives the next array's index from this one in
 * constant time, so starting and finishing each call costs the same at the
 * first call of a turn as at the thousandth; without it every step scanned
 * the turn (and `map`/`some`/`filter` over a frozen array are slow on Node 20).
 */
interface RecordIndex {
  readonly positions: ReadonlyMap<string, readonly number[]>;
  readonly runnable: number;
  /** No record before this index is runnable. */
  firstRunnableFrom: number;
  /** Where the records a person was asked about (those with an `approvalId`) sit, in order; rebuilt on demand when a step changed which. */
  asked: readonly number[] | undefined;
}

const indexes = new WeakMap<readonly ToolCallRecord[], RecordIndex>();

function indexOf(records: readonly ToolCallRecord[]): RecordIndex {
  let index = indexes.get(records);
  if (index) return index;
  const positions = new Map<string, number[]>();
  let runnable = 0;
  let firstRunnableFrom = records.length;
  for (let position = 0; position < records.length; position++) {
    const record = records[position]!;
    const list = positions.get(record.toolCallId);
    if (list) list.push(position);
    else positions.set(record.toolCallId, [position]);
    if (isRunnable(record)) {
      runnable++;
      if (position < firstRunnableFrom) firstRunnableFrom = position;
    }
  }
  index = { positions, runnable, firstRunnableFrom, asked: undefined };
  if (Object.isFrozen(records)) indexes.set(records, index);
  return index;
}

/** The records with every one for `toolCallId` replaced by `change(record)`; the input is untouched. */
export function replaceRecord(
  records: readonly ToolCallRecord[],
  toolCallId: string,
  change: (record: ToolCallRecord) => ToolCallRecord,
): ToolCallRecord[] {
  const index = indexOf(records);
  const positions = index.positions.get(toolCallId) ?? [];
  let runnable = index.runnable;
  let firstRunnableFrom = index.firstRunnableFrom;
  let asked = index.asked;
  const next = replacedAt(records, positions, (before) => {
    const after = change(before);
    runnable += Number(isRunnable(after)) - Number(isRunnable(before));
    if ((after.approvalId === undefined) !== (before.approvalId === undefined)) asked = undefined;
    return after;
  });
  for (const position of positions)
    if (isRunnable(next[position]!) && position < firstRunnableFrom) firstRunnableFrom = position;
  // The new array is frozen by the step that made it; until then nothing else holds it.
  indexes.set(next, { positions: index.positions, runnable, firstRunnableFrom, asked });
  return next;
}

/**
 * The positions of the records a person was asked about (they have an `approvalId`), in order: what the announcement
 * of finished calls compares, without reading the whole turn at every step of it.
 */
export function askedPositions(records: readonly ToolCallRecord[]): readonly number[] {
  const index = indexOf(records);
  if (index.asked === undefined) {
    const asked: number[] = [];
    for (let position = 0; position < records.length; position++)
      if (records[position]!.approvalId !== undefined) asked.push(position);
    index.asked = asked;
  }
  return index.asked;
}

/** Whether any record is runnable. */
export function hasRunnable(records: readonly ToolCallRecord[]): boolean {
  return indexOf(records).runnable > 0;
}

/** The first runnable record at or after `from` and its position, in the order the model asked for the calls. */
export function firstRunnable(
  records: readonly ToolCallRecord[],
  from = 0,
): { readonly record: ToolCallRecord; readonly position: number } | undefined {
  const index = indexOf(records);
  // Only a search from the start may move the hint: a later start says nothing about the records before it.
  const fromStart = from <= index.firstRunnableFrom;
  for (let position = Math.max(from, index.firstRunnableFrom); position < records.length; position++) {
    const record = records[position]!;
    if (isRunnable(record)) {
      if (fromStart) index.firstRunnableFrom = position;
      return { record, position };
    }
  }
  if (fromStart) index.firstRunnableFrom = records.length;
  return undefined;
}

/** The calls added to a turn from outside the model, per (frozen, so unchanging) record array. */
const addedByRecords = new WeakMap<readonly ToolCallRecord[], readonly ToolCall[]>();

/** The calls added to the turn (`withApprovalRequest`), in record order: kept on their records until the turn's results are written. */
export function addedToolCalls(records: readonly ToolCallRecord[]): readonly ToolCall[] {
  const known = addedByRecords.get(records);
  if (known !== undefined) return known;
  const added: ToolCall[] = [];
  for (const record of records)
    if (record.added !== undefined)
      added.push({ id: record.toolCallId, name: record.toolName, args: record.added.args });
  if (Object.isFrozen(records)) addedByRecords.set(records, added);
  return added;
}
