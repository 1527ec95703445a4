// How the app's routes acknowledge: what they answer for is recorded first
// (awaited, however long the store takes; a failure is thrown and answered
// 503), and only then does the run go on, here for up to resumeTimeoutMs.
import type { AgentSnapshot } from '../machine/types.js';
import type { LinkedRuntime, LinkRespondResult } from '../runtime/runtime.js';

export type Outcome<T> = { readonly done: true; readonly value: T } | { readonly done: false };

/** Waits for `work` up to `ms`; a rejection within the time is thrown, one after it is the caller's to catch. */
async function within<T>(work: Promise<T>, ms: number): Promise<Outcome<T>> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<Outcome<T>>((resolve) => {
    timer = setTimeout(() => resolve({ done: false }), ms);
  });
  try {
    return await Promise.race([work.then((value) => ({ done: true as const, value })), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Waits for a run going on (`work`) up to `ms`, throwing a failure within that time; after it the run goes on
 * unwatched and a later failure goes to `onLateError`.
 */
export async function awaitRun<T>(work: Promise<T>, ms: number, onLateError: (error: unknown) => void): Promise<Outcome<T>> {
  const outcome = await within(work, ms);
  if (!outcome.done) work.catch(onLateError);
  return outcome;
}

export interface LinkDecisionSettings {
  readonly resumeMode: 'inline' | 'enqueue';
  readonly resumeTimeoutMs: number;
  /** Who clicked, when the token was minted for nobody in particular. */
  readonly approvedBy?: string;
  /** A run that went on after the answer and failed later. */
  readonly onLateError: (error: unknown, runId: string) => void;
}

/**
 * Spends a one-click token and records its decision (queueing the run in
 * enqueue mode), then, inline, resumes a run it made ready for up to
 * `resumeTimeoutMs`. `carryingOn` is true when the run was still going then:
 * the decision is recorded either way, never assumed.
 */
export async function decideWithLink(runtime: LinkedRuntime, token: string, settings: LinkDecisionSettings): Promise<{ readonly result: LinkRespondResult; readonly carryingOn: boolean }> {
  const recorded = await runtime.respondWithLink(token, {
    mode: settings.resumeMode === 'enqueue' ? 'enqueue' : 'record',
    ...(settings.approvedBy === undefined ? {} : { approvedBy: settings.approvedBy }),
  });
  if (settings.resumeMode === 'enqueue' || recorded.duplicate || recorded.status !== 'running') return { result: recorded, carryingOn: false };
  const { runId } = recorded.snapshot;
  const work: Promise<AgentSnapshot> = runtime.resume(runId);
  const outcome = await awaitRun(work, settings.resumeTimeoutMs, (error) => settings.onLateError(error, runId));
  if (!outcome.done) return { result: recorded, carryingOn: true };
  return { result: { ...recorded, snapshot: outcome.value, status: outcome.value.status }, carryingOn: false };
}
