// The runtime's ledger: a run loaded, changed and committed with a compare-and-set, tried again when another writer
// lands first. Every operation (start, respond, resume, cancel, expiry, nudges) writes through it, so a commit's
// events are announced once, only after it lands.
import { RunNotFoundError, VersionConflictError } from '../errors.js';
import { eventsBetween, type RunEvent } from '../run/run-events.js';
import type { AgentSnapshot } from '../run/agent-snapshot.js';
import type { CommitOptions, CommitReceipt, SnapshotStore } from '../ports/snapshot-store.js';
import type { Telemetry } from '../ports/telemetry.js';
import { parseArgument, runIdSchema } from './parse-argument.js';
import type { ReceiptSigner } from './receipts/receipt-keys.js';
import { withReceipts } from './receipts/sign-receipts.js';

/** The receipt of a commit that did nothing beyond the write. */
const NOTHING_DONE: CommitReceipt = { replaced: false };

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A change of a run: the next snapshot and what to answer, or nothing to commit. */
export type Change<T> = (current: AgentSnapshot) => { next: AgentSnapshot; result: T } | { unchanged: T };
/** The writes a commit of `next` also makes in the same atomic step (queue the run, claim or settle a key). */
export type OptionsFor = (next: AgentSnapshot) => CommitOptions | undefined;

/** The checkpoints of one execution, and the run as last stored by them (with its receipts). */
export interface Checkpoints {
  (next: AgentSnapshot): Promise<void>;
  /** `result` as stored, when it is what the last checkpoint wrote (same version), else `result` itself. */
  asStored(result: AgentSnapshot): AgentSnapshot;
}

/** What `update` made of a change: the run after it, the change's answer, whether it was committed, and the receipt. */
export interface Updated<T> {
  readonly next: AgentSnapshot;
  readonly result: T;
  readonly committed: boolean;
  readonly receipt: CommitReceipt;
}

export interface Ledger {
  readonly store: SnapshotStore;
  /** The stored run; throws `RunNotFoundError` for an unknown one. */
  get(runId: string): Promise<AgentSnapshot>;
  /** Stores `next` (with its events), or creates it when there is no `previous`; the receipt says what the store also did. */
  commit(next: AgentSnapshot, previous: AgentSnapshot | undefined, options?: CommitOptions): Promise<CommitReceipt>;
  /** Commits every step of an execution, starting from `from` (undefined for a new run). */
  checkpointFrom(from: AgentSnapshot | undefined): Checkpoints;
  /** Loads, changes and commits a run, reloading and trying again when another writer commits first. */
  update<T>(
    runId: string,
    change: Change<T>,
    optionsFor?: OptionsFor,
    retriesFor?: (current: AgentSnapshot) => number,
  ): Promise<Updated<T>>;
}

export interface LedgerSettings {
  readonly store: SnapshotStore;
  readonly maxRetries: number;
  /** Told of the events of every commit that lands. */
  readonly announce: (events: readonly RunEvent[]) => void;
  /** Told of every commit that lands, with the run before and after it; its failure goes to `onTelemetryError`. */
  readonly telemetry?: Telemetry | undefined;
  readonly onTelemetryError?: (error: unknown, runId: string) => void;
  /** Signs each decision a commit adds (`RuntimeOptions.receipts`); none when absent. */
  readonly receipts?: ReceiptSigner | undefined;
}

/** What a commit made of a change: the new run, or (a held claim stopped it) the run as it was. */
function committedOrHeld<T>(
  current: AgentSnapshot,
  outcome: { next: AgentSnapshot; result: T },
  receipt: CommitReceipt,
): Updated<T> {
  return receipt.held === undefined
    ? { next: outcome.next, result: outcome.result, committed: true, receipt }
    : { next: current, result: outcome.result, committed: false, receipt };
}

