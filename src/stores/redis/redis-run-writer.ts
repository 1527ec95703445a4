// How the Redis store writes a run: one Lua compare-and-set (WRITE_RUN) that stores the new head, appends only the
// new messages and audit entries, sets the keys' TTLs and queues the commit's events; then, once it landed, the
// outbox entry finished (or left to a drain) and what this process knows of the run remembered.
import { randomUUID } from 'node:crypto';
import type { Redis, Cluster } from 'ioredis';
import { ConfigError, VersionConflictError } from '../../errors.js';
import type { AgentSnapshot, CommitOptions, CommitReceipt, RunEvent } from '../../index.js';
import type { redisKeys } from './keys.js';
import type { Durability } from './redis-durability.js';
import { encodeIndex, encodeStoredHead, indexEntries, keysTtl } from './redis-encoding.js';
import type { createOutbox } from './redis-outbox.js';
import type { RunCache } from './redis-run-cache.js';
import type { redisCommitWrites } from './redis-commit-writes.js';
import type { ScriptCommands } from './scripts.js';
import { guarded } from './unavailable.js';

/** What the write script answers (see `WRITE_RUN`). */
type WriteReply = [code: number, detail: number | string | null, number?, number?];

/** ARGV 16 to 21 of the write script when the commit queues nothing and replaces no remembered key. */
const NOTHING_FOLDED: readonly string[] = ['', '', '', '', '', ''];

/** One commit, encoded for the script. */
interface Prepared {
  readonly head: string;
  readonly index: string;
  readonly ttl: number;
  /** The commit's outbox field and id: the version first, so fields sort in commit order. */
  readonly field: string;
  readonly meta: string;
  readonly events: readonly RunEvent[];
}

/** What the writer needs of its store. */
export interface RunWriterParts {
  readonly redis: Redis | Cluster;
  readonly keys: ReturnType<typeof redisKeys>;
  readonly scripts: ScriptCommands;
  readonly durability: Durability;
  readonly runs: RunCache;
  readonly outbox: ReturnType<typeof createOutbox>;
  readonly commitWrites: ReturnType<typeof redisCommitWrites>;
  /** Events go to the stream inside the script (one server), else through the outbox. */
  readonly inline: boolean;
  /** Where the inline script finds the stream and the indexes (keys it is not given, so ioredis does not prefix them). */
  readonly fullPrefix: string;
  readonly clock: () => number;
  readonly retentionMs: number;
  readonly graceMs: number;
}

/** Creates and commits runs for the Redis store. */
export class RunWriter {
  readonly #parts: RunWriterParts;

  constructor(parts: RunWriterParts) {
    this.#parts = parts;
  }

  async create(snapshot: AgentSnapshot, events: readonly RunEvent[]): Promise<void> {
    const prepared = this.#prepare(snapshot, events);
    const reply = await this.#write('create', snapshot, 0, 0, prepared);
    if (reply[0] === 1 || reply[0] === 3) return this.#landed(snapshot, prepared, reply);
    throw new VersionConflictError(snapshot.runId, snapshot.version, Number(reply[1]));
  }

  async commit(
    next: AgentSnapshot,
    expectedVersion: number,
    events: readonly RunEvent[],
    commitOptions: CommitOptions,
  ): Promise<CommitReceipt> {
    const { runs, redis, keys } = this.#parts;
    if (next.version <= expectedVersion) {
      throw new ConfigError(
        `commit: run ${next.runId} has version ${next.version}, not above the expected ${expectedVersion}; ` +
          'commit the snapshot a step returned (every step raises the version), so a resent commit can be told apart.',
      );
    }
    const guess = runs.known(next.runId);
    // Without a count we know, guess that nothing is new: the script answers with the real counts if not.
    let seenMessages = guess?.version === expectedVersion ? guess.messages : next.messages.length;
    let seenAudit = guess?.version === expectedVersion ? guess.audit : next.audit.length;
    const prepared = this.#prepare(next, events);
    const { folded, remembered } = this.#parts.commitWrites.fold(next.runId, commitOptions.writes ?? []);
    for (let attempt = 0; attempt < 2; attempt++) {
      const reply = await this.#write(expectedVersion, next, seenMessages, seenAudit, prepared, folded);
      if (reply[0] === 4) return { replaced: false, held: String(reply[1]) };
      if (reply[0] === 1 || reply[0] === 3) {
        await this.#landed(next, prepared, reply);
        // A resent commit (3) had queued the job with its first landing; whether that landing also set the remembered
        // key shows in what the key holds now (its value is unique to this commit's claim or answer).
        const replaced =
          reply[0] === 1
            ? reply[3] === 1
            : remembered !== undefined &&
              (await guarded('read a remembered key', () => redis.get(keys.remember(remembered.key)))) ===
                remembered.value;
        return { replaced };
      }
      const actual = Number(reply[1]);
      if (reply[0] === 0) {
        runs.forget(next.runId);
        throw new VersionConflictError(next.runId, expectedVersion, actual === -1 ? undefined : actual);
      }
      seenMessages = Number(reply[2]);
      seenAudit = Number(reply[3]);
      // History is append-only: a snapshot with fewer messages than stored is not a successor of the stored run.
      if (seenMessages > next.messages.length || seenAudit > next.audit.length)
        throw new VersionConflictError(next.runId, expectedVersion, actual);
    }
    throw new VersionConflictError(next.runId, expectedVersion, undefined);
  }

