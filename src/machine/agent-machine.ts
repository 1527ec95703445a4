// The agent loop as one XState chart, in one file on purpose (over 300 lines): its states, events, guards and
// assign actions are read together, and test/core/statechart-paths.test.ts walks every path of it, against the
// table compile-machine.ts makes of it, so a change to the chart is a change to this one file.
import { and, assertEvent, assign, not, setup } from 'xstate';
import { StopReason } from '../run/types.js';
import type {
  ApprovalRequest,
  AssistantMessage,
  AuditEntry,
  ChildRun,
  Message,
  RunContext,
  RunError,
  RunStatus,
  ToolCallRecord,
  ToolCallStatus,
  Usage,
  Vote,
} from '../run/types.js';
import { appended } from '../run/derived-array.js';
import type { ToolResultExtras } from '../tools/rich-tool-result.js';
import { addedToolCalls, hasRunnable, replaceRecord } from '../run/tool-call-index.js';

/**
 * What `execute` does in a state, named in the state's `meta.effect` and carried out from one table
 * (src/loop/effects): call the model, evaluate the calls it asked for, run the approved ones, or wait for
 * people (applying expiries). A state without one has nothing left to do: the run has ended.
 */
export const effectNames = ['callModel', 'evaluateTools', 'runTools', 'awaitApproval'] as const;
export type EffectName = (typeof effectNames)[number];

/** How the driver evaluated one call of an assistant turn. */
export type CallEvaluation =
  | { readonly kind: 'run'; readonly record: ToolCallRecord; readonly audit: AuditEntry }
  | { readonly kind: 'ask'; readonly record: ToolCallRecord; readonly request: ApprovalRequest }
  | { readonly kind: 'settled'; readonly record: ToolCallRecord; readonly audit?: AuditEntry };

/** A decision on a pending approval, already checked by `withApprovalResponse` or the expiry sweep. */
export interface Decision {
  readonly approvalId: string;
  readonly approved: boolean;
  /** The tool result a denial gives the model. */
  readonly denialResult?: string;
  readonly editedArgs?: unknown;
  readonly audit: AuditEntry;
}

export type AgentEvent =
  | { type: 'START'; at: number; messages: readonly Message[] }
  | { type: 'MODEL_RESPONDED'; at: number; message: AssistantMessage }
  | { type: 'TOOLS_EVALUATED'; at: number; evaluations: readonly CallEvaluation[] }
  | { type: 'TOOL_STARTED'; at: number; toolCallId: string; lease: { owner: string; until: number } }
  | { type: 'TOOL_FINISHED'; at: number; toolCallId: string; ok: boolean; result: string; extras?: ToolResultExtras }
  | { type: 'TOOL_INTERRUPTED'; at: number; toolCallId: string; request: ApprovalRequest }
  /**
   * A delegate call's sub-agent run (`agentAsTool`) changed: it went on, paused for people, or took a decision. `requests`
   * are its pending requests as this run lists them (with `path`); none left and the call goes on (runs again).
   */
  | { type: 'CHILD_UPDATED'; at: number; toolCallId: string; child: ChildRun; requests: readonly ApprovalRequest[] }
  /** A call added to the waiting turn from outside the model (`withApprovalRequest`): its record and its request. */
  | { type: 'REQUEST_ADDED'; at: number; record: ToolCallRecord; request: ApprovalRequest }
  | { type: 'DECIDED'; at: number; decisions: readonly Decision[] }
  | { type: 'NUDGED'; at: number; requests: readonly ApprovalRequest[] }
  /** A vote on a quorum request that did not settle it: the request's votes, now. */
  | { type: 'VOTED'; at: number; approvalId: string; votes: readonly Vote[] }
  | { type: 'FORGET_RUN_APPROVALS'; at: number }
  | { type: 'FAIL'; at: number; error: RunError }
  | { type: 'CANCEL'; at: number; reason: string };

const stamp = (at: number) => ({ updatedAt: at });

/** How a call ended, as a tool-result part tells a provider: it ran, it failed, or it did not run. */
const OUTCOMES: Readonly<Record<ToolCallStatus, 'ok' | 'error' | 'denied'>> = {
  succeeded: 'ok',
  failed: 'error',
  denied: 'denied',
  expired: 'denied',
  pending: 'error',
  approved: 'error',
  executing: 'error',
};

/**
 * Tool results of the finished turn, in the order the model asked for the calls; then the calls added to the turn
 * from outside the model (`withApprovalRequest`), as an assistant message of their own followed by their results,
 * so every result answers a call of the message before it and the model's own message is never rewritten.
 */
