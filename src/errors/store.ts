// The store: a compare-and-set lost, a run that exists or does not, a store that cannot be reached.
import { CountersignError } from './base.js';
import { ConfigError } from './config.js';

/** Another writer changed the run first (compare-and-set lost). */
export class VersionConflictError extends CountersignError {
  readonly runId: string;
  readonly expected: number;
  readonly actual: number | undefined;

  constructor(runId: string, expected: number, actual: number | undefined) {
    super(
      'version_conflict',
      `Run ${runId} is at version ${actual ?? '(missing)'}, not ${expected}: another writer committed first. Reload and retry.`,
    );
    this.runId = runId;
    this.expected = expected;
    this.actual = actual;
  }
}

/**
 * A start named a run (by its run id, or by an idempotency key) that already exists with another start: another
 * agent, or other input, session, requester or origin. A retry of the same start gets the existing run instead.
 *
 * @example
 * try { await runtime.start('files', { input, runId }); }
 * catch (error) { if (error instanceof RunExistsError) console.log(`${error.runId} is taken by another start`); }
 */
export class RunExistsError extends CountersignError {
  readonly runId: string;

  constructor(runId: string) {
    super(
      'run_exists',
      `Run ${runId} already exists, started with another agent or other input (messages, sessionId, requestedBy or origin); nothing was started. ` +
        'A retry must send the very same start to get the existing run; start a new run with a new run id or idempotency key.',
    );
    this.runId = runId;
  }
}

/** No run with this id is stored. */
export class RunNotFoundError extends CountersignError {
  readonly runId: string;

  constructor(runId: string) {
    super('run_not_found', `No run ${runId} is stored; it never existed or its retention ran out.`);
    this.runId = runId;
  }
}

/** The store could not be reached; the operation may be retried. */
export class StoreUnavailableError extends CountersignError {
  readonly retryable = true;

  constructor(message: string, cause?: unknown) {
    super('store_unavailable', `${message} The operation can be retried.`, { cause, fault: 'environment' });
  }
}

/**
 * A commit carried a write (`CommitWrite`) its store cannot make in the same atomic step as the run: nothing was
 * written. Ask `store.appliesAtomically(write)` first, and make a write it cannot yourself, before or after the commit.
 *
 * @example
 * try { await store.commit(next, version, events, { writes }); }
 * catch (error) { if (error instanceof UnsupportedCommitWriteError) console.log(error.kind, error.runId); }
 */
export class UnsupportedCommitWriteError extends ConfigError {
  readonly runId: string;
  readonly kind: string;

  constructor(runId: string, kind: string, why: string) {
    super(
      `commit: this store cannot make a '${kind}' write atomically with the commit of run ${runId} (${why}); ask store.appliesAtomically(write) first and make it yourself otherwise. Nothing was written.`,
      'unsupported_write',
    );
    this.runId = runId;
    this.kind = kind;
  }
}