  #prepare(snapshot: AgentSnapshot, events: readonly RunEvent[]): Prepared {
    const { clock, retentionMs, graceMs, inline } = this.#parts;
    // The audit list is stored apart (it grows per decision); one copy of the head without it and the messages.
    const { messages: _messages, audit: _audit, ...head } = snapshot;
    const now = clock();
    const ttl = keysTtl(snapshot, now, retentionMs, graceMs);
    return {
      head: encodeStoredHead(Object.assign(head, { audit: [] })),
      index: encodeIndex(indexEntries(snapshot, ttl)),
      ttl,
      // Also the commit's id: the script recognises a resend of this very commit by it.
      field: `${String(snapshot.version).padStart(12, '0')}:${randomUUID()}`,
      meta: inline ? '' : JSON.stringify({ t: now, events }),
      events,
    };
  }

  /** Runs the write script; returns its reply. */
  async #write(
    mode: 'create' | number,
    next: AgentSnapshot,
    seenMessages: number,
    seenAudit: number,
    prepared: Prepared,
    folded: readonly string[] = NOTHING_FOLDED,
  ): Promise<WriteReply> {
    const { durability, runs, scripts, keys, inline, fullPrefix } = this.#parts;
    if (durability.checksBeforeWrite) await durability.beforeWrite();
    const newMessages = next.messages.slice(seenMessages).map((message) => JSON.stringify(message));
    const newAudit = next.audit.slice(seenAudit).map((entry) => JSON.stringify(entry));
    const guess = runs.known(next.runId);
    const latestCommit = mode !== 'create' && guess?.version === mode ? guess.commit : '';
    try {
      return (await guarded(mode === 'create' ? 'create a run' : 'commit a run', () =>
        scripts.countersignWriteRun(
          ...keys.run(next.runId),
          mode,
          next.version,
          seenMessages,
          seenAudit,
          prepared.head,
          prepared.index,
          prepared.ttl,
          prepared.field,
          inline ? '' : prepared.meta,
          prepared.events.length,
          newMessages.length,
          newAudit.length,
          inline ? 'inline' : 'outbox',
          inline ? fullPrefix : '',
          latestCommit,
          ...folded,
          ...newMessages,
          ...newAudit,
          ...(inline ? prepared.events.flatMap((event) => [event.type, event.runId, JSON.stringify(event)]) : []),
        ),
      )) as WriteReply;
    } catch (error) {
      // Landed or not, what this store knew of the run may no longer hold.
      runs.forget(next.runId);
      throw error;
    }
  }

  /**
   * After a write that landed: reply 1 is this call's own write; reply 3 is
   * the same commit resent by ioredis after its first reply was lost, which
   * had landed, so its outbox entry (if not yet drained) is finished here.
   */
  async #landed(snapshot: AgentSnapshot, prepared: Prepared, reply: WriteReply): Promise<void> {
    const { runs, durability, outbox } = this.#parts;
    runs.remember(snapshot, prepared.field);
    if (durability.waitsForReplicas) await durability.afterWrite(snapshot);
    if (reply[0] === 1) {
      if (reply[2] === 1)
        await outbox.finish(snapshot.runId, prepared.field, prepared.events, String(reply[1]), prepared.index);
      return;
    }
    const entry = reply[1];
    if (typeof entry === 'string')
      await outbox.finish(snapshot.runId, prepared.field, prepared.events, entry.split('\n')[2] ?? '', prepared.index);
  }
}
