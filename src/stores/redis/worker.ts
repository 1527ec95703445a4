import { ConfigError, StoreUnavailableError } from '../../errors.js';
import type { Runtime } from '../../index.js';
import { redisKeys } from './keys.js';
import { checkTiming, defaultConsumerName } from './consumer-group.js';
import { guardedHook } from './error-hook.js';
import type { GroupReaderOptions } from './group-reader-options.js';
import type { RedisClient } from './redis-client.js';
import { runLanes } from './run-lanes.js';
import type { StreamErrorInfo } from './stream-error-info.js';
import { runGroupReader } from './stream-group.js';

/**
 * The consumer group every worker reads `${prefix}jobs` through.
 * @internal the group is the workers' own bookkeeping (its tests read it), not an interface.
 *
 * @example
 * const [count] = (await redis.xpending('cs:jobs', WORKER_GROUP)) as [number]; // jobs taken but not finished
 */
export const WORKER_GROUP = 'countersign-workers';

/**
 * What a worker tells `onError`; `phase: 'resume'` is `runtime.resume` failing for `runId`, `phase: 'recover'` a
 * `runtime.recover()` pass that threw.
 *
 * @example
 * createWorker({ runtime, redis, onError: (info: WorkerErrorInfo) => log.error({ phase: info.phase, runId: info.runId, retrying: info.retrying }, String(info.error)) });
 */
export interface WorkerErrorInfo extends Omit<StreamErrorInfo, 'phase'> {
  readonly phase: StreamErrorInfo['phase'] | 'resume' | 'recover';
  readonly runId?: string;
  /**
   * For `'resume'`: true when the error is retryable (`StoreUnavailableError`)
   * and the job was left pending, to run again once idle for `claimIdleMs`;
   * false when the job was acknowledged and dropped.
   */
  readonly retrying?: boolean;
}

/**
 * Options of `createWorker`.
 *
 * @example
 * const options: WorkerOptions = { runtime, redis, prefix: 'myapp:', concurrency: 8, claimIdleMs: 60_000 };
 */
export interface WorkerOptions {
  /**
   * `resume` runs the jobs: it must be safe to call twice or concurrently for one run, as `createRuntime`'s is.
   * `recover`, when the runtime has it, runs every `recoverEveryMs`.
   */
  readonly runtime: Pick<Runtime, 'resume'> & Partial<Pick<Runtime, 'recover'>>;
  readonly redis: RedisClient;
  /** Key prefix shared with the store and the queue; jobs are read from `${prefix}jobs`. Default `'cs:'`, the same as the store's. */
  readonly prefix?: string;
  /** Most runs resumed at once by this worker. Default 4. */
  readonly concurrency?: number;
  /** This worker's consumer name in the group. Default: `<hostname>:<pid>:<random>`. */
  readonly consumer?: string;
  /** How long one blocking read waits for jobs, in ms; keep it below the client's `commandTimeout`, if one is set. Default 5,000. */
  readonly blockMs?: number;
  /**
   * A job unacknowledged this long is taken over by another worker, in ms:
   * its worker died, or its resume failed with a retryable error. Jobs a live
   * worker is still running are kept fresh and never taken. Default 30,000.
   */
  readonly claimIdleMs?: number;
  /**
   * How often the worker runs `runtime.recover()`, in ms, which carries on a run whose decision was recorded but
   * whose job never reached the queue (the front's enqueue failed), once it is `staleAfterMs` old. Default 60,000;
   * 0 turns it off (when something else runs `recover`, as `countersign worker` does).
   */
  readonly recoverEveryMs?: number;
  /** A job delivered more times than this is copied to `${prefix}jobs:dead` and dropped. Default 20. */
  readonly maxDeliveries?: number;
  /** Problems handled without stopping. Default: `console.error`. */
  readonly onError?: (info: WorkerErrorInfo) => void;
}

/**
 * A running worker, returned by `createWorker`.
 *
 * @example
 * const worker: Worker = createWorker({ runtime, redis });
 * process.once('SIGTERM', () => void worker.stop());
 * await worker.done;
 */
export interface Worker {
  readonly consumer: string;
  /** Runs being resumed right now by this worker. */
  readonly inFlight: number;
  /** Settles when the worker has stopped and drained; rejects if it could not start (the jobs key is not a stream). */
  readonly done: Promise<void>;
  /** Stops taking jobs, waits for the resumes in flight to finish and acknowledges them. Idempotent. */
  stop(): Promise<void>;
}

function isRetryable(error: unknown): boolean {
  return (
    error instanceof StoreUnavailableError ||
    (error instanceof Error && error.name === 'StoreUnavailableError') ||
    (typeof error === 'object' && error !== null && (error as { retryable?: unknown }).retryable === true)
  );
}

function defaultOnError(info: WorkerErrorInfo): void {
  console.error(`countersign worker (${info.phase}${info.runId ? ` run ${info.runId}` : ''}):`, info.error);
}

/**
 * Resumes the runs queued by `respond(..., { mode: 'enqueue' })`: reads
 * `${prefix}jobs` through the consumer group `countersign-workers`, calls
 * `runtime.resume(runId)` for each job with at most `concurrency` at once,
 * and acknowledges the job after it settles. Start as many workers, on as
 * many machines, as you like: the group hands each job to one of them, and a
 * worker that dies leaves its jobs to be claimed by another after
 * `claimIdleMs`. Jobs for a run already being resumed here wait for that
 * resume and then run once more, so one worker never resumes a run twice at once.
 *
 * @example
 * import { Redis } from 'ioredis';
 * import { createRuntime } from 'countersign';
 * import { createRedisStore, createWorker } from 'countersign/redis';
 *
 * const redis = new Redis(process.env.REDIS_URL!);
 * const runtime = createRuntime({ agents, store: createRedisStore({ redis }) });
 * const worker = createWorker({ runtime, redis, concurrency: 8 });
 * process.once('SIGTERM', () => void worker.stop().then(() => redis.quit()));
 */
