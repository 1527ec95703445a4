import { z } from 'zod';
import type { Agent } from '../agent/agent-types.js';
import { recordGrants } from '../policy/grants/grant-of-decision.js';
import { delegateHolding } from '../decisions/child-decision.js';
import type { AgentSnapshot } from '../run/agent-snapshot.js';
import { idSchema } from '../run/run-identity.js';
import { parseOptions } from '../options.js';
import type { GrantState, GrantStore } from '../ports/grant-store.js';

/**
 * Which grants `runtime.grants` lists.
 *
 * @example
 * const options: ListGrantsOptions = { sessionId: 'chat-42' };
 * const live = await runtime.grants(options);
 */
export interface ListGrantsOptions {
  /** Only the grants of this session. */
  readonly sessionId?: string;
  /** Only the grants of this agent (its session and agent grants). */
  readonly agent?: string;
}

/** The grant operations of a runtime: over the grant stores of its agents (one, when they share it). */
export interface RuntimeGrants {
  grants(options?: ListGrantsOptions): Promise<readonly GrantState[]>;
  revokeGrant(grantId: string): Promise<boolean>;
  clearSession(sessionId: string): Promise<number>;
  /** Writes the grant a just-recorded decision made (idempotent), so it covers calls before the run even resumes. */
  recordDecision(snapshot: AgentSnapshot, approvalId: string): Promise<void>;
}

const listSchema = z.strictObject({ sessionId: idSchema.optional(), agent: z.string().min(1).max(128).optional() });
const grantIdSchema = z
  .string()
  .regex(/^grt_[0-9a-f]{1,64}$/, 'must be a grant id (grt_…), as runtime.grants() lists them');

export function runtimeGrants(agents: ReadonlyMap<string, Agent>, clock: () => number): RuntimeGrants {
  const stores = (): GrantStore[] => [...new Set([...agents.values()].map((agent) => agent.settings.grantStore))];
  return {
    async grants(options = {}) {
      const { sessionId, agent } = parseOptions(listSchema, options, 'runtime.grants', { subject: 'argument' });
      const now = clock();
      const filter = {
        now,
        ...(sessionId === undefined ? {} : { sessionId }),
        ...(agent === undefined ? {} : { agentName: agent }),
      };
      const lists = await Promise.all(stores().map((store) => store.list(filter)));
      return lists.flat().filter((grant) => agents.has(grant.agentName));
    },
    async revokeGrant(grantId) {
      parseOptions(grantIdSchema, grantId, 'runtime.revokeGrant', { subject: 'grantId' });
      const revoked = await Promise.all(stores().map((store) => store.revoke(grantId)));
      return revoked.includes(true);
    },
    async clearSession(sessionId) {
      parseOptions(idSchema, sessionId, 'runtime.clearSession', { subject: 'sessionId' });
      const counts = await Promise.all(stores().map((store) => store.revokeSession(sessionId)));
      return counts.reduce((sum, count) => sum + count, 0);
    },
    async recordDecision(snapshot, approvalId) {
      const agent = agents.get(snapshot.agentName);
      if (agent) await recordGrantOf(agent, snapshot, approvalId);
    },
  };
}

/** Writes the grant a decision made, in the run that holds it: the run's own, or a sub-agent's (with its chain). */
async function recordGrantOf(agent: Agent, snapshot: AgentSnapshot, approvalId: string): Promise<void> {
  const holding = delegateHolding(snapshot, approvalId);
  const childAgent = holding?.record === undefined ? undefined : agent.settings.childAgent(holding.record.toolName);
  if (holding !== undefined) {
    if (childAgent !== undefined) await recordGrantOf(childAgent, holding.child as AgentSnapshot, approvalId);
    return;
  }
  const { grantStore, decisionSecret, lineage } = agent.settings;
  await recordGrants(grantStore, snapshot, new Set([approvalId]), decisionSecret, lineage?.names);
}
