/**
 * What a piece of queued work may do with its concurrency slot.
 *
 * @example
 * queue.enqueue(runId, ({ idle }) => withRetries(send, { ...policy, sleep: (ms) => idle(() => wait(ms)) }));
 */
export interface LaneSlot {
  /** Runs `pause` (a wait between tries) without holding a slot, so other keys' work goes ahead meanwhile; the lane keeps its place in line. */
  idle<T>(pause: () => Promise<T>): Promise<T>;
}

/**
 * An ordered queue per key (a run): work for one key runs one at a time, in
 * the order it was queued; work for different keys runs side by side, at
 * most `concurrency` at once. A failing piece of work never stops the next.
 *
 * @example
 * const queue = createDeliveryQueue({ concurrency: 8 });
 * queue.enqueue(event.runId, () => post(event));
 * await queue.flush();
 */
export interface DeliveryQueue {
  /** Queues `work` behind the earlier work of `key`; returns at once. */
  enqueue(key: string, work: (slot: LaneSlot) => Promise<void>): void;
  /** Resolves once everything queued so far (and queued while waiting) has finished. */
  flush(): Promise<void>;
  /** Pieces of work queued or running. */
  readonly size: number;
}

export function createDeliveryQueue(options: { readonly concurrency: number }): DeliveryQueue {
  const lanes = new Map<string, ((slot: LaneSlot) => Promise<void>)[]>();
  const waiting: string[] = [];
  /** Lanes back from `idle`, waiting for a slot: served before lanes that have not started. */
  const returning: (() => void)[] = [];
  const flushers = new Set<() => void>();
  let running = 0;
  let size = 0;

  const settle = () => {
    if (size > 0) return;
    for (const resolve of flushers) resolve();
    flushers.clear();
  };
  const release = () => {
    const next = returning.shift();
    // The slot passes straight to a returning lane; `running` stays as it is.
    if (next) return next();
    running -= 1;
    pump();
  };
  const reacquire = (): Promise<void> => {
    if (running < options.concurrency) {
      running += 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => returning.push(resolve));
  };
  const slot: LaneSlot = {
    async idle(pause) {
      release();
      try {
        return await pause();
      } finally {
        await reacquire();
      }
    },
  };
  const pump = () => {
    while (running < options.concurrency && waiting.length > 0) {
      const key = waiting.shift()!;
      const lane = lanes.get(key)!;
      running += 1;
      void (async () => {
        while (lane.length > 0) {
          const work = lane[0]!;
          try {
            await work(slot);
          } catch {
            // The work reports its own failures; the lane goes on.
          }
          lane.shift();
          size -= 1;
        }
        lanes.delete(key);
        release();
        settle();
      })();
    }
  };

  return {
    enqueue(key, work) {
      size += 1;
      const lane = lanes.get(key);
      if (lane) {
        lane.push(work);
        return;
      }
      lanes.set(key, [work]);
      waiting.push(key);
      pump();
    },
    flush() {
      if (size === 0) return Promise.resolve();
      return new Promise((resolve) => flushers.add(resolve));
    },
    get size() {
      return size;
    },
  };
}
