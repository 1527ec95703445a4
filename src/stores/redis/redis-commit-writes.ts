// How the Redis store makes a commit's typed writes (CommitWrite) inside its write script: the job added to the
// queue's stream, and one remembered key claimed (expected absent) or replaced, as ARGV 16 to 21 of WRITE_RUN.
import type { Cluster, Redis } from 'ioredis';
import { UnsupportedCommitWriteError } from '../../errors.js';
import type { CommitWrite } from '../../index.js';
import { jobStreamOf } from './resume-queue.js';

export interface CommitWriteSettings {
  readonly redis: Redis | Cluster;
  /**
   * Whether the script can make writes at all: on one server publishing inline, and not waiting for replicas (that
   * wait comes after the script, and a commit that then fails must not have queued or claimed anything yet).
   */
  readonly folds: boolean;
  /** The connection's own key prefix, which ioredis does not add to keys passed as arguments. */
  readonly connectionPrefix: string;
  /** The key a remembered key is kept under (the store's `once`), before the connection's prefix. */
  readonly rememberKey: (key: string) => string;
}

/** A remembered key to claim (`expected` '') or replace, as the write script takes it. */
type Remembered = { readonly key: string; readonly expected: string; readonly value: string; readonly ttlMs: number };

export function redisCommitWrites({ redis, folds, connectionPrefix, rememberKey }: CommitWriteSettings) {
  /** The full key of a queue's job stream when the commit script can add to it (same connection, one server), else ''. */
  const jobStream = (queue: object): string => {
    const stream = jobStreamOf(queue);
    return folds && stream?.redis === redis ? `${connectionPrefix}${stream.key}` : '';
  };

  const appliesAtomically = (write: CommitWrite): boolean =>
    folds && (write.kind !== 'enqueue' || jobStream(write.queue) !== '');

  /**
   * ARGV 16 to 21 of the write script for `writes`, and the remembered key among them. Refuses, before anything is
   * written, a write the script cannot make: one it does not apply atomically, a second job, a second key.
   */
  const fold = (
    runId: string,
    writes: readonly CommitWrite[],
  ): { readonly folded: readonly string[]; readonly remembered: Remembered | undefined } => {
    let stream = '';
    let remembered: Remembered | undefined;
    for (const write of writes) {
      if (!appliesAtomically(write)) {
        const why = folds
          ? 'its queue is not on the connection of the store'
          : 'the store publishes through an outbox or waits for replicas after its script';
        throw new UnsupportedCommitWriteError(runId, write.kind, why);
      }
      if (write.kind === 'enqueue') {
        if (stream !== '') throw new UnsupportedCommitWriteError(runId, write.kind, 'a commit queues a run once');
        stream = jobStream(write.queue);
        continue;
      }
      if (remembered !== undefined)
        throw new UnsupportedCommitWriteError(runId, write.kind, 'a commit claims or replaces one remembered key');
      // A claim is a replace that expects the key absent (checked by the script before it writes anything).
      remembered = write.kind === 'putIfAbsent' ? { ...write, expected: '' } : write;
    }
    const key =
      remembered === undefined
        ? ['', '', '', '']
        : [
            `${connectionPrefix}${rememberKey(remembered.key)}`,
            remembered.expected,
            remembered.value,
            String(Math.ceil(remembered.ttlMs)),
          ];
    return { folded: [stream, runId, ...key], remembered };
  };

  return { appliesAtomically, fold };
}