function toolResultMessages(records: readonly ToolCallRecord[]): Message[] {
  const added = addedToolCalls(records);
  if (added.length === 0) return records.map(toolResultMessage);
  const ids = new Set(added.map((call) => call.id));
  const own = records.filter((record) => !ids.has(record.toolCallId));
  const addedRecords = records.filter((record) => ids.has(record.toolCallId));
  return [
    ...own.map(toolResultMessage),
    { role: 'assistant', content: '', toolCalls: added },
    ...addedRecords.map(toolResultMessage),
  ];
}

function toolResultMessage(record: ToolCallRecord): Message {
  return {
    role: 'tool',
    toolCallId: record.toolCallId,
    content: record.result ?? '',
    parts: [
      ...(record.resultFiles ?? []),
      {
        type: 'tool-result',
        toolCallId: record.toolCallId,
        toolName: record.toolName,
        outcome: OUTCOMES[record.status],
        ...(record.resultOutput === undefined ? {} : { output: record.resultOutput }),
      },
    ],
  };
}

/** `total` plus `more`, field by field; a field neither has stays out. */
function addUsage(total: Usage | undefined, more: Usage): Usage {
  const sum: { -readonly [K in keyof Usage]: number } = {};
  for (const key of ['inputTokens', 'outputTokens', 'reasoningTokens', 'cachedInputTokens'] as const) {
    const value = (total?.[key] ?? 0) + (more[key] ?? 0);
    if (total?.[key] !== undefined || more[key] !== undefined) sum[key] = value;
  }
  return sum;
}

function applyDecisions(context: RunContext, decisions: readonly Decision[]): Partial<RunContext> {
  const byApproval = new Map(decisions.map((decision) => [decision.approvalId, decision]));
  const runApprovals = new Set(context.runApprovals);
  for (const decision of decisions) {
    if (decision.approved && decision.audit.scope === 'run') runApprovals.add(decision.audit.toolName);
  }
  return {
    pendingApprovals: context.pendingApprovals.filter((request) => !byApproval.has(request.approvalId)),
    toolCalls: context.toolCalls.map((record) => {
      const decision = record.approvalId === undefined ? undefined : byApproval.get(record.approvalId);
      if (!decision || record.status !== 'pending') return record;
      if (!decision.approved) {
        return {
          ...record,
          status: decision.audit.source === 'expiry' ? 'expired' : 'denied',
          result: decision.denialResult ?? '',
        };
      }
      return decision.editedArgs === undefined
        ? { ...record, status: 'approved' }
        : { ...record, status: 'approved', editedArgs: decision.editedArgs };
    }),
    audit: appended(
      context.audit,
      decisions.map((decision) => decision.audit),
    ),
    runApprovals: [...runApprovals],
  };
}

/**
 * The agent loop as a statechart. It is only ever advanced with xstate's pure
 * `initialTransition` / `transition`; `execute` performs the effect each state
 * names in its meta and feeds the result back as events.
 */
