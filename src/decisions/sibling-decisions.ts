// The other calls of a turn a person's decision covers too: the tool's other calls for a run-wide approval (run
// memory), and those a session or agent grant covers, each decided with its own signed entry.
import type { Decision } from '../machine/agent-machine.js';
import { coverageFields } from './authority/coverage-fields.js';
import { mayDecide } from './authority/who-may-decide.js';
import { isQuorumRequest } from './cast-vote.js';
import { signDecision } from './decision-signature.js';
import { argsMatch } from '../policy/grants/args-match.js';
import { grantIdOf } from '../policy/grants/grant-of-decision.js';
import { type Decider, isExpired, verifyRequestIntegrity } from './response-checks.js';
import { currentToolCalls } from '../run/current-tool-calls.js';
import { offers } from '../run/decision-kinds.js';
import { denialResult } from '../run/tool-results.js';
import type { ApprovalRequest, ApprovalResponse } from '../run/types.js';
import type { AgentSnapshot } from '../run/agent-snapshot.js';

/**
 * Approving a tool for the run also answers its other calls waiting in this
 * turn, each checked on its own: one whose request was altered, has expired,
 * does not offer `'run'`, or that the decider may not decide stays pending for someone who may.
 */
export function siblingsApprovedByMemory(
  agent: Decider,
  snapshot: AgentSnapshot,
  granted: ApprovalRequest,
  approvedBy: string | undefined,
  at: number,
): Decision[] {
  const decisions: Decision[] = [];
  for (const sibling of snapshot.pendingApprovals) {
    // One person's memory is never a quorum: a sibling that needs several people stays pending for them.
    if (sibling.approvalId === granted.approvalId || sibling.toolName !== granted.toolName || isQuorumRequest(sibling))
      continue;
    if (!offers(sibling.decisions, 'run')) continue;
    try {
      verifyRequestIntegrity(agent, snapshot, sibling, true);
    } catch {
      continue;
    }
    if (isExpired(sibling, at) || !mayDecide(agent, sibling, approvedBy)) continue;
    decisions.push({
      approvalId: sibling.approvalId,
      approved: true,
      audit: signDecision(agent.settings.decisionSecret, snapshot, {
        approvalId: sibling.approvalId,
        toolCallId: sibling.toolCallId,
        toolName: sibling.toolName,
        decision: 'approved',
        source: 'memory',
        scope: 'once',
        at,
        argsDigest: sibling.argsDigest,
        reason: `${sibling.toolName} was approved for the rest of this run`,
        ...(approvedBy === undefined ? {} : { by: approvedBy }),
        ...coverageFields(sibling),
      }),
    });
  }
  return decisions;
}

/**
 * A session or agent decision also answers the calls of the same tool waiting in this turn that its grant covers
 * (arguments matching, uses left), each checked on its own as for run memory; each is a use of the grant (the decided
 * call itself is not: `uses` counts the calls the grant decides). An approval never answers a sibling that needs a
 * quorum (one person's grant is not several people's votes), nor one whose `decisions` do not offer its scope; a
 * denial does, as a deny grant would.
 */
export function siblingsCoveredByGrant(
  agent: Decider,
  snapshot: AgentSnapshot,
  granted: ApprovalRequest,
  response: ApprovalResponse,
  at: number,
): Decision[] {
  const decisions: Decision[] = [];
  const grantId = grantIdOf(snapshot.runId, granted.approvalId);
  const usesLeft = response.grant?.uses ?? Number.POSITIVE_INFINITY;
  const tool = agent.tools.get(granted.toolName);
  const calls = currentToolCalls(snapshot);
  const scope = response.scope === 'session' ? 'session' : 'agent';
  const reason = `${granted.toolName} was ${response.approved ? 'approved' : 'denied'} for ${scope === 'session' ? 'this session' : `agent ${agent.name}`}`;
  for (const sibling of snapshot.pendingApprovals) {
    if (decisions.length >= usesLeft) break;
    if (sibling.approvalId === granted.approvalId || sibling.toolName !== granted.toolName || !tool) continue;
    if (response.approved && (isQuorumRequest(sibling) || !offers(sibling.decisions, scope))) continue;
    try {
      verifyRequestIntegrity(agent, snapshot, sibling, response.approved);
    } catch {
      continue;
    }
    if (isExpired(sibling, at) || !mayDecide(agent, sibling, response.approvedBy)) continue;
    const parsed = tool.input.safeParse(calls.find((call) => call.id === sibling.toolCallId)?.args);
    if (!parsed.success || !argsMatch(response.grant?.argsMatch, parsed.data)) continue;
    decisions.push({
      approvalId: sibling.approvalId,
      approved: response.approved,
      audit: signDecision(agent.settings.decisionSecret, snapshot, {
        approvalId: sibling.approvalId,
        toolCallId: sibling.toolCallId,
        toolName: sibling.toolName,
        decision: response.approved ? 'approved' : 'denied',
        source: 'grant',
        scope: 'once',
        at,
        argsDigest: sibling.argsDigest,
        reason,
        grantId,
        ...(response.approvedBy === undefined ? {} : { by: response.approvedBy }),
        ...coverageFields(sibling),
      }),
      ...(response.approved ? {} : { denialResult: denialResult(reason, 'policy') }),
    });
  }
  return decisions;
}
