import { askedPositions } from './tool-call-index.js';
import { isErrorResult } from './tool-results.js';
import { tallyVotes, type VoteTally } from '../decisions/authority/vote-count.js';
import type {
  ApprovalRequest,
  AuditEntry,
  DelegateStep,
  EscalationTarget,
  InterruptedCall,
  RunError,
  RunOrigin,
  ToolCallRecord,
  Vote,
} from './types.js';
import type { AgentSnapshot } from './agent-snapshot.js';
import { delegateStepOf } from './child-requests.js';

/** How much of a tool's result a `tool-finished` event carries (what the model reads may be longer). */
export const TOOL_RESULT_EXCERPT = 1000;

/**
 * A piece of a model's answer as it streams in (the model has `stream`): text, reasoning, or progress on a tool
 * call's arguments (`toolCallId`, on its first piece `toolName`, and `argsChars`, how many characters arrived; never
 * the arguments themselves, which can hold secrets that cannot be redacted before they are whole: the approval
 * request shows them, redacted, the moment the turn ends). `turn` is the model call's number in
 * the run, from 1. Sent at once and never committed: the answer is state only once the whole of it is; a listener
 * that misses a delta (a reconnecting client, another process) does not get it again.
 *
 * @example
 * runtime.subscribe((event) => {
 *   if (event.type === 'model-delta' && event.kind === 'text') process.stdout.write(event.delta);
 * });
 */
export interface ModelDeltaEvent {
  readonly type: 'model-delta';
  readonly runId: string;
  readonly agentName: string;
  readonly turn: number;
  readonly kind: 'text' | 'reasoning' | 'tool-call';
  /** The text or reasoning that arrived; empty for a tool call. */
  readonly delta: string;
  readonly toolCallId?: string;
  readonly toolName?: string;
  /** For a tool call: how many characters of its arguments arrived with this piece. */
  readonly argsChars?: number;
}

/**
 * What happened to a run, announced to `onEvent`, notifiers and streams.
 * `tool-finished` is announced for calls a person decided (they have an
 * `approvalId`), so a channel can show how the call it asked about ended.
 * `model-delta` comes from a streaming model as it answers; it is the only
 * event that announces no committed state (see `ModelDeltaEvent`).
 */
export type RunEvent =
  | ModelDeltaEvent
  | {
      readonly type: 'approval-requested';
      readonly runId: string;
      readonly agentName: string;
      readonly request: ApprovalRequest;
      /** Where the run came from, so a channel can ask there (`ExecuteInput.origin`). */
      readonly origin?: RunOrigin;
      /** The run's session (`ExecuteInput.sessionId`), so a channel can group a conversation's requests. */
      readonly sessionId?: string;
      /** Who asked for the run (`ExecuteInput.requestedBy`), so "may still vote" on a quorum request can leave them out. */
      readonly requestedBy?: string;
    }
  | {
      /** A request still waits, `remindAfterMs` after it was made or last reminded: say it again ("Still waiting: …"). */
      readonly type: 'approval-reminder';
      readonly runId: string;
      readonly agentName: string;
      /** The request as it is now (its `history` counts this reminder). */
      readonly request: ApprovalRequest;
      /** Which reminder this is, from 1. */
      readonly reminder: number;
      readonly origin?: RunOrigin;
      readonly sessionId?: string;
    }
  | {
      /** An escalation step of a waiting request came due: `to` was brought in (approver ids, now allowed to decide, or a channel). */
      readonly type: 'approval-escalated';
      readonly runId: string;
      readonly agentName: string;
      /** The request as it is now (its `history` lists this escalation). */
      readonly request: ApprovalRequest;
      /** Which step of the request's `escalate` this is, from 0. */
      readonly step: number;
      /** Who was added: approver ids, or `{ channel }` to tell. */
      readonly to: EscalationTarget;
      readonly origin?: RunOrigin;
      readonly sessionId?: string;
    }
  | {
      readonly type: 'approval-resolved';
      readonly runId: string;
      readonly agentName: string;
      readonly entry: AuditEntry;
      /** On a sub-agent's decision (`agentAsTool`): the delegations down to it; `agentName` is then the sub-agent's. */
      readonly path?: readonly DelegateStep[];
      /** When the decided request was made (its `requestedAt`), where the request was pending just before: `entry.at` minus this is the time to decide. */
      readonly requestedAt?: number;
    }
  | {
      /** A vote on a quorum request that did not settle it (the one that does is in `approval-resolved`'s `entry.votes`). */
      readonly type: 'approval-voted';
      readonly runId: string;
      readonly agentName: string;
      readonly approvalId: string;
      readonly vote: Vote;
      /** Where the request stands after this vote: approvals so far, how many more are needed, who may still vote. */
      readonly tally: VoteTally;
    }
  | { readonly type: 'run-completed'; readonly runId: string; readonly agentName: string; readonly output: string }
  | { readonly type: 'run-failed'; readonly runId: string; readonly agentName: string; readonly error: RunError }
  | {
      readonly type: 'run-cancelled';
      readonly runId: string;
      readonly agentName: string;
      readonly reason: string;
      /** The calls that were running when the run was cancelled, if any. */
      readonly interrupted?: readonly InterruptedCall[];
    }
  | {
      readonly type: 'tool-finished';
      readonly runId: string;
      readonly agentName: string;
      readonly approvalId: string;
      readonly toolCallId: string;
      readonly toolName: string;
      readonly status: 'succeeded' | 'failed';
      /** The start of what the model reads as the result (at most `TOOL_RESULT_EXCERPT` characters). */
      readonly result: string;
      /** On a sub-agent's call (`agentAsTool`): the delegations down to it; `agentName` is then the sub-agent's. */
      readonly path?: readonly DelegateStep[];
    };

