// `runtime.addRequest`'s change of a stored run: `withApprovalRequest` with the run's agent, or nothing for a resend.
import type { Agent } from '../agent/agent-types.js';
import type { NewApprovalRequest } from '../decisions/new-approval-request.js';
import { withApprovalRequest } from '../decisions/with-approval-request.js';
import type { AgentSnapshot } from '../run/agent-snapshot.js';
import { digestOf } from '../run/digest.js';
import type { Ledger } from './ledger.js';

/** A resend of an added call (its answer was lost): the same call id, tool and arguments, pending or decided already. */
function alreadyAdded(current: AgentSnapshot, request: NewApprovalRequest): boolean {
  let digest: string;
  try {
    digest = digestOf(request?.args);
  } catch {
    // Arguments that cannot even be digested were never added: withApprovalRequest says what is wrong with them.
    return false;
  }
  const same = (item: { readonly toolCallId: string; readonly toolName: string; readonly argsDigest: string }) =>
    item.toolCallId === request.toolCallId && item.toolName === request.toolName && item.argsDigest === digest;
  return (
    current.pendingApprovals.some(same) || current.audit.some((entry) => entry.approvalId !== undefined && same(entry))
  );
}

/** The run with the request added, signed by its agent; the very same run when this is a resend of an add it holds. */
export function withAddedRequest(current: AgentSnapshot, request: NewApprovalRequest, agent: Agent): AgentSnapshot {
  return alreadyAdded(current, request) ? current : withApprovalRequest(current, request, { agent });
}

/** `runtime.addRequest`: the request added through the ledger's compare-and-set, announced with the commit. */
export function addRequestOperation(ledger: Ledger, agentNamed: (name: string) => Agent) {
  return async (runId: string, request: NewApprovalRequest): Promise<AgentSnapshot> => {
    const { next } = await ledger.update(runId, (current) => {
      const added = withAddedRequest(current, request, agentNamed(current.agentName));
      return added === current ? { unchanged: undefined } : { next: added, result: undefined };
    });
    return next;
  };
}
