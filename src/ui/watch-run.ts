import { ownTurns } from './run-parts.js';
import type { AgentSnapshot, ModelDeltaEvent, Runtime, RunEvent } from '../index.js';

/**
 * Where a chat stream hears about runs: the runtime itself, or a feed that carries every process's events (then a
 * decision made in another process reaches the chat at once, not at the next re-read).
 *
 * @example
 * const events: ChatEventFeed = { subscribe: (listener) => redisEventReader.onEvent(listener) };
 * createUIChatHandler(runtime, { agent: 'files', identify, events });
 */
export type ChatEventFeed = Pick<Runtime, 'subscribe'>;

/** What a watch yields: the run as it now stands, or a piece of a model's answer as it streams in. */
export type WatchItem =
  | { readonly type: 'snapshot'; readonly snapshot: AgentSnapshot }
  | { readonly type: 'delta'; readonly event: ModelDeltaEvent };

const ended = new Set(['completed', 'failed', 'cancelled']);

/** True when nobody is at the run: it ended, or it waits for a person. */
export function atRest(run: AgentSnapshot): boolean {
  return ended.has(run.status) || (run.status === 'awaitingApproval' && run.pendingApprovals.length > 0);
}

/** What a run at rest is waiting for: a watch that began at one rest goes on until the run reaches another. */
export function restKey(run: AgentSnapshot): string {
  if (!atRest(run)) return '';
  const waiting = run.pendingApprovals.map((request) => `${request.approvalId}/${request.votes?.length ?? 0}`);
  return `${run.status}:${waiting.join(',')}`;
}

export interface WatchOptions {
  readonly runtime: Runtime;
  readonly feed: ChatEventFeed;
  readonly runId: string;
  /** How often the run is read again when nothing was heard (a decision another process made and no feed carried). */
  readonly recheckMs: number;
  readonly signal?: AbortSignal;
  /** What makes the run go on here (a resume); the watch ends only once it settled. */
  readonly action?: () => Promise<unknown>;
  /** Ends the watch at a rest other than this one (`restKey`); default: at any rest once `action` settled. */
  readonly leaveRest?: string;
}

/**
 * The run `runId` as it goes on: its snapshot first, then a new one after every committed event (and every
 * `recheckMs` when nothing was heard), with the model's deltas in between, until it comes to rest (see `atRest`):
 * once `action` settled, or at a rest other than `leaveRest`. A failure of `action` is thrown.
 */
export async function* watchRun(options: WatchOptions): AsyncGenerator<WatchItem> {
  const { runtime, runId, signal } = options;
  const heard: RunEvent[] = [];
  let wake: (() => void) | undefined;
  /** Something happened since the watch last looked (a settled action, an abort): look before waiting. */
  let poked = false;
  const poke = () => {
    poked = true;
    wake?.();
  };
  const unsubscribe = options.feed.subscribe((event) => {
    if (event.runId !== runId) return;
    heard.push(event);
    poke();
  });
  const onAbort = poke;
  signal?.addEventListener('abort', onAbort);
  let settled = options.action === undefined;
  let failure: { readonly error: unknown } | undefined;
  void options.action?.().then(
    () => {
      settled = true;
      poke();
    },
    (error: unknown) => {
      failure = { error };
      settled = true;
      poke();
    },
  );
  const done = (run: AgentSnapshot) =>
    options.leaveRest === undefined ? settled && atRest(run) : atRest(run) && restKey(run) !== options.leaveRest;
  try {
    let run = await runtime.get(runId);
    let turns = ownTurns(run);
    yield { type: 'snapshot', snapshot: run };
    while (!signal?.aborted) {
      if (failure !== undefined) throw failure.error;
      if (done(run)) return;
      const event = heard.shift();
      if (event === undefined) {
        if (!poked)
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, options.recheckMs);
            wake = () => {
              clearTimeout(timer);
              resolve();
            };
          });
        wake = undefined;
        poked = false;
        if (heard.length > 0 || signal?.aborted) continue;
      } else if (event.type === 'model-delta') {
        // A new answer begins only after the last one's calls ran and were committed: show those first.
        if (event.turn > turns) {
          run = await runtime.get(runId);
          turns = event.turn;
          yield { type: 'snapshot', snapshot: run };
        }
        yield { type: 'delta', event };
        continue;
      }
      run = await runtime.get(runId);
      yield { type: 'snapshot', snapshot: run };
    }
  } finally {
    unsubscribe();
    signal?.removeEventListener('abort', onAbort);
  }
}