type Finished = Pick<ToolCallRecord, 'toolCallId' | 'toolName'> & {
  readonly approvalId: string;
  readonly status: 'succeeded' | 'failed';
  readonly result: string;
};

/**
 * The calls a person approved that finished between `before` and `after`: a record that turned `succeeded` or
 * `failed` mid-turn, or, when the turn ended in between, an approved record whose result is now a tool message.
 */
function finishedCalls(before: AgentSnapshot | undefined, after: AgentSnapshot): Finished[] {
  const finished: Finished[] = [];
  const earlier = new Map<string, ToolCallRecord>();
  if (before !== undefined)
    for (const position of askedPositions(before.toolCalls))
      earlier.set(before.toolCalls[position]!.toolCallId, before.toolCalls[position]!);
  for (const position of askedPositions(after.toolCalls)) {
    const record = after.toolCalls[position]!;
    if (record.approvalId === undefined || (record.status !== 'succeeded' && record.status !== 'failed')) continue;
    if (earlier.get(record.toolCallId)?.status === record.status) continue;
    finished.push({
      toolCallId: record.toolCallId,
      toolName: record.toolName,
      approvalId: record.approvalId,
      status: record.status,
      result: record.result ?? '',
    });
  }
  if (earlier.size === 0 || after.messages.length <= before!.messages.length) return finished;
  for (let index = before!.messages.length; index < after.messages.length; index++) {
    const message = after.messages[index]!;
    const record =
      message.role === 'tool' && message.toolCallId !== undefined ? earlier.get(message.toolCallId) : undefined;
    if (record === undefined || (record.status !== 'approved' && record.status !== 'executing')) continue;
    finished.push({
      toolCallId: record.toolCallId,
      toolName: record.toolName,
      approvalId: record.approvalId!,
      status: isErrorResult(message.content) ? 'failed' : 'succeeded',
      result: message.content,
    });
  }
  return finished;
}

/** The reminder and the escalations the sweeper made between two copies of one request. */
function nudgeEvents(
  before: ApprovalRequest,
  after: ApprovalRequest,
  runId: string,
  agentName: string,
  where: Pick<Extract<RunEvent, { type: 'approval-reminder' }>, 'origin' | 'sessionId'>,
): RunEvent[] {
  const events: RunEvent[] = [];
  const reminders = after.history?.reminders ?? 0;
  if (reminders > (before.history?.reminders ?? 0))
    events.push({ type: 'approval-reminder', runId, agentName, request: after, reminder: reminders, ...where });
  const escalations = after.history?.escalations ?? [];
  for (let step = before.history?.escalations.length ?? 0; step < escalations.length; step++) {
    events.push({
      type: 'approval-escalated',
      runId,
      agentName,
      request: after,
      step,
      to: escalations[step]!.to,
      ...where,
    });
  }
  return events;
}

