import { z } from 'zod';
import { ConfigError } from '../errors.js';
import { optionsObject, parseOptions } from '../options.js';
import { functionSchema } from '../run/function-schema.js';
import type { Agent } from '../agent/agent-types.js';
import type { AgentEvent, EffectName } from '../machine/agent-machine.js';
import { awaitApproval } from './effects/await-approval.js';
import { callModel } from './effects/call-model.js';
import { evaluateTools } from './effects/evaluate-tools.js';
import { Run, type EffectOutcome } from './effects/run.js';
import { runTools } from './effects/run-tools.js';
import { newRun } from './new-run.js';
import type { ExecuteInput } from './execute-input.js';
import type { RunEvent } from '../run/run-events.js';
import { assertSnapshotShape } from '../run/snapshot-codec.js';
import type { ExecuteOptions } from './execute-options.js';
import { effectOf } from '../machine/step.js';
import type { AgentSnapshot } from '../run/agent-snapshot.js';
import type { ToolCall } from '../run/types.js';
import { currentToolCalls } from '../run/current-tool-calls.js';
import { delegateStepOf } from '../run/child-requests.js';
import { recordGrants } from '../policy/grants/grant-of-decision.js';
import type { Telemetry } from '../ports/telemetry.js';
import { telemetryOption } from './telemetry-option.js';

const optionsSchema = optionsObject({
  // Read by its shape, not instanceof: a signal from another realm (a test environment, a bundled polyfill) works as well.
  signal: z
    .custom<AbortSignal>(
      (value) =>
        typeof (value as AbortSignal | null)?.aborted === 'boolean' &&
        typeof (value as AbortSignal).addEventListener === 'function',
      'must be an AbortSignal',
    )
    .optional(),
  checkpoint: functionSchema().optional(),
  leaseOwner: z.string().min(1).optional(),
  onError: functionSchema().optional(),
  onModelDelta: functionSchema().optional(),
  telemetry: telemetryOption.optional(),
});

/**
 * What `execute` does in each state that names an effect (the chart's `meta.effect`, src/machine/agent-machine.ts).
 * Each advances the run by what came of it and tells the loop whether to go on.
 */
const effects: Readonly<Record<EffectName, (run: Run) => Promise<EffectOutcome>>> = {
  callModel,
  evaluateTools,
  runTools,
  awaitApproval,
};

function isSnapshot(value: unknown): value is AgentSnapshot {
  return typeof value === 'object' && value !== null && 'runId' in value && 'state' in value;
}

/** Where an execute starts: a new run and the event that starts it, or a checked snapshot of this agent's. */
function startingPoint(
  agent: Agent,
  input: ExecuteInput | AgentSnapshot,
): { readonly snapshot: AgentSnapshot; readonly event?: AgentEvent } {
  if (!isSnapshot(input)) return newRun(agent, input);
  assertSnapshotShape(input);
  if (input.agentName !== agent.name) {
    throw new ConfigError(
      `This snapshot belongs to agent ${input.agentName}; resume it with that agent, not ${agent.name}.`,
    );
  }
  return { snapshot: input };
}

/**
 * The decisions a resume is about to act on (made with `withApprovalResponse`
 * since the run paused), announced as it picks them up: its own, and its sub-agents' (as events of this run that
 * name the sub-agent and the path down to it).
 */
function decisionsAwaitingAction(snapshot: AgentSnapshot): RunEvent[] {
  if (snapshot.state !== 'executingTools') return [];
  const waiting = new Set(
    snapshot.toolCalls
      .filter((record) => record.approvalId !== undefined && ['approved', 'denied', 'expired'].includes(record.status))
      .map((record) => record.approvalId),
  );
  const events: RunEvent[] = snapshot.audit
    .filter((entry) => entry.approvalId !== undefined && waiting.has(entry.approvalId))
    .map((entry) => ({ type: 'approval-resolved', runId: snapshot.runId, agentName: snapshot.agentName, entry }));
  for (const record of snapshot.toolCalls) {
    if (record.child === undefined || record.status !== 'approved') continue;
    const step = delegateStepOf(record, record.child);
    for (const event of decisionsAwaitingAction(record.child as AgentSnapshot))
      if (event.type === 'approval-resolved')
        events.push({ ...event, runId: snapshot.runId, path: [step, ...(event.path ?? [])] });
  }
  return events;
}

