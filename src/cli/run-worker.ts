import type { Runtime } from '../runtime/runtime.js';
import { inert } from './format.js';
import { importIoredis } from './import-ioredis.js';
import { UsageError } from '../errors.js';

export interface WorkerCommandOptions {
  readonly concurrency: number;
  readonly prefix: string | undefined;
  /** How often to sweep expired approvals and recover abandoned runs. */
  readonly housekeepingMs: number;
}

export interface WorkerIo {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  readonly env: Record<string, string | undefined>;
  /** Aborting it stops the worker gracefully (the CLI ties it to SIGINT and SIGTERM). */
  readonly signal: AbortSignal;
}

/**
 * `countersign worker`: resumes the runs queued with `mode: 'enqueue'` from
 * the Redis Stream at `REDIS_URL`, and keeps the runtime tidy on a timer
 * (expired approvals swept, abandoned runs recovered). Stops, draining what
 * it runs, when `io.signal` aborts. ioredis is loaded only here.
 */
export async function runWorker(runtime: Runtime, io: WorkerIo, options: WorkerCommandOptions): Promise<number> {
  const url = io.env['REDIS_URL'];
  if (!url)
    throw new UsageError('worker reads its jobs from Redis: set REDIS_URL, e.g. REDIS_URL=redis://127.0.0.1:6379');
  const [{ Redis }, { createWorker }] = await Promise.all([
    importIoredis('worker'),
    import('../stores/redis/index.js'),
  ]);
  const redis = new Redis(url);
  redis.on('error', () => {});
  const report = (what: string, error: unknown) =>
    io.stderr.write(inert(`worker: ${what}: ${(error as Error)?.message ?? String(error)}\n`));
  const worker = createWorker({
    runtime,
    redis,
    concurrency: options.concurrency,
    // Recovery runs with the sweep in the housekeeping below.
    recoverEveryMs: 0,
    ...(options.prefix === undefined ? {} : { prefix: options.prefix }),
    onError: (info) => report(`${info.phase}${info.runId ? ` run ${info.runId}` : ''}`, info.error),
  });
  let housekeeping = Promise.resolve();
  const timer = setInterval(() => {
    housekeeping = housekeeping
      .then(async () => {
        const swept = await runtime.sweepExpired();
        const recovered = await runtime.recover();
        if (swept.expired + recovered.resumed + recovered.askedAgain > 0) {
          io.stdout.write(
            `expired ${swept.expired} approvals; resumed ${recovered.resumed} runs; asked again about ${recovered.askedAgain} calls\n`,
          );
        }
        if (swept.reminded + swept.escalated > 0)
          io.stdout.write(`reminded of ${swept.reminded} approvals; made ${swept.escalated} escalations\n`);
        if (swept.failed + recovered.failed > 0)
          report(
            'housekeeping',
            new Error(`${swept.failed + recovered.failed} runs could not go on; see the runtime's onError`),
          );
      })
      .catch((error: unknown) => void report('housekeeping', error));
  }, options.housekeepingMs);
  io.stdout.write(`worker ${worker.consumer} resuming queued runs (concurrency ${options.concurrency})\n`);
  await new Promise<void>((resolve) => {
    if (io.signal.aborted) resolve();
    io.signal.addEventListener('abort', () => resolve(), { once: true });
    worker.done.then(resolve, (error: unknown) => {
      report('stopped', error);
      resolve();
    });
  });
  clearInterval(timer);
  await housekeeping;
  await worker.stop();
  await redis.quit();
  io.stdout.write('worker stopped\n');
  return 0;
}
