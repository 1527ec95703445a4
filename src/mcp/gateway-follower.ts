// The gateway follows every run it started, a client waits on, or it found unfinished in its store, until the run
// ends or the gateway closes: one timer for all of them, and the same look a waiting call takes. A look carries a run
// on here, where the upstream is, when nothing else will: its decisions were all recorded by a process without the
// upstream (mode 'record': an approval app, a CLI elsewhere), an approval expired with no client waiting, or the lease
// of a call a dead gateway was making ended. A run whose call holds a live lease is left alone: a resume would return
// at once. The runtime's commits and leases keep each call exactly once, however many processes look.
import { RunNotFoundError } from '../errors.js';
import type { AgentSnapshot, Runtime } from '../index.js';
import { expiryDecisions } from '../kit/index.js';
import { hasLiveLease } from '../kit/index.js';

export interface FollowerSettings {
  readonly runtime: Runtime;
  /** Time between two looks at every followed run. */
  readonly everyMs: number;
  /** A look that failed (the store unreachable, a resume that threw); the run is looked at again next time. */
  readonly report: (error: unknown, runId: string) => void;
}

export const ENDED: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled']);

/** Follows runs until they end; `close` stops the timer (resumes under way finish on their own). */
export function runFollower({ runtime, everyMs, report }: FollowerSettings) {
  /** Each followed run, and its version at the last look (a ready run that has not moved since is carried on). */
  const followed = new Map<string, number | undefined>();
  /** Runs this process is carrying on now, so two looks never carry on one run at once. */
  const going = new Map<string, Promise<AgentSnapshot>>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let closed = false;

  /** Resumes `runId` here, unless this process already is. */
  const carryOn = (runId: string): Promise<AgentSnapshot> => {
    let running = going.get(runId);
    if (running === undefined) {
      running = runtime.resume(runId).finally(() => going.delete(runId));
      going.set(runId, running);
    }
    return running;
  };

  /** The run as stored now; when it must go on here, its resume is started (see `going`). */
  const look = async (runId: string): Promise<AgentSnapshot> => {
    const snapshot = await runtime.get(runId);
    const seen = followed.get(runId);
    if (ENDED.has(snapshot.status)) {
      followed.delete(runId);
      return snapshot;
    }
    if (!closed) followed.set(runId, snapshot.version);
    if (going.has(runId)) return snapshot;
    // A call under a live lease is under way (here, or in a gateway that died mid-call): a resume would return at once.
    const stalled = snapshot.status === 'running' && snapshot.version === seen && !hasLiveLease(snapshot, Date.now());
    // A failure here surfaces to a waiter through `going`, or to the next look.
    if (stalled || expiryDecisions(snapshot, Date.now()).length > 0)
      void carryOn(runId).catch((error: unknown) => report(error, runId));
    return snapshot;
  };

  const tick = async () => {
    await Promise.all(
      [...followed.keys()].map((runId) =>
        look(runId).catch((error: unknown) => {
          if (error instanceof RunNotFoundError) followed.delete(runId);
          else report(error, runId);
        }),
      ),
    );
    if (!closed) timer = setTimeout(tick, everyMs).unref();
  };
  timer = setTimeout(tick, everyMs).unref();

  return {
    look,
    carryOn,
    /** The resume of `runId` under way in this process, if any. */
    going: (runId: string): Promise<AgentSnapshot> | undefined => going.get(runId),
    /** Follows `runId` from the next look on. */
    follow(runId: string): void {
      if (!closed && !followed.has(runId)) followed.set(runId, undefined);
    },
    close(): void {
      closed = true;
      clearTimeout(timer);
      followed.clear();
    },
  };
}

export type RunFollower = ReturnType<typeof runFollower>;