/**
 * The approvals decided in the latest turn: a resume writes the grants their session and agent decisions made
 * (again, harmlessly, if `runtime.respond` already did) before anything else, so the calls this run makes next are
 * covered by them. A turn whose calls were all denied has already moved on to the model, so the turn is read from
 * the messages, not from the records; and since calls added to it from outside (`withApprovalRequest`) were written
 * after the model's results as an assistant message of their own, the assistant message those results answer counts
 * too (where there was none added, that is the turn before, whose grants are written again, harmlessly).
 */
function approvalsOfTurn(snapshot: AgentSnapshot): Set<string> {
  const calls = new Set(currentToolCalls(snapshot).map((call) => call.id));
  for (const call of answeredBeforeLastTurn(snapshot)) calls.add(call.id);
  return new Set(
    snapshot.audit
      .filter((entry) => entry.approvalId !== undefined && calls.has(entry.toolCallId))
      .map((entry) => entry.approvalId!),
  );
}

/** The calls of the assistant message whose results come right before the last assistant message, if they do. */
function answeredBeforeLastTurn(snapshot: AgentSnapshot): readonly ToolCall[] {
  const { messages } = snapshot;
  let index = messages.length - 1;
  while (index >= 0 && messages[index]!.role !== 'assistant') index--;
  if (index < 1 || messages[index - 1]!.role !== 'tool') return [];
  for (index -= 1; index >= 0 && messages[index]!.role === 'tool'; index--);
  return index >= 0 && messages[index]!.role === 'assistant' ? (messages[index]!.toolCalls ?? []) : [];
}

/** What telemetry is told of an execute's run: its names, and on a resume the traces its turn's calls were asked in. */
function telemetryRun(snapshot: AgentSnapshot): Parameters<Telemetry['execute']>[0] {
  const { runId, agentName, sessionId, traceparent } = snapshot;
  const follows = [...new Set(snapshot.toolCalls.flatMap((record) => record.traceparent ?? []))];
  return {
    runId,
    agentName,
    ...(sessionId === undefined ? {} : { sessionId }),
    ...(follows.length === 0 ? {} : { follows }),
    ...(traceparent === undefined ? {} : { traceparent }),
  };
}

/**
 * Runs an agent from `input` or from a snapshot until it completes, fails, is cancelled or waits for a person:
 * in each state it carries out the effect the chart names there, until a state names none or the effect stops.
 */
export async function execute(
  agent: Agent,
  input: ExecuteInput | AgentSnapshot,
  options: ExecuteOptions = {},
): Promise<AgentSnapshot> {
  parseOptions(optionsSchema, options, 'execute');
  const { snapshot, event } = startingPoint(agent, input);
  const telemetry = options.telemetry?.execute(telemetryRun(snapshot));
  const run = new Run(agent, snapshot, options, telemetry);
  let failure: unknown;
  try {
    if (event) run.advance(event);
    else {
      const { grantStore, decisionSecret, lineage } = agent.settings;
      await recordGrants(grantStore, snapshot, approvalsOfTurn(snapshot), decisionSecret, lineage?.names);
      run.emit(decisionsAwaitingAction(snapshot));
    }
    while (true) {
      const { status } = run.snapshot;
      if (run.aborted && status !== 'completed' && status !== 'failed' && status !== 'cancelled') {
        run.advance({ type: 'CANCEL', at: agent.settings.clock(), reason: run.cancelReason() });
      }
      const { state } = run.snapshot;
      if (state === 'idle')
        throw new ConfigError(`Run ${run.snapshot.runId} was never started; start runs with execute({ input }).`);
      const effect = effectOf(state);
      if (effect === undefined || (await effects[effect](run)) === 'stop') return await run.save();
    }
  } catch (error) {
    failure = error;
    throw error;
  } finally {
    run.close();
    telemetry?.end(run.snapshot, failure);
  }
}
