import type { Message, AgentSnapshot } from '../../index.js';

/** Runs whose stored message and audit counts a store remembers, to send only new messages without asking first. */
const KNOWN_RUNS = 10_000;
/** Bytes of recent snapshots a store keeps for `peek` by default (`RedisStoreOptions.peekCacheBytes`). */
export const DEFAULT_PEEK_CACHE_BYTES = 16 * 1024 * 1024;
/** What a snapshot's head (status, pending approvals, tool calls) is counted as, beside its messages. */
const HEAD_BYTES = 2048;

// Messages are frozen and shared by the successive snapshots of a run, so each is measured once.
const messageSizes = new WeakMap<Message, number>();
const sizeOf = (message: Message): number => {
  let size = messageSizes.get(message);
  if (size === undefined) {
    size =
      64 +
      message.content.length +
      (message.toolCalls === undefined ? 0 : JSON.stringify(message.toolCalls).length) +
      (message.parts === undefined ? 0 : JSON.stringify(message.parts).length);
    messageSizes.set(message, size);
  }
  return size;
};

/** About how much memory a snapshot holds: its messages' text, tool calls and parts (characters), and its head. */
export function snapshotBytes(snapshot: AgentSnapshot): number {
  let bytes = HEAD_BYTES;
  for (const message of snapshot.messages) bytes += sizeOf(message);
  return bytes;
}

/** What a Redis store last saw of a run: its version, stored message and audit counts, and latest commit id. */
export interface KnownRun {
  readonly version: number;
  readonly messages: number;
  readonly audit: number;
  readonly commit: string;
}

/**
 * What one Redis store knows of the runs it committed or loaded, bounded
 * (oldest forgotten first): counts by number of runs, snapshots by bytes
 * (a few long histories must not hold a process's memory).
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
  readonly #latest = new Map<string, { readonly snapshot: AgentSnapshot; readonly bytes: number }>();
  readonly #maxBytes: number;
  #bytes = 0;

  constructor(maxBytes = DEFAULT_PEEK_CACHE_BYTES) {
    this.#maxBytes = maxBytes;
  }

  /** Bytes of snapshots kept now (as `snapshotBytes` counts them). */
  get bytes(): number {
    return this.#bytes;
  }

  remember(snapshot: AgentSnapshot, commit: string): void {
    const { runId } = snapshot;
    this.#known.delete(runId);
    this.#known.set(runId, {
      version: snapshot.version,
      messages: snapshot.messages.length,
      audit: snapshot.audit.length,
      commit,
    });
    if (this.#known.size > KNOWN_RUNS) this.#known.delete(this.#known.keys().next().value!);
    this.#drop(runId);
    if (this.#maxBytes === 0) return;
    const bytes = snapshotBytes(snapshot);
    this.#latest.set(runId, { snapshot, bytes });
    this.#bytes += bytes;
    // Oldest first; a snapshot larger than the whole budget is not kept at all.
    while (this.#bytes > this.#maxBytes) this.#drop(this.#latest.keys().next().value!);
  }

  forget(runId: string): void {
    this.#known.delete(runId);
    this.#drop(runId);
  }

  #drop(runId: string): void {
    const entry = this.#latest.get(runId);
    if (entry === undefined) return;
    this.#latest.delete(runId);
    this.#bytes -= entry.bytes;
  }

  known(runId: string): KnownRun | undefined {
    return this.#known.get(runId);
  }

  /** The latest snapshot of the run, if still the version known to be stored. */
  peek(runId: string): AgentSnapshot | undefined {
    const snapshot = this.#latest.get(runId)?.snapshot;
    return snapshot !== undefined && this.#known.get(runId)?.version === snapshot.version ? snapshot : undefined;
  }
}
