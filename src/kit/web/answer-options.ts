// The options of everything that answers a request for a decision (the approval app, each channel's click route):
// how the run goes on after the decision is recorded, how long the answer waits for it, how big a body may be.
import { z } from 'zod';
import { ConfigError } from '../../errors.js';
import type { Runtime } from '../../runtime/runtime.js';

/**
 * Where a run goes on once the approval app or a chat click recorded its decision (or, on the app, its start):
 *
 * - `'inline'` (default): here, before answering, for up to `resumeTimeoutMs` (then 202 while it goes on here).
 *   The tools must live in this process.
 * - `'enqueue'`: on a worker (`countersign worker`), through the runtime's `queue`: answered 202 as soon as the
 *   decision is recorded and the run queued. For a thin or serverless front.
 * - `'record'`: in another process that follows the run, such as the MCP gateway (`createMcpGateway`, decided
 *   here with `mcpGatewayAgent`): answered 202 as soon as the decision is recorded; nothing is resumed here and no
 *   queue is needed. A run nobody follows waits until something calls `runtime.resume(runId)`.
 *
 * @example
 * const resumeMode: ResumeMode = 'record';
 * createApprovalApp(createRuntime({ agents: [mcpGatewayAgent({ name: 'files' })], store }), { bearerToken, resumeMode });
 */
export type ResumeMode = 'inline' | 'record' | 'enqueue';

/** A body limit in bytes: 1 KiB to 64 MiB. */
export const maxBodyBytesSchema = z
  .number()
  .int('must be a whole number')
  .min(1024)
  .max(64 * 1024 * 1024);

/** For an `optionsObject({ ...answerOptionsShape, ... })`. */
export const answerOptionsShape = {
  resumeMode: z.enum(['inline', 'record', 'enqueue']).optional(),
  resumeTimeoutMs: z
    .number()
    .int('must be a whole number')
    .min(0)
    .max(15 * 60_000)
    .optional(),
  maxBodyBytes: maxBodyBytesSchema.optional(),
};

/**
 * The checked `resumeMode` of `where`'s options, `'inline'` when absent. `'enqueue'` on a runtime without a queue is
 * refused here, at creation, so no decision is ever recorded and then left unqueued.
 */
export function resumeModeOf(mode: ResumeMode | undefined, runtime: Pick<Runtime, 'queue'>, where: string): ResumeMode {
  if (mode === 'enqueue' && runtime.queue === undefined) {
    throw new ConfigError(
      `${where}: resumeMode 'enqueue' needs a runtime made with createRuntime({ queue: createRedisResumeQueue({ redis }) }); ` +
        "or use resumeMode 'inline' (the run goes on here) or 'record' (another process follows it).",
      'missing_option',
    );
  }
  return mode ?? 'inline';
}
