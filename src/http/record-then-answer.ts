import type { Context } from 'hono';
import {
  voteProgress,
  type ApprovalResponse,
  type AgentSnapshot,
  type CommitWrite,
  type DecideResult,
  type RespondMode,
} from '../index.js';
import { awaitRun } from '../kit/index.js';
import type { AppEnv } from './app-env.js';
import { answerJson } from './answer-json.js';
import { runView } from './run-view.js';
import { voteOf } from './vote-of.js';
import type { RouteSettings } from './routes/route-settings.js';

/**
 * The answer to a decision whose run goes on elsewhere (enqueue, record): "accepted" once it made the run ready (a
 * worker, or the process following the run, carries it on), else the run as it stands.
 */
function elsewhereAnswer(runId: string, snapshot: AgentSnapshot, duplicate: boolean, vote: ReturnType<typeof voteOf>) {
  return snapshot.status === 'running' && !duplicate
    ? { status: 202 as const, body: { status: 'running', accepted: true, runId, duplicate, ...vote } }
    : { status: 200 as const, body: { status: snapshot.status, duplicate, run: runView(snapshot), ...vote } };
}

/** The answer stored with the commit that records a response, so its vote (if any) is recorded. */
function storedAnswer(runId: string, approvalId: string, next: AgentSnapshot) {
  const progress = voteProgress(next, approvalId);
  const vote =
    progress === undefined
      ? {}
      : {
          vote: {
            recorded: true,
            approvals: progress.approvals,
            required: progress.required,
            remaining: progress.remaining,
          },
        };
  const answer = elsewhereAnswer(runId, next, false, vote);
  return [answer.status, JSON.stringify(answer.body)] as const;
}

/**
 * How the write routes answer once a decision or a start is recorded: the run goes on here (inline) for up to
 * `resumeTimeoutMs`, on a worker (enqueue) or in another process following it (record); a run still going is a 202
 * pointing at it.
 */
export function recordThenAnswer({ runtime, resumeMode, resumeTimeoutMs, report, claimedByCommit }: RouteSettings) {
  /** How a route records before it answers: with the run's queueing in enqueue mode, alone otherwise (the run then goes on here). */
  const recordMode: RespondMode = resumeMode === 'enqueue' ? 'enqueue' : 'record';

  /**
   * Runs a recorded run on here, answering 202 when that takes longer than `resumeTimeoutMs` (and reporting its
   * later failure). Only called once the decision or the run is recorded, so a 202 never stands for a write that
   * may not happen: a failed record is thrown first, and answered 503 with Retry-After.
   */
  const carryOn = <T>(work: Promise<T>, operation: string, runId: string) =>
    awaitRun(work, resumeTimeoutMs, (error) => report(error, { operation, runId }));

  /** Where a run that went on after the answer and failed is reported. */
  const late = (operation: string) => (error: unknown, runId: string) => report(error, { operation, runId });

  const accepted = (c: Context<AppEnv>, runId: string, extra: object = {}) =>
    answerJson(c, { status: 'running', accepted: true, runId, ...extra }, 202, {
      location: `/runs/${encodeURIComponent(runId)}`,
    });

  /** The answer to a decision: 202 while the run goes on (here past the wait, on a worker, or elsewhere), else the run. */
  const answerDecided = (c: Context<AppEnv>, runId: string, decided: DecideResult) => {
    const vote = voteOf(decided);
    if (decided.outcome === 'continuing') return accepted(c, runId, { duplicate: decided.duplicate, ...vote });
    return answerJson(c, {
      status: decided.status,
      duplicate: decided.duplicate,
      run: runView(decided.snapshot),
      ...vote,
    });
  };

  /** Whether the run as this process last saw it already records a decision on `approvalId`: a redelivery, most likely. */
  const seenDecided = (runId: string, approvalId: string) =>
    runtime.store.peek?.(runId)?.audit.some((entry) => entry.approvalId === approvalId) === true;

  /**
   * Records a decision through `runtime.decide` (the run goes on as `resumeMode` says) and answers for it. Enqueued, a
   * signed delivery's webhook-id is claimed, with the answer, by the decision's own commit where the store claims in
   * its commit (one round trip for the claim, the decision, the job and the answer); else its claim is settled with
   * the answer in that commit where the store can, else by the claim's middleware. A decision with nothing to commit (a duplicate), or one this process already saw recorded,
   * claims the id on its own first, so a redelivery is answered from its claim.
   */
  const decide = async (c: Context<AppEnv>, runId: string, response: ApprovalResponse) => {
    const delivery = resumeMode === 'enqueue' ? c.var.delivery : undefined;
    /** A repeat's answer, the middleware told that nothing is left to store (the answer may also be a 409 thrown). */
    const repeatOf = (answer: () => Response) => {
      c.set('settled', true);
      return answer();
    };
    let inCommit = delivery !== undefined && claimedByCommit;
    if (inCommit && seenDecided(runId, response.approvalId)) {
      const repeat = await delivery!.claim();
      if (repeat !== undefined) return repeatOf(() => repeat);
      inCommit = false;
    }
    const answerOf = (next: AgentSnapshot) => storedAnswer(runId, response.approvalId, next);
    // In the decision's commit: the id claimed with its answer, or (where the store can) its claim settled with it.
    const writes = (next: AgentSnapshot): readonly CommitWrite[] => {
      if (delivery === undefined) return [];
      if (inCommit) return [{ kind: 'putIfAbsent', ...delivery.claimWith(...answerOf(next)) }];
      const settle: CommitWrite = { kind: 'replaceIf', ...delivery.settleWith(...answerOf(next)) };
      return runtime.store.appliesAtomically?.(settle) === true ? [settle] : [];
    };
    const recorded = await runtime.decide(runId, response, {
      mode: resumeMode,
      waitMs: resumeTimeoutMs,
      onLateError: late('resume'),
      writes,
    });
    if (recorded.outcome === 'held') return repeatOf(() => delivery!.answerHeld(recorded.held));
    if (recorded.replaced === true) c.set('settled', true);
    else if (inCommit) {
      const repeat = await delivery!.claim();
      if (repeat !== undefined) return repeatOf(() => repeat);
    }
    return answerDecided(c, runId, recorded);
  };

  return { recordMode, carryOn, accepted, decide, late };
}
