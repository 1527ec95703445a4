// Who decides a response, and its shape: the agent a decision reads (or, without one, the request's own word) and
// the checks of the response and the options at the boundary.
import { z } from 'zod';
import { ConfigError } from '../errors.js';
import { agentOfRun, agentOption } from '../agent/create-agent.js';
import type { Agent } from '../agent/agent-types.js';
import { compileRules } from '../policy/policy.js';
import { personNameSchema } from './authority/person-name.js';
import { grantBoundsSchema, scopeSchema } from '../run/grant-bounds.js';
import type { ApprovalResponse } from '../run/types.js';
import type { AgentSnapshot } from '../run/agent-snapshot.js';
import { optionsObject } from '../options.js';
import type { Decider } from './response-checks.js';

/**
 * Options of `withApprovalResponse`, `approveAll` and `denyAll`.
 *
 * @example
 * const options: DecideOptions = { agent };
 * const next = withApprovalResponse(snap, { approvalId, approved: true }, options);
 */
export interface DecideOptions {
  /**
   * The agent the run belongs to (`snapshot.agentName`), as `createAgent` returned it: its tools, clock, secret and
   * approvers decide. Needed only where the agent's own knowledge is: to sign with its `decisionSecret`, to check an
   * edit against the tool's schema, and to run a function that says who may decide (`approverFunction` on the
   * request); the request itself carries everything else.
   */
  readonly agent?: Agent;
}

export const decideSchema = optionsObject({ agent: agentOption.optional() });

const NO_RULES = compileRules([]);

/**
 * The agent a decision reads, or, without one, the request's own word: no tools, no rules, the process clock and no
 * secret. Refused, naming the fix, where only the agent knows: a signed request, an edit, an approver function.
 */
export function deciderOf(snapshot: AgentSnapshot, response: ApprovalResponse, agent: Agent | undefined): Decider {
  if (agent !== undefined) return agentOfRun(snapshot, agent, 'withApprovalResponse');
  const request = snapshot.pendingApprovals.find((item) => item.approvalId === response.approvalId);
  const needs =
    request?.signature !== undefined
      ? `its request is signed with agent ${snapshot.agentName}'s decisionSecret, which the decision must be signed with too`
      : response.args !== undefined
        ? `an edit is checked against the tool's input schema, which only the agent has`
        : request?.approverFunction === true
          ? `a function of agent ${snapshot.agentName}'s tool or rule says who may decide this call`
          : undefined;
  if (needs !== undefined) {
    throw new ConfigError(
      `withApprovalResponse (approval ${response.approvalId}): ${needs}; pass the agent as the third argument: withApprovalResponse(snapshot, response, { agent }).`,
      'missing_option',
    );
  }
  return {
    name: snapshot.agentName,
    tools: new Map(),
    settings: { rules: NO_RULES, clock: Date.now, decisionSecret: undefined },
  };
}

export const responseSchema = optionsObject({
  approvalId: z.string().min(1, 'names no approval; copy approvalId from snapshot.pendingApprovals'),
  approved: z.boolean({ error: 'must be true or false' }),
  reason: z.string().max(4000).optional(),
  approvedBy: personNameSchema.optional(),
  respondedAt: z.number().finite().optional(),
  args: z.unknown().optional(),
  scope: scopeSchema.optional(),
  grant: grantBoundsSchema.optional(),
  signature: z.string().optional(),
  dismissed: z.boolean().optional(),
  answer: z.record(z.string(), z.unknown()).optional(),
});
