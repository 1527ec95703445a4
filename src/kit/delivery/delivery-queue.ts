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
  return new LaneQueue(options.concurrency);
}

type Work = (slot: LaneSlot) => Promise<void>;

/** The queue: lanes by key, a count of slots in use, and the lanes waiting for one. */
class LaneQueue implements DeliveryQueue {
  readonly #concurrency: number;
  readonly #lanes = new Map<string, Work[]>();
  readonly #waiting: string[] = [];
  /** Lanes back from `idle`, waiting for a slot: served before lanes that have not started. */
  readonly #returning: (() => void)[] = [];
  readonly #flushers = new Set<() => void>();
  readonly #slot: LaneSlot;
  #running = 0;
  #size = 0;

  constructor(concurrency: number) {
    this.#concurrency = concurrency;
    this.#slot = {
      idle: async (pause) => {
        this.#release();
        try {
          return await pause();
        } finally {
          await this.#reacquire();
        }
      },
    };
  }

  enqueue(key: string, work: Work): void {
    this.#size += 1;
    const lane = this.#lanes.get(key);
    if (lane) {
      lane.push(work);
      return;
    }
    this.#lanes.set(key, [work]);
    this.#waiting.push(key);
    this.#pump();
  }

  flush(): Promise<void> {
    if (this.#size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#flushers.add(resolve));
  }

  get size(): number {
    return this.#size;
  }

  #settle(): void {
    if (this.#size > 0) return;
    for (const resolve of this.#flushers) resolve();
    this.#flushers.clear();
  }

  #release(): void {
    const next = this.#returning.shift();
    // The slot passes straight to a returning lane; `running` stays as it is.
    if (next) {
      next();
      return;
    }
    this.#running -= 1;
    this.#pump();
  }

  #reacquire(): Promise<void> {
    if (this.#running < this.#concurrency) {
      this.#running += 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#returning.push(resolve));
  }

  #pump(): void {
    while (this.#running < this.#concurrency && this.#waiting.length > 0) {
      const key = this.#waiting.shift()!;
      this.#running += 1;
      void this.#drain(key, this.#lanes.get(key)!);
    }
  }

  /** Runs a lane's work in order until it is empty, then gives its slot back. */
  async #drain(key: string, lane: Work[]): Promise<void> {
    while (lane.length > 0) {
      const work = lane[0]!;
      try {
        await work(this.#slot);
      } catch {
        // The work reports its own failures; the lane goes on.
      }
      lane.shift();
      this.#size -= 1;
    }
    this.#lanes.delete(key);
    this.#release();
    this.#settle();
  }
}
