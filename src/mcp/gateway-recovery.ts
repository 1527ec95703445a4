import type { SnapshotStore } from '../index.js';

export interface RecoverySettings {
  readonly store: SnapshotStore;
  readonly agentName: string;
  readonly everyMs: number;
  /** Follows a run of the agent from the next look on (a run already followed stays as it is). */
  readonly follow: (runId: string) => void;
  /** A pass that failed (the store unreachable); the next pass tries again. */
  readonly report: (error: unknown) => void;
}

/** Pending runs read per pass at most: pages of the largest size the port allows. */
const PAGE = 500;
const MAX_PAGES = 20;
/** Running runs read per pass at most. */
const MAX_RUNNING = 1000;

/** The ids of the agent's runs that wait for a person or are left running. */
async function unfinishedRuns(store: SnapshotStore, agentName: string): Promise<Set<string>> {
  const found = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const listed = await store.listPending({
      agent: agentName,
      limit: PAGE,
      ...(cursor === undefined ? {} : { cursor }),
    });
    for (const item of listed.items) found.add(item.runId);
    cursor = listed.cursor;
    if (cursor === undefined) break;
  }
  // Every run left running, leased or not: at the end of time every lease has ended. The follower leaves a run whose
  // call holds a live lease alone until the lease ends.
  const now = Date.now();
  for (const runId of await store.runsToRecover(Number.MAX_SAFE_INTEGER, now, MAX_RUNNING)) {
    if (found.has(runId)) continue;
    const run = await store.load(runId);
    if (run?.agentName === agentName && run.status === 'running') found.add(runId);
  }
  return found;
}

/** Starts the passes (the first at once); `close` stops them. */
export function startRecovery({ store, agentName, everyMs, follow, report }: RecoverySettings) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let closed = false;
  const pass = async () => {
    try {
      for (const runId of await unfinishedRuns(store, agentName)) if (!closed) follow(runId);
    } catch (error) {
      report(error);
    }
    if (!closed) timer = setTimeout(pass, everyMs).unref();
  };
  const first = pass();
  return {
    /** The first pass, done. */
    started: first,
    close(): void {
      closed = true;
      clearTimeout(timer);
    },
  };
}
