import { GrantSignatureError } from '../../errors.js';
import type { Grant, GrantState, GrantStore } from '../../ports/grant-store.js';
import { type ApproverTarget, type DeciderConfig, mayDecide } from '../../decisions/authority/who-may-decide.js';
import { offers } from '../../run/decision-kinds.js';
import type { DecisionKind, ToolCall } from '../../run/types.js';
import type { AgentSnapshot } from '../../run/agent-snapshot.js';
import { argsMatch } from './args-match.js';
import { grantSignatureHolds, signUse, useKeyOf } from './grant-signature.js';

/**
 * What the grant check needs of an agent, and nothing more: its name, who may decide its calls, its clock, its secret
 * and its grant store (an `Agent` is one).
 */
export interface GrantAgent extends DeciderConfig {
  readonly name: string;
  readonly settings: DeciderConfig['settings'] & {
    readonly decisionSecret?: string | undefined;
    readonly grantStore: GrantStore;
    /** On a sub-agent: the agents above it, whose chain a grant must name to cover its calls. */
    readonly lineage?: { readonly names: readonly string[] } | undefined;
    clock(): number;
  };
}

/** Whether a grant was given under the same chain of agents as the run it would cover (none, for an agent's own runs). */
function sameChain(given: readonly string[] | undefined, running: readonly string[] | undefined): boolean {
  const a = given ?? [];
  const b = running ?? [];
  return a.length === b.length && a.every((name, index) => name === b[index]);
}

/** Told of a grant that failed its signature check. */
export type GrantRefusal = (error: GrantSignatureError) => void;

/**
 * A stored grant that may cover the call: live by the agent's clock, signed, for this tool, these arguments and an
 * approver the call accepts. Whether a use is left is the store's to say when it is spent: a call that already spent
 * one (a re-evaluation after a crash) is covered by it again.
 */
function mayCover(
  agent: GrantAgent,
  grant: GrantState,
  call: ToolCall,
  input: unknown,
  target: ApproverTarget,
  now: number,
  refuse: GrantRefusal,
): boolean {
  if (grant.agentName !== agent.name || grant.toolName !== call.name) return false;
  if (!sameChain(grant.delegatedBy, agent.settings.lineage?.names)) return false;
  if (grant.expiresAt !== undefined && now >= grant.expiresAt) return false;
  const secret = agent.settings.decisionSecret;
  if (secret !== undefined && !grantSignatureHolds(secret, grant)) {
    refuse(new GrantSignatureError(grant.id));
    return false;
  }
  // A grant stands in for the person who gave it, so it covers only calls that person may decide.
  return argsMatch(grant.argsMatch, input) && mayDecide(agent, target, grant.grantedBy);
}

/**
 * The grants a turn's calls may be covered by: agent grants of the agent and session grants of the run's session,
 * listed once per turn, on first need (a turn where every call is settled by a rule reads nothing).
 */
export class TurnGrants {
  readonly #agent: GrantAgent;
  readonly #snapshot: AgentSnapshot;
  readonly #refuse: GrantRefusal;
  #listed: Promise<readonly GrantState[]> | undefined;

  constructor(agent: GrantAgent, snapshot: AgentSnapshot, refuse: GrantRefusal) {
    this.#agent = agent;
    this.#snapshot = snapshot;
    this.#refuse = refuse;
  }

  #list(now: number): Promise<readonly GrantState[]> {
    const store = this.#agent.settings.grantStore;
    const { agentName, sessionId } = this.#snapshot;
    this.#listed ??= Promise.all([
      sessionId === undefined ? [] : store.list({ agentName, sessionId, scope: 'session', now, includeUsedUp: true }),
      store.list({ agentName, scope: 'agent', now, includeUsedUp: true }),
    ]).then(([ofSession, ofAgent]) => [...ofSession, ...ofAgent]);
    return this.#listed;
  }

  /**
   * The grant that decides a call (`decision`: denials are looked for before anything may allow it), with one of its
   * uses spent under the call's key `${runId}:${toolCallId}` (a signed receipt; spent once however often the call is
   * evaluated); undefined when no live grant matches, or none still has a use when it is spent (then the call is
   * decided as if there were no grant). An approval grant covers only a call whose `decisions` offer its scope.
   */
  async decide(
    call: ToolCall,
    input: unknown,
    target: ApproverTarget,
    decision: Grant['decision'],
    decisions?: readonly DecisionKind[],
  ): Promise<Grant | undefined> {
    const agent = this.#agent;
    const now = agent.settings.clock();
    for (const grant of await this.#list(now)) {
      if (grant.decision !== decision || (decision === 'approved' && !offers(decisions, grant.scope))) continue;
      if (!mayCover(agent, grant, call, input, target, now, this.#refuse)) continue;
      const use = signUse(agent.settings.decisionSecret, {
        grantId: grant.id,
        useKey: useKeyOf(this.#snapshot.runId, call.id),
        at: now,
      });
      if ((await agent.settings.grantStore.consume(use)) === 'used') return grant;
    }
    return undefined;
  }
}
