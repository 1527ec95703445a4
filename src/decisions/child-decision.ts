// A decision on a sub-agent's call (`agentAsTool`) is made in the sub-agent's own run, kept on its delegate call's
// record: there its request, signature, approvers, quorum and compare-and-set apply as for any call, and the parent
// lists what the sub-agent still waits for. The parent's copy of a request (its `path`) only says where to go.
import { ApprovalSignatureError, ConfigError, RunNotAwaitingApprovalError } from '../errors.js';
import type { Agent } from '../agent/agent-types.js';
import { liftedRequests } from '../run/child-requests.js';
import { step } from '../machine/step.js';
import type { ApprovalRequest, ChildRun, ToolCallRecord } from '../run/types.js';
import { digestOf } from '../run/digest.js';
import type { AgentSnapshot } from '../run/agent-snapshot.js';

/** Whether a sub-agent's run (or one below it) holds the approval: pending, decided, or in a sub-agent run that ended. */
function holds(run: ChildRun, approvalId: string): boolean {
  return (
    run.pendingApprovals.some((request) => request.approvalId === approvalId) ||
    run.audit.some((entry) => entry.approvalId === approvalId) ||
    (run.subRuns ?? []).some((sub) => holds(sub, approvalId)) ||
    run.toolCalls.some((record) => record.child !== undefined && holds(record.child, approvalId))
  );
}

/** Where a sub-agent's approval is: its run, on the delegate call's record of the current turn or among the ended ones. */
export interface ChildHolding {
  readonly child: ChildRun;
  /** The delegate call keeping the run, in the current turn; absent for a sub-agent run of an earlier turn. */
  readonly record?: ToolCallRecord;
  /** The parent's copy of the request (what surfaces show), when the approval is still pending. */
  readonly listed?: ApprovalRequest;
}

/**
 * The sub-agent run that holds `approvalId`, when the approval is a sub-agent's: one this run lists as pending (with a
 * `path`), or one a sub-agent already decided (a repeat). Undefined for the run's own approvals.
 */
export function delegateHolding(snapshot: AgentSnapshot, approvalId: string): ChildHolding | undefined {
  const listed = snapshot.pendingApprovals.find((request) => request.approvalId === approvalId);
  if (listed !== undefined) {
    if (listed.path === undefined) return undefined;
    const record = snapshot.toolCalls.find(
      (item) => item.toolCallId === listed.path![0]!.toolCallId && item.child !== undefined,
    );
    if (record === undefined)
      throw new ApprovalSignatureError(
        approvalId,
        `its path names delegate call ${listed.path[0]!.toolCallId}, which has no sub-agent run in run ${snapshot.runId}; the snapshot was altered. Nothing was decided.`,
      );
    return { child: record.child!, record, listed };
  }
  if (snapshot.audit.some((entry) => entry.approvalId === approvalId)) return undefined;
  const record = snapshot.toolCalls.find((item) => item.child !== undefined && holds(item.child, approvalId));
  if (record !== undefined) return { child: record.child!, record };
  const ended = (snapshot.subRuns ?? []).find((sub) => holds(sub, approvalId));
  return ended === undefined ? undefined : { child: ended };
}

/**
 * `snapshot` with `decide` applied to the sub-agent run that holds the approval (with the sub-agent as it runs under
 * `agent`, when given), and the requests the sub-agent still waits for listed again. Unchanged when `decide` changes
 * nothing (an identical repeat); a sub-agent run of an earlier turn takes nothing else.
 */
export function withChildDecision(
  snapshot: AgentSnapshot,
  { child: held, record, listed }: ChildHolding,
  approvalId: string,
  agent: Agent | undefined,
  decide: (child: AgentSnapshot, childAgent: Agent | undefined) => AgentSnapshot,
): AgentSnapshot {
  const child = held as AgentSnapshot;
  if (record === undefined) {
    if (decide(child, undefined) === child) return snapshot;
    throw new RunNotAwaitingApprovalError(snapshot.runId, approvalId, snapshot.status);
  }
  if (child.parentRunId !== snapshot.runId || child.parentToolCallId !== record.toolCallId)
    throw new ApprovalSignatureError(
      approvalId,
      `the sub-agent run kept on delegate call ${record.toolCallId} belongs to another place in the chain; the snapshot was altered. Nothing was decided.`,
    );
  // Surfaces show the parent's copy: it must be exactly the sub-agent's own request, lifted, or what a person read is
  // not what would run.
  const own =
    listed === undefined ? undefined : liftedRequests(record, child).find((item) => item.approvalId === approvalId);
  if (listed !== undefined && (own === undefined || digestOf(own) !== digestOf(listed)))
    throw new ApprovalSignatureError(
      approvalId,
      `the request run ${snapshot.runId} lists is not the one the sub-agent run on delegate call ${record.toolCallId} holds (what a person was shown is not what would run); the snapshot was altered. Nothing was decided.`,
    );
  const childAgent = agent?.settings.childAgent(record.toolName);
  if (agent !== undefined && childAgent === undefined)
    throw new ConfigError(
      `withApprovalResponse: approval ${approvalId} is a call of the sub-agent that ${record.toolName} runs, and agent ${agent.name} has no tool ${record.toolName} made with agentAsTool; pass the agent the run was made with.`,
    );
  const next = decide(child, childAgent);
  if (next === child) return snapshot;
  if (snapshot.status !== 'awaitingApproval')
    throw new RunNotAwaitingApprovalError(snapshot.runId, approvalId, snapshot.status);
  return step(snapshot, {
    type: 'CHILD_UPDATED',
    at: (agent?.settings.clock ?? Date.now)(),
    toolCallId: record.toolCallId,
    child: next,
    requests: liftedRequests(record, next),
  });
}
