import type { CancelNotice, CancelSignal } from '../../ports/cancel-signal.js';

/** A `CancelSignal` within one process: `createMemoryStore()`'s `cancels`, so runtimes sharing a memory store cancel each other's runs. */
export function createMemoryCancelSignal(): CancelSignal {
  const listeners = new Set<(notice: CancelNotice) => void>();
  return {
    async publish(notice) {
      for (const listener of [...listeners]) {
        try {
          listener(notice);
        } catch {
          // One listener's failure must not keep the notice from the others.
        }
      }
    },
    async listen(listener) {
      // Its own wrapper, so the same function listening twice is two listeners.
      const entry = (notice: CancelNotice) => listener(notice);
      listeners.add(entry);
      return () => {
        listeners.delete(entry);
      };
    },
  };
}