export const agentMachine = setup({
  types: {
    context: {} as RunContext,
    input: {} as RunContext,
    events: {} as AgentEvent,
    // A state's tags name the run status it stands for (and the stop reason, for a state the run waits in).
    tags: {} as RunStatus | StopReason,
    // A final state's output is the run's stop reason.
    output: {} as StopReason,
    // A state's meta names the effect `execute` carries out there.
    meta: {} as { readonly effect: EffectName },
  },
  guards: {
    turnLimitReached: ({ context }) => context.turns >= context.maxTurns,
    asksForTools: ({ event }) => event.type === 'MODEL_RESPONDED' && (event.message.toolCalls?.length ?? 0) > 0,
    somethingToRun: ({ context }) => hasRunnable(context.toolCalls),
    waitingForPeople: ({ context }) => context.pendingApprovals.length > 0,
    childUnblocksEverything: ({ context, event }) =>
      event.type === 'CHILD_UPDATED' &&
      event.requests.length === 0 &&
      context.pendingApprovals.every((request) => request.path?.[0]?.toolCallId === event.toolCallId),
    decidesEverything: ({ context, event }) => {
      if (event.type !== 'DECIDED') return false;
      const decided = new Set(event.decisions.map((decision) => decision.approvalId));
      return context.pendingApprovals.every((request) => decided.has(request.approvalId));
    },
  },
  actions: {
    touch: assign(({ event }) => stamp(event.at)),
    startConversation: assign(({ context, event }) => {
      assertEvent(event, 'START');
      return { messages: appended(context.messages, event.messages), ...stamp(event.at) };
    }),
    recordAssistantTurn: assign(({ context, event }) => {
      assertEvent(event, 'MODEL_RESPONDED');
      const usage = event.message.usage === undefined ? {} : { usage: addUsage(context.usage, event.message.usage) };
      return {
        messages: appended(context.messages, [event.message]),
        turns: context.turns + 1,
        ...usage,
        ...stamp(event.at),
      };
    }),
    recordFinalAnswer: assign(({ event }) => {
      assertEvent(event, 'MODEL_RESPONDED');
      return { output: event.message.content };
    }),
    recordEvaluations: assign(({ context, event }) => {
      assertEvent(event, 'TOOLS_EVALUATED');
      const requests: ApprovalRequest[] = [];
      const audit: AuditEntry[] = [];
      for (const evaluation of event.evaluations) {
        if (evaluation.kind === 'ask') requests.push(evaluation.request);
        else if (evaluation.audit) audit.push(evaluation.audit);
      }
      return {
        toolCalls: event.evaluations.map((evaluation) => evaluation.record),
        pendingApprovals: requests,
        audit: audit.length > 0 ? appended(context.audit, audit) : context.audit,
        ...stamp(event.at),
      };
    }),
    markStarted: assign(({ context, event }) => {
      assertEvent(event, 'TOOL_STARTED');
      return {
        toolCalls: replaceRecord(context.toolCalls, event.toolCallId, (record) => ({
          ...record,
          status: 'executing',
          lease: event.lease,
          attempts: record.attempts + 1,
        })),
        ...stamp(event.at),
      };
    }),
    markFinished: assign(({ context, event }) => {
      assertEvent(event, 'TOOL_FINISHED');
      return {
        toolCalls: replaceRecord(context.toolCalls, event.toolCallId, ({ lease: _lease, ...record }) => ({
          ...record,
          status: event.ok ? 'succeeded' : 'failed',
          result: event.result,
          ...(event.extras?.files === undefined ? {} : { resultFiles: event.extras.files }),
          ...(event.extras?.output === undefined ? {} : { resultOutput: event.extras.output }),
        })),
        ...stamp(event.at),
      };
    }),
    askAgainAfterInterruption: assign(({ context, event }) => {
      assertEvent(event, 'TOOL_INTERRUPTED');
      return {
        toolCalls: replaceRecord(context.toolCalls, event.toolCallId, ({ lease: _lease, ...record }) => ({
          ...record,
          status: 'pending',
          approvalId: event.request.approvalId,
        })),
        pendingApprovals: appended(context.pendingApprovals, [event.request]),
        ...stamp(event.at),
      };
    }),
    updateChild: assign(({ context, event }) => {
      assertEvent(event, 'CHILD_UPDATED');
      // The sub-agent's own pending requests replace those this run listed for it; with none left, the call goes on.
      const others = context.pendingApprovals.filter((request) => request.path?.[0]?.toolCallId !== event.toolCallId);
      const waiting = event.requests.length > 0;
      return {
        toolCalls: replaceRecord(context.toolCalls, event.toolCallId, ({ lease, ...record }) => ({
          ...record,
          child: event.child,
          ...(waiting
            ? { status: 'pending' as const }
            : record.status === 'pending'
              ? { status: 'approved' as const }
              : lease === undefined
                ? {}
                : { lease }),
        })),
        pendingApprovals:
          waiting || others.length !== context.pendingApprovals.length
            ? appended(others, event.requests)
            : context.pendingApprovals,
        ...stamp(event.at),
      };
    }),
    addRequest: assign(({ context, event }) => {
      assertEvent(event, 'REQUEST_ADDED');
      return {
        toolCalls: appended(context.toolCalls, [event.record]),
        pendingApprovals: appended(context.pendingApprovals, [event.request]),
        ...stamp(event.at),
      };
    }),
    appendToolResults: assign(({ context }) => {
      // A sub-agent's run leaves with its call's record; its decisions stay (without its history), for repeats.
      const ended = context.toolCalls.flatMap((record) =>
        record.child === undefined ? [] : [{ ...record.child, messages: [] }],
      );
      return {
        messages: appended(context.messages, toolResultMessages(context.toolCalls)),
        toolCalls: [],
        ...(ended.length === 0 ? {} : { subRuns: appended(context.subRuns ?? [], ended) }),
      };
    }),
    recordDecisions: assign(({ context, event }) => {
      assertEvent(event, 'DECIDED');
      return { ...applyDecisions(context, event.decisions), ...stamp(event.at) };
    }),
    recordNudges: assign(({ context, event }) => {
      assertEvent(event, 'NUDGED');
      // The sweeper's reminders and escalations: each pending request it names is replaced by its nudged copy.
      const nudged = new Map(event.requests.map((request) => [request.approvalId, request]));
      return {
        pendingApprovals: context.pendingApprovals.map((request) => nudged.get(request.approvalId) ?? request),
        ...stamp(event.at),
      };
    }),
    recordVotes: assign(({ context, event }) => {
      assertEvent(event, 'VOTED');
      return {
        pendingApprovals: context.pendingApprovals.map((request) =>
          request.approvalId === event.approvalId ? { ...request, votes: event.votes } : request,
        ),
        ...stamp(event.at),
      };
    }),
    forgetRunApprovals: assign(({ context }) => ({ runApprovals: [], runApprovalsSince: context.audit.length })),
    recordError: assign(({ event }) => {
      assertEvent(event, 'FAIL');
      return { error: event.error };
    }),
    recordTurnLimit: assign(({ context }) => ({
      error: {
        code: 'max_turns',
        message: `The run reached its limit of ${context.maxTurns} model turns without a final answer.`,
      },
    })),
    recordCancellation: assign(({ context, event }) => {
      assertEvent(event, 'CANCEL');
      // A call left executing was running when the cancel came (here, or in the process holding its lease).
      const interrupted = context.toolCalls
        .filter((record) => record.status === 'executing')
        .map(({ toolCallId, toolName }) => ({ toolCallId, toolName }));
      return {
        error: { code: 'cancelled', message: event.reason, ...(interrupted.length > 0 ? { interrupted } : {}) },
      };
    }),
  },
}).createMachine({
  id: 'countersign-agent',
  context: ({ input }) => input,
  initial: 'idle',
  on: {
    CANCEL: { target: '.cancelled', actions: ['touch', 'recordCancellation'] },
    FAIL: { target: '.failed', actions: ['touch', 'recordError'] },
    FORGET_RUN_APPROVALS: { actions: ['touch', 'forgetRunApprovals'] },
  },
  states: {
    idle: {
      tags: ['running'],
      on: { START: { target: 'callingModel', actions: 'startConversation' } },
    },
    callingModel: {
      tags: ['running'],
      meta: { effect: 'callModel' },
      always: { guard: 'turnLimitReached', target: 'failed', actions: 'recordTurnLimit' },
      on: {
        MODEL_RESPONDED: [
          { guard: 'asksForTools', target: 'evaluatingTools', actions: 'recordAssistantTurn' },
          { target: 'completed', actions: ['recordAssistantTurn', 'recordFinalAnswer'] },
        ],
      },
    },
    evaluatingTools: {
      tags: ['running'],
      meta: { effect: 'evaluateTools' },
      on: { TOOLS_EVALUATED: { target: 'executingTools', actions: 'recordEvaluations' } },
    },
    executingTools: {
      tags: ['running'],
      meta: { effect: 'runTools' },
      always: [
        { guard: and([not('somethingToRun'), 'waitingForPeople']), target: 'awaitingApproval' },
        { guard: not('somethingToRun'), target: 'callingModel', actions: 'appendToolResults' },
      ],
      on: {
        TOOL_STARTED: { actions: 'markStarted' },
        TOOL_FINISHED: { actions: 'markFinished' },
        TOOL_INTERRUPTED: { actions: 'askAgainAfterInterruption' },
        CHILD_UPDATED: { actions: 'updateChild' },
      },
    },
    awaitingApproval: {
      tags: ['awaitingApproval', StopReason.AwaitingApproval],
      meta: { effect: 'awaitApproval' },
      on: {
        DECIDED: [
          { guard: 'decidesEverything', target: 'executingTools', actions: 'recordDecisions' },
          { actions: 'recordDecisions' },
        ],
        NUDGED: { actions: 'recordNudges' },
        VOTED: { actions: 'recordVotes' },
        REQUEST_ADDED: { actions: 'addRequest' },
        CHILD_UPDATED: [
          { guard: 'childUnblocksEverything', target: 'executingTools', actions: 'updateChild' },
          { actions: 'updateChild' },
        ],
      },
    },
    completed: { type: 'final', tags: ['completed'], output: StopReason.Completed },
    failed: {
      type: 'final',
      tags: ['failed'],
      output: ({ context }) => (context.error?.code === 'max_turns' ? StopReason.MaxTurns : StopReason.Error),
    },
    cancelled: { type: 'final', tags: ['cancelled'], output: StopReason.Cancelled },
  },
});
