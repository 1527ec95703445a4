import { StoreUnavailableError } from '../errors.js';
import type { ApprovalResponse, AgentSnapshot, RespondMode, RespondResult, Runtime } from '../index.js';
import { problemFor } from '../kit/index.js';
import { voteOf } from './vote-of.js';

/** What `recordBatch` did: one result per decision, the run as the last one left it, and whether any was new. */
export interface RecordedBatch {
  readonly results: readonly Record<string, unknown>[];
  readonly latest: AgentSnapshot;
  readonly recorded: boolean;
}

/**
 * Records each decision of a batch on its own (`mode`, never resuming here), collecting a refusal per item as a
 * problem; an unreachable store throws, so no answer stands for a decision that was not written (a retry finds the
 * recorded ones as duplicates). The caller resumes the run once.
 *
 * @example
 * const { results, latest, recorded } = await recordBatch(runtime, run, items, 'record', (error) => report(error));
 */
export async function recordBatch(
  runtime: Runtime,
  run: AgentSnapshot,
  items: readonly ApprovalResponse[],
  mode: RespondMode,
  onUnexpected: (error: unknown) => void,
): Promise<RecordedBatch> {
  const results: Record<string, unknown>[] = [];
  let latest = run;
  let recorded = false;
  for (const item of items) {
    try {
      const result: RespondResult = await runtime.respond(run.runId, item, { mode });
      latest = result.snapshot;
      recorded ||= !result.duplicate;
      results.push({ approvalId: item.approvalId, ok: true, duplicate: result.duplicate, ...voteOf(result) });
    } catch (error) {
      if (error instanceof StoreUnavailableError) throw error;
      const answer = problemFor(error);
      if (answer.unexpected) onUnexpected(error);
      results.push({ approvalId: item.approvalId, ok: false, problem: answer.problem });
    }
  }
  return { results, latest, recorded };
}
