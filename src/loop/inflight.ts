/** What `cancel` aborts: a run's execute (src/loop/effects/run.ts). */
export interface Abortable {
  abort(reason: string): void;
}

/** Runs one agent is executing in this process right now, so `cancel` can abort their model and tool calls. */
export class InflightRuns {
  readonly #controllers = new Map<string, Set<Abortable>>();

  register(runId: string, run: Abortable): () => void {
    let set = this.#controllers.get(runId);
    if (!set) {
      set = new Set();
      this.#controllers.set(runId, set);
    }
    set.add(run);
    return () => {
      set.delete(run);
      if (set.size === 0) this.#controllers.delete(runId);
    };
  }

  /** The runs executing in this process now. */
  runIds(): IterableIterator<string> {
    return this.#controllers.keys();
  }

  abort(runId: string, reason: string): boolean {
    const set = this.#controllers.get(runId);
    if (!set) return false;
    for (const run of set) run.abort(reason);
    return true;
  }
}
