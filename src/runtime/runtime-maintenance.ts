// What keeps a runtime's runs moving when nobody decides: expiry applied by the server's clock, reminders and
// escalations sent when due, and the runs a dead process left behind picked up. Each pass reports a run that fails and goes on with the others.
import { RunNotFoundError } from '../errors.js';
import type { AgentSnapshot } from '../run/agent-snapshot.js';
import type { SnapshotStore } from '../ports/snapshot-store.js';

export interface MaintenanceDeps {
  readonly store: SnapshotStore;
  readonly clock: () => number;
  readonly staleAfterMs: number;
  /** Applies `onExpire` to the run's expired requests at `now`; `committed` false when there were none. */
  expire(
    runId: string,
    now: number,
  ): Promise<{ readonly next: AgentSnapshot; readonly result: number; readonly committed: boolean }>;
  /** Makes the run's reminders and escalations due at `now`; `committed` false when none was (or another sweeper made them). */
  nudge(
    runId: string,
    now: number,
  ): Promise<{
    readonly result: { readonly reminded: number; readonly escalated: number };
    readonly committed: boolean;
  }>;
  /** Resumes (or queues) a run the expiry made ready. */
  carryOn(next: AgentSnapshot): Promise<AgentSnapshot>;
  /** Runs a stored run on from where it is. */
  continueRun(snapshot: AgentSnapshot): Promise<AgentSnapshot>;
  reportError(error: unknown, operation: string, runId?: string): void;
}

/** True while a tool of the run is running under a lease that has not run out. */
export function hasLiveLease(snapshot: AgentSnapshot, now: number): boolean {
  return snapshot.toolCalls.some((record) => record.status === 'executing' && (record.lease?.until ?? 0) > now);
}

/** The runtime's `sweepExpired` and `recover`. */
export function runtimeMaintenance(deps: MaintenanceDeps) {
  const { store, clock, staleAfterMs } = deps;
  return {
    async sweepExpired(now = clock()) {
      let runs = 0;
      let expired = 0;
      let failed = 0;
      for (const runId of await store.expiredRuns(now, 1000)) {
        // One run that cannot go on is reported, and the sweep goes on with the others.
        try {
          const { next, result, committed } = await deps.expire(runId, now);
          if (!committed) continue;
          runs += 1;
          expired += result;
          await deps.carryOn(next);
        } catch (error) {
          if (error instanceof RunNotFoundError) continue;
          failed += 1;
          deps.reportError(error, 'sweep', runId);
        }
      }
      let reminded = 0;
      let escalated = 0;
      // After expiry, so a request that just expired is not reminded of; each nudge is made once, by the sweeper whose commit lands.
      for (const runId of await store.nudgeDueRuns(now, 1000)) {
        try {
          const { result, committed } = await deps.nudge(runId, now);
          if (!committed) continue;
          reminded += result.reminded;
          escalated += result.escalated;
        } catch (error) {
          if (error instanceof RunNotFoundError) continue;
          failed += 1;
          deps.reportError(error, 'sweep', runId);
        }
      }
      return { runs, expired, reminded, escalated, failed };
    },
    async recover() {
      let resumed = 0;
      let askedAgain = 0;
      let failed = 0;
      const now = clock();
      for (const runId of await store.runsToRecover(now, now - staleAfterMs, 1000)) {
        // One run whose resume throws is reported, and the pass goes on, so the healthy ones are still recovered.
        try {
          const snapshot = await store.load(runId);
          if (snapshot?.status !== 'running' || hasLiveLease(snapshot, now)) continue;
          const after = await deps.continueRun(snapshot);
          const known = new Set(snapshot.pendingApprovals.map((request) => request.approvalId));
          if (after.pendingApprovals.some((request) => request.outcomeUnknown && !known.has(request.approvalId)))
            askedAgain += 1;
          else resumed += 1;
        } catch (error) {
          failed += 1;
          deps.reportError(error, 'recover', runId);
        }
      }
      return { resumed, askedAgain, failed };
    },
  };
}
