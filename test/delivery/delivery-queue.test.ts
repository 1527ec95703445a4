import { describe, expect, it } from 'vitest';
import { createDeliveryQueue } from '../../src/kit/delivery/index.js';

/** A promise and the function that resolves it. */
function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

describe('createDeliveryQueue', () => {
  it('runs the work of one key one at a time, in the order it was queued', async () => {
    const queue = createDeliveryQueue({ concurrency: 4 });
    const done: string[] = [];
    const gate = deferred();
    queue.enqueue('run_1', async () => {
      await gate.promise;
      done.push('a');
    });
    queue.enqueue('run_1', async () => void done.push('b'));
    queue.enqueue('run_1', async () => void done.push('c'));
    expect(queue.size).toBe(3);
    gate.resolve();
    await queue.flush();
    expect(done).toEqual(['a', 'b', 'c']);
    expect(queue.size).toBe(0);
  });

  it('runs different keys side by side, never more than `concurrency` at once', async () => {
    const queue = createDeliveryQueue({ concurrency: 2 });
    const gates = [deferred(), deferred(), deferred(), deferred()];
    const started: number[] = [];
    for (const [index, gate] of gates.entries()) {
      queue.enqueue(`run_${index}`, async () => {
        started.push(index);
        await gate.promise;
      });
    }
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    gates[1]!.resolve();
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual([0, 1, 2]);
    for (const gate of gates) gate.resolve();
    await queue.flush();
    expect(started).toEqual([0, 1, 2, 3]);
  });

  it('flush waits for work queued while it was waiting', async () => {
    const queue = createDeliveryQueue({ concurrency: 1 });
    const done: string[] = [];
    queue.enqueue('run_1', async () => {
      await Promise.resolve();
      queue.enqueue('run_2', async () => {
        await Promise.resolve();
        done.push('later');
      });
      done.push('first');
    });
    await queue.flush();
    expect(done).toEqual(['first', 'later']);
  });

  it('goes on with a lane after a piece of work throws', async () => {
    const queue = createDeliveryQueue({ concurrency: 1 });
    const done: string[] = [];
    queue.enqueue('run_1', async () => {
      throw new Error('boom');
    });
    queue.enqueue('run_1', async () => void done.push('next'));
    await queue.flush();
    expect(done).toEqual(['next']);
  });

  it('gives the slot of a lane that waits in idle() to other keys, and keeps that lane in order', async () => {
    const queue = createDeliveryQueue({ concurrency: 1 });
    const done: string[] = [];
    const pause = deferred();
    queue.enqueue('run_1', async ({ idle }) => {
      await idle(() => pause.promise);
      done.push('run_1 first');
    });
    queue.enqueue('run_1', async () => void done.push('run_1 second'));
    queue.enqueue('run_2', async () => {
      done.push('run_2');
      pause.resolve();
    });
    await queue.flush();
    expect(done).toEqual(['run_2', 'run_1 first', 'run_1 second']);
  });
});
