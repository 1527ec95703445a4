import { randomUUID } from 'node:crypto';
import { ConfigError, OutcomeUnknownError, ToolNotFoundError, ToolTimeoutError } from '../errors.js';
import type { Agent } from './agent.js';
import type { AnyTool } from './define-tool.js';
import type { AgentEvent } from './agent-machine.js';
import { buildApprovalRequest } from './approval-request.js';
import { currentToolCalls } from './current-tool-calls.js';
import { approversOfCall, evaluateCalls } from './evaluate-calls.js';
import { turnLookup, verifyApprovedCall } from './decision-signature.js';
import { expiryDecisions } from './expiry.js';
import { answerEvent, callModel } from './model-call.js';
import { newRun, type ExecuteInput } from './new-run.js';
import { modelFailureText } from './public-text.js';
import { eventsBetween, type ModelDeltaEvent, type RunEvent } from './run-events.js';
import { assertSnapshotShape } from './snapshot-codec.js';
import { step, stepAll } from './step.js';
import { firstRunnable, isRunnable } from './tool-call-index.js';
import { errorResult, resultContent } from './tool-results.js';
import { parsedInputOf } from './parsed-inputs.js';
import { richResultOf, type ToolResultExtras } from './rich-tool-result.js';
import { withinTimeLimit } from './time-limit.js';
import type { AgentSnapshot, ToolCall, ToolCallRecord } from './types.js';

export interface ExecuteOptions {
  /** Aborting it cancels the run; a running tool sees its own signal fire. */
  readonly signal?: AbortSignal;
  /**
   * Called with the latest snapshot before each effect (a model call, a tool
   * call) and before `execute` returns, whenever something changed since the
   * last call: a store commits it here. Steps with no effect between them
   * (a tool result and the next tool's start) go out as one snapshot.
   * Throwing stops the run where it is.
   */
  readonly checkpoint?: (snapshot: AgentSnapshot) => Promise<void>;
  /** Who holds the lease on a started tool call; a random id per process otherwise. */
  readonly leaseOwner?: string;
  /**
   * Told the full error of a failed model call. The run's `error.message` is
   * only a public text (`The model call failed: HTTP 401 (authentication).`):
   * it is stored, served and sent in webhooks, and a provider's error can echo
   * the API key or a URL with a secret. `createRuntime` wires its own `onError` here.
   */
  readonly onError?: (error: unknown, context: { readonly operation: 'model'; readonly runId: string }) => void;
  /**
   * Told each `model-delta` of a streaming model (`Model.stream`) as it comes, besides the agent's `onEvent`.
   * Deltas are not state: no checkpoint carries them. `createRuntime` passes them to its listeners, its notifier
   * and, where the store has one, the store's event stream.
   */
  readonly onModelDelta?: (event: ModelDeltaEvent) => void;
}

const processLeaseOwner = `proc_${randomUUID()}`;

/**
 * The event that puts a call whose outcome is unknown (its process died, or it was cut off mid-call) to a person
 * again, asked of the same approvers the policy names for it.
 */
async function askAgain(agent: Agent, snapshot: AgentSnapshot, record: ToolCallRecord, tool: AnyTool, args: unknown, reason: string): Promise<AgentEvent> {
  const settings = agent.settings;
  const now = settings.clock();
  const { approvers, ruleId } = await approversOfCall(agent, snapshot, { id: record.toolCallId, name: record.toolName, args });
  const request = buildApprovalRequest(
    { run: snapshot, approvalId: `apr_${randomUUID()}`, toolCallId: record.toolCallId, tool, args, parsedInput: args, approvers, ruleId, reason, outcomeUnknown: true },
    { now, approvalTtlMs: settings.approvalTtlMs, onExpire: settings.onExpire, decisionSecret: settings.decisionSecret, present: settings.display },
  );
  return { type: 'TOOL_INTERRUPTED', at: now, toolCallId: record.toolCallId, request };
}

function isSnapshot(value: unknown): value is AgentSnapshot {
  return typeof value === 'object' && value !== null && 'runId' in value && 'state' in value;
}

/**
 * The arguments a record runs with: the approved edit, else what the model asked for (and the call that asked, unless edited). Records are made one per
 * call, in the model's order, so the call is at the record's own position; a search covers anything else.
 */
function callFor(snapshot: AgentSnapshot, record: ToolCallRecord, position: number): { readonly args: unknown; readonly call?: ToolCall; readonly calls?: readonly ToolCall[] } {
  if (record.editedArgs !== undefined) return { args: record.editedArgs };
  const calls = currentToolCalls(snapshot);
  const call = calls[position]?.id === record.toolCallId ? calls[position] : calls.find((item) => item.id === record.toolCallId);
  return call === undefined ? { args: undefined } : { args: call.args, call, calls };
}

