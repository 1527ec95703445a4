import { historyOf } from '../../policy/nudge.js';
import type { ApprovalRequest, AuditEntry } from '../../run/types.js';

/**
 * What a decision entry keeps of the request it decided, so the gate before the call runs can re-derive who was
 * allowed to decide it from the signed entry alone: its rule, approvers, quorum and escalations. Every path that
 * records a decision for a request spreads this into the entry.
 */
export function coverageFields(
  request: ApprovalRequest,
): Pick<AuditEntry, 'ruleId' | 'approvers' | 'quorum' | 'history'> {
  return {
    ...(request.ruleId === undefined ? {} : { ruleId: request.ruleId }),
    ...(request.approvers === undefined ? {} : { approvers: request.approvers }),
    ...(request.quorum === undefined ? {} : { quorum: request.quorum }),
    ...historyOf(request),
  };
}
