import type { AgentSnapshot } from '../../machine/types.js';

/** Runs whose stored message and audit counts a store remembers, to send only new messages without asking first. */
const KNOWN_RUNS = 10_000;
/** Runs whose latest snapshot a store keeps for `peek` (a decision on one of them skips the load). */
const PEEKED_RUNS = 1_000;

/** What a Redis store last saw of a run: its version, stored message and audit counts, and latest commit id. */
export interface KnownRun {
  readonly version: number;
  readonly messages: number;
  readonly audit: number;
  readonly commit: string;
}

/**
 * What one Redis store knows of the runs it committed or loaded, bounded
 * (oldest forgotten first).
 *
 * The counts let a commit send only its new entries without asking first: a
 * wrong guess costs one more round trip, never a wrong write (the script
 * checks). The commit id is sent with the next commit so a run deleted and
 * made again under the same id by someone else is a conflict, not a
 * successor. The latest snapshot is what `peek` hands out; a commit from it
 * is checked by the script against the stored version and commit id, so a
 * stale one is refused, never written.
 */
export class RunCache {
  readonly #known = new Map<string, KnownRun>();
  readonly #latest = new Map<string, AgentSnapshot>();

  remember(snapshot: AgentSnapshot, commit: string): void {
    const { runId } = snapshot;
    this.#known.delete(runId);
    this.#known.set(runId, { version: snapshot.version, messages: snapshot.messages.length, audit: snapshot.audit.length, commit });
    if (this.#known.size > KNOWN_RUNS) this.#known.delete(this.#known.keys().next().value!);
    this.#latest.delete(runId);
    this.#latest.set(runId, snapshot);
    if (this.#latest.size > PEEKED_RUNS) this.#latest.delete(this.#latest.keys().next().value!);
  }

  forget(runId: string): void {
    this.#known.delete(runId);
    this.#latest.delete(runId);
  }

  known(runId: string): KnownRun | undefined {
    return this.#known.get(runId);
  }

  /** The latest snapshot of the run, if still the version known to be stored. */
  peek(runId: string): AgentSnapshot | undefined {
    const snapshot = this.#latest.get(runId);
    return snapshot !== undefined && this.#known.get(runId)?.version === snapshot.version ? snapshot : undefined;
  }
}
