/**
 * Where `respond(..., { mode: 'enqueue' })` leaves a run whose decisions are
 * all recorded, for a worker to resume. The Redis one (`createRedisResumeQueue`
 * in countersign/redis) is a Stream read by `createWorker` through a consumer
 * group; a job lost before it is queued is found again by `runtime.recover()`.
 *
 * @example
 * const queue: ResumeQueue = { async enqueue(runId) { await jobs.push(runId) } };
 * const runtime = createRuntime({ agents, store, queue });
 */
export interface ResumeQueue {
  enqueue(runId: string): Promise<void>;
}
