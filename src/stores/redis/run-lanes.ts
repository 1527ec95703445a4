// One lane per run for the worker: a job for a run already being resumed waits for that resume, then runs once more.

/** Per run: the resume running or queued last, and a queued follow-up that later jobs for the same run join instead of queueing another. */
interface Lane {
  tail: Promise<boolean>;
  queued: Promise<boolean> | undefined;
}

/**
 * Returns `schedule`, which runs `resume` for a job so that one run is never resumed twice at once here: a job
 * arriving while its run is being resumed runs once more afterwards, and further jobs join that follow-up.
 */
export function runLanes(resume: (runId: string, entryId: string, deliveries: number) => Promise<boolean>) {
  const lanes = new Map<string, Lane>();
  return (runId: string, entryId: string, deliveries: number): Promise<boolean> => {
    const existing = lanes.get(runId);
    if (existing?.queued) return existing.queued;
    // A job that arrives while its run is being resumed may carry a decision
    // that resume did not see, so it runs once more afterwards.
    const before = existing ? existing.tail.then(() => undefined) : Promise.resolve();
    const lane: Lane = existing ?? { tail: Promise.resolve(true), queued: undefined };
    const run = before.then(() => {
      if (lane.queued === run) lane.queued = undefined;
      return resume(runId, entryId, deliveries);
    });
    lane.tail = run;
    if (existing) lane.queued = run;
    else lanes.set(runId, lane);
    void run.finally(() => {
      if (lanes.get(runId) === lane && lane.tail === run) lanes.delete(runId);
    });
    return run;
  };
}