/**
 * The decisions a resume is about to act on (made with `withApprovalResponse`
 * since the run paused), announced as it picks them up.
 */
function decisionsAwaitingAction(snapshot: AgentSnapshot): RunEvent[] {
  if (snapshot.state !== 'executingTools') return [];
  const waiting = new Set(
    snapshot.toolCalls.filter((record) => record.approvalId !== undefined && ['approved', 'denied', 'expired'].includes(record.status)).map((record) => record.approvalId),
  );
  return snapshot.audit
    .filter((entry) => entry.approvalId !== undefined && waiting.has(entry.approvalId))
    .map((entry) => ({ type: 'approval-resolved', runId: snapshot.runId, agentName: snapshot.agentName, entry }));
}

/** Runs an agent from `input` or from a snapshot until it completes, fails, is cancelled or waits for a person. */
export async function execute(agent: Agent, input: ExecuteInput | AgentSnapshot, options: ExecuteOptions = {}): Promise<AgentSnapshot> {
  const settings = agent.settings;
  const leaseOwner = options.leaseOwner ?? processLeaseOwner;
  let snapshot: AgentSnapshot;
  let pendingStart: AgentEvent | undefined;
  if (isSnapshot(input)) {
    assertSnapshotShape(input);
    if (input.agentName !== agent.name) {
      throw new ConfigError(`This snapshot belongs to agent ${input.agentName}; resume it with that agent, not ${agent.name}.`);
    }
    snapshot = input;
  } else {
    ({ snapshot, event: pendingStart } = newRun(agent, input));
  }

  const emit = (events: readonly RunEvent[]) => {
    if (!settings.onEvent) return;
    for (const event of events) {
      try {
        settings.onEvent(event);
      } catch {
        // A listener's failure is the listener's; the run goes on.
      }
    }
  };
  /** A streaming model's delta: out at once, to `onEvent` and `onModelDelta`, and never into the snapshot. */
  const announceDelta = (event: ModelDeltaEvent) => {
    emit([event]);
    try {
      options.onModelDelta?.(event);
    } catch {
      // As with onEvent: the listener's failure is its own.
    }
  };
  let unsaved = false;
  const verified = new Set<string>();
  const advance = async (...events: AgentEvent[]) => {
    const next = events.length === 1 ? step(snapshot, events[0]!) : stepAll(snapshot, events);
    if (settings.onEvent) emit(eventsBetween(snapshot, next));
    snapshot = next;
    unsaved = true;
  };
  /** Hands the latest snapshot to the checkpoint: before every effect, and before returning. */
  const save = async (): Promise<AgentSnapshot> => {
    if (unsaved && options.checkpoint) await options.checkpoint(snapshot);
    unsaved = false;
    return snapshot;
  };

  const controller = new AbortController();
  const onOuterAbort = () => controller.abort(options.signal?.reason);
  if (options.signal?.aborted) onOuterAbort();
  options.signal?.addEventListener('abort', onOuterAbort, { once: true });
  const release = settings.inflight.register(snapshot.runId, controller);
  const cancelReason = () => {
    const reason: unknown = controller.signal.reason;
    return typeof reason === 'string' ? reason : reason instanceof Error && reason.name !== 'AbortError' ? reason.message : 'cancelled';
  };

  /**
   * Runs one approved call of the turn and returns its start and result (with a checkpoint, the start is recorded
   * before the tool runs, so only the result is returned), or the event that puts a call a stopped process had
   * started back to a person.
   */
  const runCall = async (record: ToolCallRecord, position: number): Promise<AgentEvent[]> => {
    const tool = agent.tools.get(record.toolName);
    if (!tool) throw new ToolNotFoundError(record.toolName, agent.name);
    const { args, call, calls } = callFor(snapshot, record, position);
    if (record.status === 'executing' && !tool.idempotent) {
      // A previous process started this call and stopped before it reported: a person decides whether to run it again.
      const reason =
        'This call was started but the process running it stopped before it reported a result; it may or may not have taken effect. Approve to run it again, deny to skip it.';
      return [await askAgain(agent, snapshot, record, tool, args, reason)];
    }
    const startedAt = settings.clock();
    const started: AgentEvent = { type: 'TOOL_STARTED', at: startedAt, toolCallId: record.toolCallId, lease: { owner: leaseOwner, until: startedAt + settings.leaseMs } };
    // With a checkpoint the start is recorded before the tool runs (at most once across processes). Without one nobody
    // can see the snapshot in between, so the start and the result are applied together, as one snapshot.
    if (options.checkpoint) {
      await advance(started);
      await save();
    }
    // The evaluation's parse of these very arguments when they were not edited since; an edit is parsed here.
    const earlier = call === undefined || calls === undefined ? undefined : parsedInputOf(calls, call, tool.input);
    const parsed = earlier ? { success: true as const, data: earlier.data } : await tool.input.safeParseAsync(args);
    let outcome: { ok: boolean; result: string; extras?: ToolResultExtras };
    if (!parsed.success) {
      outcome = { ok: false, result: errorResult(`Invalid arguments for ${tool.name}: ${parsed.error.issues[0]!.message}.`) };
    } else {
      try {
        const value = await withinTimeLimit(tool.name, tool.timeoutMs, controller.signal, (signal) =>
          tool.execute(parsed.data, {
            runId: snapshot.runId,
            toolCallId: record.toolCallId,
            idempotencyKey: `${snapshot.runId}:${record.toolCallId}`,
            signal,
            messages: snapshot.messages,
          }),
        );
        const rich = richResultOf(value);
        outcome = rich ? { ok: true, result: rich.text, extras: rich.extras } : { ok: true, result: resultContent(value) };
      } catch (error) {
        if (error instanceof OutcomeUnknownError && !tool.idempotent) {
          // Cut off after it may have reached the other side: as after a crash, a person decides whether to run it again.
          const reason = `This call was cut off before it reported a result (${error.message}); it may or may not have taken effect. Approve to run it again, deny to skip it.`;
          const interrupted = await askAgain(agent, snapshot, record, tool, args, reason);
          return options.checkpoint ? [interrupted] : [started, interrupted];
        }
        const text = error instanceof ToolTimeoutError ? `${error.message}.` : `${tool.name} failed: ${(error as Error)?.message ?? String(error)}`;
        outcome = { ok: false, result: errorResult(text) };
      }
    }
    const finished: AgentEvent = { type: 'TOOL_FINISHED', at: settings.clock(), toolCallId: record.toolCallId, ...outcome };
    return options.checkpoint ? [finished] : [started, finished];
  };

  try {
    if (pendingStart) await advance(pendingStart);
    else emit(decisionsAwaitingAction(snapshot));
    while (true) {
      if (controller.signal.aborted && snapshot.status !== 'completed' && snapshot.status !== 'failed' && snapshot.status !== 'cancelled') {
        await advance({ type: 'CANCEL', at: settings.clock(), reason: cancelReason() });
      }
      switch (snapshot.state) {
        case 'callingModel': {
          let answered: AgentEvent;
          await save();
          try {
            const request = { messages: snapshot.messages, tools: settings.specs, signal: controller.signal };
            answered = answerEvent(await callModel(settings.model, request, snapshot, announceDelta), settings.clock());
          } catch (error) {
            if (controller.signal.aborted) break;
            try {
              options.onError?.(error, { operation: 'model', runId: snapshot.runId });
            } catch {
              // The reporter's own failure has nowhere left to go.
            }
            await advance({ type: 'FAIL', at: settings.clock(), error: { code: 'model_error', message: modelFailureText(error) } });
            break;
          }
          await advance(answered);
          break;
        }
        case 'evaluatingTools':
          await advance({ type: 'TOOLS_EVALUATED', at: settings.clock(), evaluations: await evaluateCalls(agent, snapshot) });
          break;
        case 'executingTools': {
          let next = firstRunnable(snapshot.toolCalls);
          // Check every call of the turn before running any, so a tampered one stops the turn before its siblings run;
          // each once per execute: the snapshot only changes here, through pure steps.
          if (!verified.has(next!.record.toolCallId)) {
            const lookup = settings.decisionSecret === undefined ? undefined : turnLookup(snapshot);
            for (const item of snapshot.toolCalls) {
              if (!isRunnable(item) || verified.has(item.toolCallId)) continue;
              if (lookup) verifyApprovedCall(settings.decisionSecret, snapshot, item, lookup);
              verified.add(item.toolCallId);
            }
          }
          // Without a checkpoint or a listener nobody sees the snapshot between two calls of a turn: the calls run one after
          // another and their events are applied together, so a turn of a thousand calls copies and freezes its records once.
          const together = !options.checkpoint && !settings.onEvent;
          const events: AgentEvent[] = [];
          while (next) {
            events.push(...(await runCall(next.record, next.position)));
            next = together && !controller.signal.aborted ? firstRunnable(snapshot.toolCalls, next.position + 1) : undefined;
          }
          await advance(...events);
          break;
        }
        case 'awaitingApproval': {
          const decisions = expiryDecisions(snapshot, settings.clock());
          if (decisions.length === 0) return save();
          await advance({ type: 'DECIDED', at: settings.clock(), decisions });
          if (snapshot.state === 'awaitingApproval') return save();
          break;
        }
        case 'idle':
          throw new ConfigError(`Run ${snapshot.runId} was never started; start runs with execute({ input }).`);
        default:
          return save();
      }
    }
  } finally {
    options.signal?.removeEventListener('abort', onOuterAbort);
    release();
  }
}
