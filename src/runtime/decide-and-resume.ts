// The one decision path every surface takes (HTTP routes, the console, one-click links, chat buttons): the decision
// is recorded first (awaited however long the store takes; a failure is thrown, so no answer stands for a write that
// did not land), then the run goes on as the mode says: here for up to `waitMs`, on a worker, or in the process
// that follows the run. The outcome says which, so each surface only maps it to its own answer.
import type { AgentSnapshot } from '../run/agent-snapshot.js';
import { z } from 'zod';
import { awaitRun } from './await-run.js';
import { parseArgument } from './parse-argument.js';
import type { DecideResult, RespondMode, RespondResult, RuntimeDecideOptions } from './runtime.js';

/** How a recorded run is carried on here (the runtime's own). */
export interface DecideParts {
  /** Resumes a run a new decision made ready. */
  resume(runId: string): Promise<AgentSnapshot>;
  /** Carries on the run a repeat found, when nothing may be at it (its first responder may have failed before). */
  resumeRepeat(snapshot: AgentSnapshot): Promise<AgentSnapshot>;
  /** Where a failure after `waitMs` goes when the caller gives no `onLateError`. */
  reportLate(error: unknown, runId: string): void;
  /** The mode checked (a `ConfigError` before anything is recorded), `'inline'` when left out. */
  modeOf(value: RespondMode | undefined, where: string): RespondMode;
}

// Up to what a timer can wait (about 24.8 days).
const waitSchema = z
  .number()
  .int()
  .min(0)
  .max(2 ** 31 - 1);

const elsewhere = { enqueue: 'worker', record: 'elsewhere' } as const;

/** 10 s: how long a decision's run goes on here before the answer says it is still going. */
export const DEFAULT_WAIT_MS = 10_000;

/**
 * Records with `record` (in mode 'record', or 'enqueue' to queue the run in the same write), then carries the run on
 * as `options.mode` says and tells how it stands.
 */
export async function decideAndResume<R extends RespondResult>(
  parts: DecideParts,
  record: (mode: RespondMode) => Promise<R>,
  options: RuntimeDecideOptions,
  where: string,
): Promise<R & DecideResult> {
  const mode = parts.modeOf(options.mode, where);
  const waitMs =
    options.waitMs === undefined ? DEFAULT_WAIT_MS : parseArgument(waitSchema, options.waitMs, `${where}: waitMs`);
  const recorded = await record(mode === 'enqueue' ? 'enqueue' : 'record');
  if (recorded.held !== undefined) return { ...recorded, outcome: 'held', held: recorded.held };
  if (recorded.status !== 'running') return { ...recorded, outcome: 'current' };
  // Elsewhere, a new decision that made the run ready leaves it to a worker or to the process following it.
  if (mode !== 'inline')
    return recorded.duplicate
      ? { ...recorded, outcome: 'current' }
      : { ...recorded, outcome: 'continuing', where: elsewhere[mode] };
  const { runId } = recorded.snapshot;
  const work = recorded.duplicate ? parts.resumeRepeat(recorded.snapshot) : parts.resume(runId);
  const onLate = options.onLateError ?? parts.reportLate;
  const went = await awaitRun(work, waitMs, (error) => onLate(error, runId));
  if (!went.done) return { ...recorded, outcome: 'continuing', where: 'here' };
  return { ...recorded, snapshot: went.value, status: went.value.status, outcome: 'current' };
}
