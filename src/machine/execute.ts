import { z } from 'zod';
import { ConfigError } from '../errors.js';
import { optionsObject, parseOptions } from '../options.js';
import { functionSchema } from './function-schema.js';
import type { Agent } from './agent.js';
import type { AgentEvent, EffectName } from './agent-machine.js';
import { awaitApproval } from './effects/await-approval.js';
import { callModel } from './effects/call-model.js';
import { evaluateTools } from './effects/evaluate-tools.js';
import { Run, type EffectOutcome } from './effects/run.js';
import { runTools } from './effects/run-tools.js';
import { newRun, type ExecuteInput } from './new-run.js';
import type { ModelDeltaEvent, RunEvent } from './run-events.js';
import { assertSnapshotShape } from './snapshot-codec.js';
import { effectOf } from './step.js';
import type { AgentSnapshot } from './agent-snapshot.js';
import { currentToolCalls } from './current-tool-calls.js';
import { recordGrants } from './grants/grant-of-decision.js';

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
   * the API key or a URL with a secret. Without `onError` the full error is printed once with `console.error`,
   * secrets redacted, and the run's message says so. `createRuntime` passes its own `onError` here. Also told (`operation:
   * 'grant'` or `'rule'`) of a grant in the grant store or a stored rule that fails its signature check and was ignored
   * (`GrantSignatureError`, `RuleSignatureError`); without `onError` that goes to `console.warn`.
   */
  readonly onError?: (error: unknown, context: { readonly operation: 'model' | 'grant' | 'rule'; readonly runId: string }) => void;
  /**
   * Told each `model-delta` of a streaming model (`Model.stream`) as it comes, besides the agent's `onEvent`.
   * Deltas are not state: no checkpoint carries them. `createRuntime` passes them to its listeners, its notifier
   * and, where the store has one, the store's event stream.
   */
  readonly onModelDelta?: (event: ModelDeltaEvent) => void;
}

const optionsSchema = optionsObject({
  // Read by its shape, not instanceof: a signal from another realm (a test environment, a bundled polyfill) works as well.
  signal: z
    .custom<AbortSignal>(
      (value) => typeof (value as AbortSignal | null)?.aborted === 'boolean' && typeof (value as AbortSignal).addEventListener === 'function',
      'must be an AbortSignal',
    )
    .optional(),
  checkpoint: functionSchema().optional(),
  leaseOwner: z.string().min(1).optional(),
  onError: functionSchema().optional(),
  onModelDelta: functionSchema().optional(),
});

/**
 * What `execute` does in each state that names an effect (the chart's `meta.effect`, src/machine/agent-machine.ts).
 * Each advances the run by what came of it and tells the loop whether to go on.
 */
const effects: Readonly<Record<EffectName, (run: Run) => Promise<EffectOutcome>>> = { callModel, evaluateTools, runTools, awaitApproval };

function isSnapshot(value: unknown): value is AgentSnapshot {
  return typeof value === 'object' && value !== null && 'runId' in value && 'state' in value;
}

/** Where an execute starts: a new run and the event that starts it, or a checked snapshot of this agent's. */
function startingPoint(agent: Agent, input: ExecuteInput | AgentSnapshot): { readonly snapshot: AgentSnapshot; readonly event?: AgentEvent } {
  if (!isSnapshot(input)) return newRun(agent, input);
  assertSnapshotShape(input);
  if (input.agentName !== agent.name) {
    throw new ConfigError(`This snapshot belongs to agent ${input.agentName}; resume it with that agent, not ${agent.name}.`);
  }
  return { snapshot: input };
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

/**
 * The approvals decided in the latest turn: a resume writes the grants their session and agent decisions made
 * (again, harmlessly, if `runtime.respond` already did) before anything else, so the calls this run makes next are
 * covered by them. A turn whose calls were all denied has already moved on to the model, so the turn is read from
 * the messages, not from the records.
 */
function approvalsOfTurn(snapshot: AgentSnapshot): Set<string> {
  const calls = new Set(currentToolCalls(snapshot).map((call) => call.id));
  return new Set(snapshot.audit.filter((entry) => entry.approvalId !== undefined && calls.has(entry.toolCallId)).map((entry) => entry.approvalId!));
}

/**
 * Runs an agent from `input` or from a snapshot until it completes, fails, is cancelled or waits for a person:
 * in each state it carries out the effect the chart names there, until a state names none or the effect stops.
 */
export async function execute(agent: Agent, input: ExecuteInput | AgentSnapshot, options: ExecuteOptions = {}): Promise<AgentSnapshot> {
  parseOptions(optionsSchema, options, 'execute');
  const { snapshot, event } = startingPoint(agent, input);
  const run = new Run(agent, snapshot, options);
  try {
    if (event) run.advance(event);
    else {
      await recordGrants(agent.settings.grantStore, snapshot, approvalsOfTurn(snapshot), agent.settings.decisionSecret);
      run.emit(decisionsAwaitingAction(snapshot));
    }
    while (true) {
      const { status } = run.snapshot;
      if (run.aborted && status !== 'completed' && status !== 'failed' && status !== 'cancelled') {
        run.advance({ type: 'CANCEL', at: agent.settings.clock(), reason: run.cancelReason() });
      }
      const { state } = run.snapshot;
      if (state === 'idle') throw new ConfigError(`Run ${run.snapshot.runId} was never started; start runs with execute({ input }).`);
      const effect = effectOf(state);
      if (effect === undefined || (await effects[effect](run)) === 'stop') return await run.save();
    }
  } finally {
    run.close();
  }
}
