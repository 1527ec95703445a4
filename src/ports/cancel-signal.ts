/** A run cancelled, as `runtime.cancel` tells the processes that may be running it. */
export interface CancelNotice {
  readonly runId: string;
  readonly reason: string;
}

/**
 * How `runtime.cancel` reaches a run executing in another process: it commits the cancelled run, then publishes a
 * notice; every runtime executing runs on the same store listens while it does, and fires the `AbortSignal` of the
 * run's model call and running tool. A store offers one as `SnapshotStore.cancels`: `createMemoryStore()` within its
 * process, `createRedisStore()` through Redis pub/sub. A listener that may have missed notices (its connection dropped
 * and came back) is told through `missed`, and the runtime then reads its executing runs from the store.
 *
 * A store without one keeps the cancel within the process that calls it: a tool running elsewhere is not told.
 *
 * @example
 * const cancels = createRedisStore({ redis }).cancels;
 * const stop = await cancels.listen(({ runId, reason }) => console.log(runId, reason));
 * await cancels.publish({ runId: 'run_1', reason: 'operator pressed stop' });
 * stop();
 */
export interface CancelSignal {
  /** Tells every listener of every process that `runId` was cancelled (after the cancelled run is committed). */
  publish(notice: CancelNotice): Promise<void>;
  /**
   * Resolves once listening, so a notice published after that reaches `listener`; with a function that stops it.
   * `missed` is called when listening resumed after a gap in which notices may have been lost (a reconnect).
   */
  listen(listener: (notice: CancelNotice) => void, missed?: () => void): Promise<() => void>;
}
