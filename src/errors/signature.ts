// Signed records that do not check out: requests and responses, the gate before a tool runs, grants and stored rules.
import { CountersignError } from './base.js';

/** A signed request, response or call does not match its signature. */
export class ApprovalSignatureError extends CountersignError {
  readonly approvalId: string;

  constructor(approvalId: string, detail: string) {
    super('invalid_signature', `Approval ${approvalId}: ${detail}`);
    this.approvalId = approvalId;
  }
}

/**
 * The gate before a tool runs found no signed record that covers the call: no decision of someone allowed to decide
 * it, no quorum of allowed voters, no live grant of someone allowed. Nothing ran; whatever recorded the approval was
 * wrong, so the call is refused rather than trusted.
 */
export class CallNotCoveredError extends CountersignError {
  readonly toolCallId: string;
  readonly approvalId: string | undefined;

  constructor(toolCallId: string, approvalId: string | undefined, detail: string) {
    super(
      'call_not_covered',
      `Call ${toolCallId}${approvalId === undefined ? '' : ` (approval ${approvalId})`} may not run: ${detail}. Nothing was run.`,
      { fault: 'library' },
    );
    this.toolCallId = toolCallId;
    this.approvalId = approvalId;
  }
}

/** A grant read from the grant store does not match its signature: it was written or altered outside countersign, and covers nothing. */
export class GrantSignatureError extends CountersignError {
  readonly grantId: string;

  constructor(grantId: string) {
    super(
      'invalid_signature',
      `Grant ${grantId} in the grant store is not signed with this agent's decisionSecret (forged or altered in storage); it was ignored and the call is put to a person. Revoke it with runtime.revokeGrant('${grantId}').`,
    );
    this.grantId = grantId;
  }
}

/**
 * With a `decisionSecret`, a stored rule that is not signed with it (written straight into storage, altered there,
 * or written by a rule store given no or another `decisionSecret`): the agent ignores it.
 *
 * @example
 * const rules = createRedisRuleStore({ redis, prefix: 'myapp:', decisionSecret: process.env.DECISION_SECRET });
 */
export class RuleSignatureError extends CountersignError {
  readonly ruleId: string;

  constructor(ruleId: string) {
    super(
      'invalid_signature',
      `Stored rule ${ruleId} is not signed with this agent's decisionSecret (written or altered in storage, or by a rule store without the same decisionSecret); it is ignored. Give the rule store the agent's decisionSecret and add the rule again through it.`,
    );
    this.ruleId = ruleId;
  }
}