export function createLedger({
  store,
  maxRetries,
  announce,
  telemetry,
  onTelemetryError,
  receipts,
}: LedgerSettings): Ledger {
  /** Stores `unsigned` with receipts on the decisions it adds; what was stored, and the store's receipt. */
  const write = async (
    unsigned: AgentSnapshot,
    previous: AgentSnapshot | undefined,
    commitOptions?: CommitOptions,
  ): Promise<{ stored: AgentSnapshot; receipt: CommitReceipt }> => {
    const next = receipts === undefined ? unsigned : withReceipts(receipts, previous, unsigned);
    const events = eventsBetween(previous, next);
    const receipt =
      previous === undefined
        ? await store.create(next, events)
        : await store.commit(next, previous.version, events, commitOptions);
    // A held claim stopped the commit: nothing to announce.
    if (receipt?.held === undefined) {
      announce(events);
      try {
        telemetry?.recorded({ before: previous, after: next, events });
      } catch (error) {
        onTelemetryError?.(error, next.runId);
      }
    }
    return { stored: next, receipt: receipt ?? NOTHING_DONE };
  };

  const commit: Ledger['commit'] = async (next, previous, commitOptions) =>
    (await write(next, previous, commitOptions)).receipt;

  const checkpointFrom: Ledger['checkpointFrom'] = (from) => {
    let last = from;
    const checkpoint = async (next: AgentSnapshot) => {
      // The run as stored (with its receipts) is what the next checkpoint is compared with.
      last = (await write(next, last)).stored;
    };
    const asStored = (result: AgentSnapshot) =>
      last !== undefined && last.runId === result.runId && last.version === result.version ? last : result;
    return Object.assign(checkpoint, { asStored });
  };

  const get: Ledger['get'] = async (runId) => {
    parseArgument(runIdSchema, runId, 'runId');
    const snapshot = await store.load(runId);
    if (!snapshot) throw new RunNotFoundError(runId);
    return snapshot;
  };

  /**
   * Changes the run as the store last saw it here (`peek`, no round trip) and commits that: the store's
   * compare-and-set refuses it if the run moved on. Only a commit is trusted from it; a refusal, a change that
   * throws or finds nothing to do falls back to a load (undefined), which decides.
   */
  const fromPeek = async <T>(
    runId: string,
    change: Change<T>,
    optionsFor?: OptionsFor,
  ): Promise<Updated<T> | undefined> => {
    const current = store.peek?.(runId);
    if (current === undefined) return undefined;
    let outcome: ReturnType<typeof change>;
    try {
      outcome = change(current);
    } catch {
      return undefined;
    }
    if ('unchanged' in outcome) return undefined;
    let written: Awaited<ReturnType<typeof write>>;
    try {
      written = await write(outcome.next, current, optionsFor?.(outcome.next));
    } catch (error) {
      if (error instanceof VersionConflictError) return undefined;
      throw error;
    }
    return committedOrHeld(current, { next: written.stored, result: outcome.result }, written.receipt);
  };

  const update = async <T>(
    runId: string,
    change: Change<T>,
    optionsFor?: OptionsFor,
    retriesFor: (current: AgentSnapshot) => number = () => maxRetries,
  ): Promise<Updated<T>> => {
    parseArgument(runIdSchema, runId, 'runId');
    const peeked = await fromPeek(runId, change, optionsFor);
    if (peeked) return peeked;
    for (let attempt = 0; ; attempt++) {
      const current = await get(runId);
      const outcome = change(current);
      if ('unchanged' in outcome)
        return { next: current, result: outcome.unchanged, committed: false, receipt: NOTHING_DONE };
      try {
        const { stored, receipt } = await write(outcome.next, current, optionsFor?.(outcome.next));
        return committedOrHeld(current, { next: stored, result: outcome.result }, receipt);
      } catch (error) {
        if (!(error instanceof VersionConflictError) || attempt >= retriesFor(current)) throw error;
        // Spread the retries so a crowd of callers on one run does not collide again in lockstep.
        await pause(Math.random() * Math.min(50, 2 ** attempt));
      }
    }
  };

  return { store, get, commit, checkpointFrom, update };
}
