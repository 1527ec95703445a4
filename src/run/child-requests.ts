import type { ApprovalRequest, ChildRun, DelegateStep, ToolCallRecord } from './types.js';

/** The step a delegate call adds to the path of its sub-agent's requests. */
export function delegateStepOf(record: Pick<ToolCallRecord, 'toolCallId' | 'toolName'>, child: ChildRun): DelegateStep {
  return { agentName: child.agentName, toolCallId: record.toolCallId, toolName: record.toolName };
}

/** A sub-agent's pending requests as its parent run lists them: each with the delegate call put first in its `path`. */
export function liftedRequests(
  record: Pick<ToolCallRecord, 'toolCallId' | 'toolName'>,
  child: ChildRun,
): ApprovalRequest[] {
  const step = delegateStepOf(record, child);
  return child.pendingApprovals.map((request) => ({ ...request, path: [step, ...(request.path ?? [])] }));
}
