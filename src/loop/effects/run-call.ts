import { randomUUID } from 'node:crypto';
import { OutcomeUnknownError, ToolNotFoundError, ToolTimeoutError } from '../../errors.js';
import type { AnyTool } from '../../tools/define-tool.js';
import type { AgentEvent } from '../../machine/agent-machine.js';
import { buildApprovalRequest, requestSettingsOf } from '../../decisions/approval-request.js';
import { currentToolCalls } from '../../run/current-tool-calls.js';
import { hasApproverFunction } from '../../decisions/authority/who-may-decide.js';
import { approversOfCall } from '../call-verdict.js';
import { parsedInputOf } from '../../tools/parsed-inputs.js';
import { richResultOf, type ToolResultExtras } from '../../tools/rich-tool-result.js';
import { withinTimeLimit } from '../time-limit.js';
import { errorResult, resultContent } from '../../run/tool-results.js';
import type { ToolCall, ToolCallRecord } from '../../run/types.js';
import type { AgentSnapshot } from '../../run/agent-snapshot.js';
import type { Run } from './run.js';
import { runDelegate } from './run-delegate.js';

/**
 * The event that puts a call whose outcome is unknown (its process died, or it was cut off mid-call) to a person
 * again, asked of the same approvers the policy names for it.
 */
async function askAgain(
  run: Run,
  record: ToolCallRecord,
  tool: AnyTool,
  args: unknown,
  reason: string,
): Promise<AgentEvent> {
  const { settings, snapshot } = run;
  const now = settings.clock();
  const { approvers, ruleId, nudges, quorum, decisions } = await approversOfCall(run.agent, snapshot, {
    id: record.toolCallId,
    name: record.toolName,
    args,
  });
  const request = buildApprovalRequest(
    {
      run: snapshot,
      approvalId: `apr_${randomUUID()}`,
      toolCallId: record.toolCallId,
      tool,
      args,
      parsedInput: args,
      approvers,
      approverFunction: hasApproverFunction(run.agent, record.toolName, ruleId),
      ruleId,
      nudges,
      quorum,
      decisions,
      reason,
      outcomeUnknown: true,
    },
    requestSettingsOf(settings, now),
  );
  return { type: 'TOOL_INTERRUPTED', at: now, toolCallId: record.toolCallId, request };
}

/**
 * The arguments a record runs with: the approved edit, else what the model asked for (and the call that asked, unless edited). Records are made one per
 * call, in the model's order, so the call is at the record's own position; a search covers anything else.
 */
function callFor(
  snapshot: AgentSnapshot,
  record: ToolCallRecord,
  position: number,
): { readonly args: unknown; readonly call?: ToolCall; readonly calls?: readonly ToolCall[] } {
  if (record.editedArgs !== undefined) return { args: record.editedArgs };
  const calls = currentToolCalls(snapshot);
  const call =
    calls[position]?.id === record.toolCallId ? calls[position] : calls.find((item) => item.id === record.toolCallId);
  return call === undefined ? { args: undefined } : { args: call.args, call, calls };
}

/**
 * Runs one approved call of the turn and returns its start and result (with a checkpoint, the start is recorded
 * before the tool runs, so only the result is returned), or the event that puts a call a stopped process had
 * started back to a person.
 */
export async function runCall(run: Run, record: ToolCallRecord, position: number): Promise<AgentEvent[]> {
  const { agent, settings, options } = run;
  const tool = agent.tools.get(record.toolName);
  if (!tool) throw new ToolNotFoundError(record.toolName, agent.name);
  const { args, call, calls } = callFor(run.snapshot, record, position);
  // A delegate call's sub-agent keeps its own record of what ran: after a crash it resumes, and asks again itself.
  const child = settings.childAgent(record.toolName);
  if (record.status === 'executing' && !tool.idempotent && child === undefined) {
    // A previous process started this call and stopped before it reported: a person decides whether to run it again.
    const reason =
      'This call was started but the process running it stopped before it reported a result; it may or may not have taken effect. Approve to run it again, deny to skip it.';
    return [await askAgain(run, record, tool, args, reason)];
  }
  const startedAt = settings.clock();
  const started: AgentEvent = {
    type: 'TOOL_STARTED',
    at: startedAt,
    toolCallId: record.toolCallId,
    lease: { owner: run.leaseOwner, until: startedAt + settings.leaseMs },
  };
  // With a checkpoint the start is recorded before the tool runs (at most once across processes). Without one nobody
  // can see the snapshot in between, so the start and the result are applied together, as one snapshot.
  if (options.checkpoint) {
    run.advance(started);
    await run.save();
  }
  // The evaluation's parse of these very arguments when they were not edited since; an edit is parsed here.
  const earlier = call === undefined || calls === undefined ? undefined : parsedInputOf(calls, call, tool.input);
  const parsed = earlier ? { success: true as const, data: earlier.data } : await tool.input.safeParseAsync(args);
  if (parsed.success && child !== undefined) {
    // The sub-agent's steps are applied as they come (after the start), so each shows in this run's events.
    if (!options.checkpoint) run.advance(started);
    return runDelegate(run, record, child, parsed.data);
  }
  let outcome: { ok: boolean; result: string; extras?: ToolResultExtras };
  if (!parsed.success) {
    outcome = {
      ok: false,
      result: errorResult(`Invalid arguments for ${tool.name}: ${parsed.error.issues[0]!.message}.`),
    };
  } else {
    const { runId, messages } = run.snapshot;
    try {
      const toolCallId = record.toolCallId;
      // The call's own span, else the trace the run continues: a process that traces nothing passes that on unchanged.
      const call = (traceparent = run.snapshot.traceparent) =>
        withinTimeLimit(tool.name, tool.timeoutMs, run, (source) =>
          tool.execute(parsed.data, {
            runId,
            toolCallId,
            idempotencyKey: `${runId}:${toolCallId}`,
            get signal() {
              return source.signal;
            },
            messages,
            ...(traceparent === undefined ? {} : { traceparent }),
          }),
        );
      const { telemetry } = run;
      const value = await (telemetry ? telemetry.tool({ toolName: tool.name, toolCallId }, call) : call());
      const rich = richResultOf(value);
      outcome = rich
        ? { ok: true, result: rich.text, extras: rich.extras }
        : { ok: true, result: resultContent(value) };
    } catch (error) {
      if (error instanceof OutcomeUnknownError && !tool.idempotent) {
        // Cut off after it may have reached the other side: as after a crash, a person decides whether to run it again.
        const reason = `This call was cut off before it reported a result (${error.message}); it may or may not have taken effect. Approve to run it again, deny to skip it.`;
        const interrupted = await askAgain(run, record, tool, args, reason);
        return options.checkpoint ? [interrupted] : [started, interrupted];
      }
      const text =
        error instanceof ToolTimeoutError
          ? `${error.message}.`
          : `${tool.name} failed: ${(error as Error)?.message ?? String(error)}`;
      outcome = { ok: false, result: errorResult(text) };
    }
  }
  const finished: AgentEvent = {
    type: 'TOOL_FINISHED',
    at: settings.clock(),
    toolCallId: record.toolCallId,
    ...outcome,
  };
  return options.checkpoint ? [finished] : [started, finished];
}