export function createWorker(options: WorkerOptions): Worker {
  const { runtime } = options;
  if (typeof runtime?.resume !== 'function')
    throw new ConfigError(
      'createWorker: `runtime` must have a resume(runId) method; pass the object createRuntime returned.',
    );
  const settings = workerSettings(options);
  const report = guardedHook<WorkerErrorInfo>(options.onError ?? defaultOnError);

  let inFlight = 0;

  /** Resolves true when the job is done with (ack), false when it should run again later. */
  const resumeOnce = async (runId: string, entryId: string, deliveries: number): Promise<boolean> => {
    inFlight++;
    try {
      await runtime.resume(runId);
      return true;
    } catch (error) {
      const retrying = isRetryable(error);
      report({ error, phase: 'resume', runId, entryId, deliveries, retrying });
      return !retrying;
    } finally {
      inFlight--;
    }
  };

  const controller = new AbortController();
  const done = runGroupReader(
    jobReaderOptions(options.redis, settings, runLanes(resumeOnce), report),
    controller.signal,
  );
  done.catch((error: unknown) => report({ error, phase: 'group' }));
  const recovery = startRecovering(runtime, settings.recoverEveryMs, report);

  return {
    consumer: settings.consumer,
    get inFlight() {
      return inFlight;
    },
    done,
    stop() {
      recovery.stop();
      controller.abort();
      return Promise.all([done, recovery.running]).then(() => undefined);
    },
  };
}

/** A worker's options with their defaults, checked. */
interface WorkerSettings {
  readonly key: string;
  readonly consumer: string;
  readonly concurrency: number;
  readonly blockMs: number;
  readonly claimIdleMs: number;
  readonly maxDeliveries: number;
  readonly recoverEveryMs: number;
}

function workerSettings(options: WorkerOptions): WorkerSettings {
  const key = `${redisKeys(options.prefix).prefix}jobs`;
  const consumer = options.consumer ?? defaultConsumerName();
  const concurrency = options.concurrency ?? 4;
  const blockMs = options.blockMs ?? 5_000;
  const claimIdleMs = options.claimIdleMs ?? 30_000;
  const maxDeliveries = options.maxDeliveries ?? 20;
  const recoverEveryMs = options.recoverEveryMs ?? 60_000;
  checkTiming('createWorker', {
    concurrency,
    blockMs,
    claimIdleMs,
    maxDeliveries,
    ...(recoverEveryMs === 0 ? {} : { recoverEveryMs }),
  });
  if (!Number.isInteger(concurrency))
    throw new ConfigError(`createWorker: concurrency must be a whole number, got ${concurrency}.`);
  return { key, consumer, concurrency, blockMs, claimIdleMs, maxDeliveries, recoverEveryMs };
}

/** How the worker reads `${prefix}jobs`: each job's `runId` goes to `schedule`. */
function jobReaderOptions(
  redis: RedisClient,
  settings: WorkerSettings,
  schedule: (runId: string, entryId: string, deliveries: number) => Promise<boolean>,
  report: (info: WorkerErrorInfo) => void,
): GroupReaderOptions {
  const { key, consumer, blockMs, claimIdleMs, concurrency, maxDeliveries } = settings;
  return {
    redis,
    key,
    group: WORKER_GROUP,
    consumer,
    // Jobs queued before the first worker ever started must run too.
    startId: '0',
    blockMs,
    claimIdleMs,
    // Hold no more jobs than we run, so idle workers elsewhere get the rest.
    batch: concurrency,
    concurrency,
    maxDeliveries,
    // Only this group reads the jobs stream, so a finished job can go.
    deleteOnAck: true,
    onError: report,
    handle: async (entry) => {
      const runId = entry.fields['runId'];
      if (runId === undefined || runId.length === 0) {
        report({
          error: new Error(`Job ${entry.id} of ${key} has no runId field.`),
          phase: 'malformed',
          entryId: entry.id,
          deliveries: entry.deliveries,
        });
        return true;
      }
      return schedule(runId, entry.id, entry.deliveries);
    },
  };
}

/**
 * A decision recorded whose job was never queued has no job to find: the worker looks for such runs itself, every
 * `recoverEveryMs` (never when 0 or when the runtime has no `recover`). `running` is the pass under way, if any.
 */
function startRecovering(
  runtime: WorkerOptions['runtime'],
  recoverEveryMs: number,
  report: (info: WorkerErrorInfo) => void,
) {
  let recovering: Promise<void> | undefined;
  const recover = runtime.recover?.bind(runtime);
  const recoverTimer =
    recover && recoverEveryMs > 0
      ? setInterval(() => {
          // A pass still running when the next is due: skip it, the next tick looks again.
          recovering ??= recover()
            .then(
              () => undefined,
              (error: unknown) => report({ error, phase: 'recover' }),
            )
            .finally(() => (recovering = undefined));
        }, recoverEveryMs)
      : undefined;
  recoverTimer?.unref();
  return {
    get running() {
      return recovering;
    },
    stop: () => clearInterval(recoverTimer),
  };
}