/** The announcement of a request of `run`: where the run came from, its session and who asked for it go with it. */
export function approvalRequested(
  run: AgentSnapshot,
  request: ApprovalRequest,
): Extract<RunEvent, { type: 'approval-requested' }> {
  return {
    type: 'approval-requested',
    runId: run.runId,
    agentName: run.agentName,
    request,
    ...(run.origin === undefined ? {} : { origin: run.origin }),
    ...(run.sessionId === undefined ? {} : { sessionId: run.sessionId }),
    ...(run.requestedBy === undefined ? {} : { requestedBy: run.requestedBy }),
  };
}

/**
 * What the sub-agent runs of `after`'s delegate calls decided and ran since `before`, as events of this run (its
 * `runId`) that name the sub-agent (`agentName`) and the delegations down to it (`path`). Their requests need no
 * event of their own: this run lists them.
 */
function childEvents(before: AgentSnapshot | undefined, after: AgentSnapshot): RunEvent[] {
  const events: RunEvent[] = [];
  for (const record of after.toolCalls) {
    const child = record.child as AgentSnapshot | undefined;
    if (child === undefined) continue;
    const earlier = before?.toolCalls.find((item) => item.toolCallId === record.toolCallId)?.child as
      | AgentSnapshot
      | undefined;
    if (earlier === child) continue;
    const step = delegateStepOf(record, child);
    for (const event of eventsBetween(earlier, child)) {
      if (event.type === 'approval-resolved' || event.type === 'tool-finished')
        events.push({ ...event, runId: after.runId, path: [step, ...(event.path ?? [])] });
    }
  }
  return events;
}

/** The events that lead from `before` to `after` (a later snapshot of the same run); never a `model-delta`, which no snapshot holds. */
export function eventsBetween(before: AgentSnapshot | undefined, after: AgentSnapshot): RunEvent[] {
  const { runId, agentName } = after;
  const events: RunEvent[] = [];
  // Index loops, and nothing to compare when a step kept the list: most steps of a long turn touch neither.
  if (after.audit !== before?.audit) {
    for (let index = before?.audit.length ?? 0; index < after.audit.length; index++) {
      const entry = after.audit[index]!;
      const requestedAt = before?.pendingApprovals.find(
        (request) => request.approvalId === entry.approvalId,
      )?.requestedAt;
      events.push({
        type: 'approval-resolved',
        runId,
        agentName,
        entry,
        ...(requestedAt === undefined ? {} : { requestedAt }),
      });
    }
  }
  if (after.pendingApprovals !== before?.pendingApprovals) {
    const known = new Map(before?.pendingApprovals.map((request) => [request.approvalId, request]));
    const where = {
      ...(after.origin === undefined ? {} : { origin: after.origin }),
      ...(after.sessionId === undefined ? {} : { sessionId: after.sessionId }),
    };
    for (const request of after.pendingApprovals) {
      const earlier = known.get(request.approvalId);
      if (
        earlier !== undefined &&
        request.quorum !== undefined &&
        (request.votes?.length ?? 0) > (earlier.votes?.length ?? 0)
      ) {
        const tally = tallyVotes(request.quorum, request.votes!, after.requestedBy);
        for (const vote of request.votes!.slice(earlier.votes?.length ?? 0))
          events.push({ type: 'approval-voted', runId, agentName, approvalId: request.approvalId, vote, tally });
      }
      if (earlier === undefined) events.push(approvalRequested(after, request));
      else if (earlier !== request) events.push(...nudgeEvents(earlier, request, runId, agentName, where));
    }
  }
  if (after.toolCalls !== before?.toolCalls) {
    for (const call of finishedCalls(before, after)) {
      events.push({
        type: 'tool-finished',
        runId,
        agentName,
        ...call,
        result: call.result.slice(0, TOOL_RESULT_EXCERPT),
      });
    }
  }
  if (after.toolCalls !== before?.toolCalls) events.push(...childEvents(before, after));
  if (before?.status !== after.status) {
    if (after.status === 'completed')
      events.push({ type: 'run-completed', runId, agentName, output: after.output ?? '' });
    if (after.status === 'failed' && after.error)
      events.push({ type: 'run-failed', runId, agentName, error: after.error });
    if (after.status === 'cancelled') {
      const interrupted = after.error?.interrupted;
      events.push({
        type: 'run-cancelled',
        runId,
        agentName,
        reason: after.error?.message ?? '',
        ...(interrupted === undefined ? {} : { interrupted }),
      });
    }
  }
  return events;
}
