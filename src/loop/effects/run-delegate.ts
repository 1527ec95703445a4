// A delegate call (`agentAsTool`): the sub-agent's run, started or resumed from the record that keeps it, goes as far
// as it can; a pause for people pauses this run too (its requests listed here with their path), an end is the call's
// result. With a checkpoint, every step of the sub-agent is committed as a step of this run.
import { ApprovalSignatureError } from '../../errors.js';
import type { Agent } from '../../agent/agent-types.js';
import { delegateOf } from '../../agent/agent-as-tool.js';
import type { AgentEvent } from '../../machine/agent-machine.js';
import { liftedRequests } from '../../run/child-requests.js';
import { errorResult } from '../../run/tool-results.js';
import type { AgentSnapshot } from '../../run/agent-snapshot.js';
import type { Message, ToolCallRecord } from '../../run/types.js';
import type { ExecuteOptions } from '../execute-options.js';
import { startedRun } from '../new-run.js';
import type { Run } from './run.js';

/** Why the delegation may not start: a chain deeper than the tool allows, or a sub-agent already above it. */
function refusal(child: Agent, maxDepth: number): string | undefined {
  const above = child.settings.lineage?.names ?? [];
  if (above.includes(child.name))
    return `${child.name} is already running above this call (${[...above, child.name].join(' › ')}); an agent cannot delegate to itself or to an agent that delegated to it.`;
  if (above.length > maxDepth)
    return `delegating to ${child.name} would make a chain ${above.length} deep (${[...above, child.name].join(' › ')}), deeper than its maxDepth of ${maxDepth}.`;
  return undefined;
}

/** The user and assistant text of the parent's conversation so far, for a sub-agent that inherits it. */
function conversationOf(messages: readonly Message[]): Message[] {
  return messages
    .filter((message) => (message.role === 'user' || message.role === 'assistant') && message.content !== '')
    .map(({ role, content }) => ({ role, content }));
}

/**
 * The sub-agent's run this record's call goes on with: the one kept on the record, else a new one (in the trace of
 * the delegate call's span, when telemetry traces it).
 */
function childRunOf(
  run: Run,
  record: ToolCallRecord,
  child: Agent,
  args: unknown,
  traceparent = run.snapshot.traceparent,
): AgentSnapshot {
  const { snapshot } = run;
  if (record.child !== undefined) {
    const kept = record.child as AgentSnapshot;
    if (
      kept.parentRunId !== snapshot.runId ||
      kept.parentToolCallId !== record.toolCallId ||
      kept.agentName !== child.name
    )
      throw new ApprovalSignatureError(
        record.toolCallId,
        `the sub-agent run kept on delegate call ${record.toolCallId} belongs to another place in the chain (run ${kept.parentRunId}, call ${kept.parentToolCallId}, agent ${kept.agentName}); the snapshot was altered. Nothing was run.`,
      );
    return kept;
  }
  const delegate = delegateOf(run.agent.tools.get(record.toolName)!)!;
  const prompt = delegate.prompt(args);
  const history = delegate.inherit === 'conversation' ? conversationOf(snapshot.messages) : [];
  return startedRun(
    child,
    {
      input: [...history, { role: 'user', content: prompt }],
      ...(snapshot.sessionId === undefined ? {} : { sessionId: snapshot.sessionId }),
      ...(snapshot.requestedBy === undefined ? {} : { requestedBy: snapshot.requestedBy }),
      ...(snapshot.origin === undefined ? {} : { origin: snapshot.origin }),
      ...(traceparent === undefined ? {} : { traceparent }),
    },
    { parentRunId: snapshot.runId, parentToolCallId: record.toolCallId },
  );
}

/**
 * Runs (or resumes) the sub-agent of a delegate call, applies its latest run to this one (its requests pause this run
 * when it waits for people), and returns the call's result when it ended.
 */
export async function runDelegate(
  run: Run,
  record: ToolCallRecord,
  child: Agent,
  args: unknown,
): Promise<AgentEvent[]> {
  const { settings, options } = run;
  const { toolCallId } = record;
  const finished = (ok: boolean, result: string): AgentEvent => ({
    type: 'TOOL_FINISHED',
    at: settings.clock(),
    toolCallId,
    ok,
    result,
  });
  const maxDepth = delegateOf(run.agent.tools.get(record.toolName)!)!.maxDepth;
  const refused = refusal(child, maxDepth);
  if (refused !== undefined) return [finished(false, errorResult(`${record.toolName} did not run: ${refused}`))];
  const childOptions: ExecuteOptions = {
    signal: run.signal,
    leaseOwner: run.leaseOwner,
    ...(options.onError === undefined ? {} : { onError: options.onError }),
    ...(options.onModelDelta === undefined ? {} : { onModelDelta: options.onModelDelta }),
    ...(options.telemetry === undefined ? {} : { telemetry: options.telemetry }),
    ...(options.checkpoint === undefined
      ? {}
      : {
          // Each step of the sub-agent is a step of this run: one commit covers both, so a crash resumes it from here.
          checkpoint: async (latest: AgentSnapshot) => {
            run.advance({ type: 'CHILD_UPDATED', at: settings.clock(), toolCallId, child: latest, requests: [] });
            await run.save();
          },
        }),
  };
  const go = (traceparent?: string) => child.execute(childRunOf(run, record, child, args, traceparent), childOptions);
  const { telemetry } = run;
  const after = await (telemetry ? telemetry.tool({ toolName: record.toolName, toolCallId }, go) : go());
  const requests = after.status === 'awaitingApproval' ? liftedRequests(record, after) : [];
  // Applied on its own, before the call's result: the sub-agent's last steps show in this run's events while its record is here.
  run.advance({ type: 'CHILD_UPDATED', at: settings.clock(), toolCallId, child: after, requests });
  if (requests.length > 0) return [];
  if (after.status === 'completed') return [finished(true, after.output ?? '')];
  const why = after.error?.message ?? `it stopped in state ${after.state}`;
  const ended = after.status === 'cancelled' ? 'was cancelled' : 'failed';
  return [finished(false, errorResult(`${child.name} ${ended}: ${why}`))];
}
