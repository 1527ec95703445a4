import type { AgentSnapshot } from '../run/agent-snapshot.js';
import type { AnyTool } from '../tools/define-tool.js';
import type { ExecuteInput } from '../loop/execute-input.js';
import type { ExecuteOptions } from '../loop/execute-options.js';
import type { InflightRuns } from '../loop/inflight.js';
import type { PolicyAction, PolicyConfig, RuleSet } from '../policy/policy.js';
import type { PresentOptions } from '../presentation/present-args.js';
import type { RunEvent } from '../run/run-events.js';
import type { StoredRuleCache } from '../policy/stored-rules.js';
import type { ToolSource } from '../tools/tool-set.js';
import type { Model, OnExpire, ToolCall, ToolSpec } from '../run/types.js';
import type { CallAsk } from '../policy/call-ask.js';
import type { GrantStore } from '../ports/grant-store.js';
import type { RuleStore } from '../ports/rule-store.js';

export interface AgentConfig {
  /** Names the agent in snapshots; a resumed run finds its agent by this name. */
  readonly name: string;
  readonly model: Model;
  /**
   * Tools made with `defineTool`, and sources of tools that can change while
   * the agent lives (an MCP connection): a source's tools are read at every turn.
   */
  readonly tools: readonly (AnyTool | ToolSource)[];
  /** A system message put first in every new run. */
  readonly instructions?: string;
  /** Model turns before the run stops with `max_turns`. Default 20. */
  readonly maxTurns?: number;
  /** Time a person has to decide, for every tool that does not set its own. No expiry when left out. */
  readonly approvalTtlMs?: number;
  /** What an expired, undecided request becomes: `'deny'` (default) or `'keep'` (still decidable). */
  readonly onExpire?: OnExpire;
  /**
   * Re-announce every waiting request every this many ms (at least 1000), for tools and rules that set no
   * `remindAfterMs` of their own. With no `approvalTtlMs` this is "wait forever, but remind". No reminders when left out.
   */
  readonly remindAfterMs?: number;
  /** Epoch milliseconds; inject a fake one in tests. Default `Date.now`. */
  readonly clock?: () => number;
  readonly policy?: PolicyConfig;
  /** Rules added and removed at run time, read at every evaluation. */
  readonly ruleStore?: RuleStore;
  /**
   * Where decisions with `scope: 'session'` or `'agent'` keep their grants, read at every evaluation. A memory store
   * of this agent's own by default; share one (`createRedisGrantStore`) between processes and with the runtime.
   */
  readonly grantStore?: GrantStore;
  /** Signs every approval request; responses must echo the signature. */
  readonly decisionSecret?: string;
  /** How arguments are shown to approvers (secret keys, truncation). */
  readonly display?: PresentOptions;
  /** Called for every approval requested or resolved and every run that ends. */
  readonly onEvent?: (event: RunEvent) => void;
  /** How long a started tool call is leased to this process before recovery may take it. Default 5 minutes. */
  readonly leaseMs?: number;
  /**
   * Every run of this agent makes one call (an MCP gateway's runs, a request from outside the loop): its requests say
   * so (`oneCallRun`), and no surface offers "Approve for this run", which would cover nothing more.
   */
  readonly oneCallPerRun?: boolean;
  /**
   * The terms a run's own input puts on a call it asks about (a request from a caller outside the loop).
   * @internal set by the runtime's request agent only.
   */
  readonly callAsk?: (snapshot: AgentSnapshot, call: ToolCall) => CallAsk | undefined;
}

/** An agent: its tools, its policy and the loop that runs them. */
export interface Agent {
  readonly name: string;
  readonly tools: ReadonlyMap<string, AnyTool>;
  /**
   * The resolved configuration the loop, the runtime and `withApprovalResponse` read.
   * @internal its fields (compiled rules, in-flight runs) are the loop's own; configure an agent through `AgentConfig`.
   */
  readonly settings: AgentSettings;
  /**
   * Starts a run from `{ input }` or resumes one from a snapshot, and returns
   * the snapshot where it stopped: completed, failed, cancelled, or waiting
   * for approval.
   */
  execute(input: ExecuteInput | AgentSnapshot, options?: ExecuteOptions): Promise<AgentSnapshot>;
}

/**
 * The resolved configuration the loop and `withApprovalResponse` read.
 * @internal read by our own modules through `agent.settings`; users configure an agent with `AgentConfig`.
 */
export interface AgentSettings {
  readonly model: Model;
  readonly specs: readonly ToolSpec[];
  readonly instructions: string | undefined;
  readonly maxTurns: number;
  readonly approvalTtlMs: number | undefined;
  readonly onExpire: OnExpire;
  readonly remindAfterMs: number | undefined;
  readonly clock: () => number;
  readonly rules: RuleSet;
  readonly defaultAction: PolicyAction;
  readonly ruleStore: RuleStore | undefined;
  readonly grantStore: GrantStore;
  readonly decisionSecret: string | undefined;
  readonly display: PresentOptions;
  readonly onEvent: ((event: RunEvent) => void) | undefined;
  readonly leaseMs: number;
  readonly oneCallPerRun: boolean;
  /** The terms a run's input puts on its calls (`AgentConfig.callAsk`). */
  readonly callAsk: AgentConfig['callAsk'];
  /** The runs this agent is executing in this process, which `cancel` aborts. */
  readonly inflight: InflightRuns;
  /** This agent's compiled stored rules, rebuilt when the rule store's list changes. */
  readonly storedRules: StoredRuleCache;
  /** On a sub-agent running under a parent (`agentAsTool`): the agents above it. */
  readonly lineage: Lineage | undefined;
  /** The sub-agent a delegate tool of this agent runs, as it runs under this agent (its settings inherited); undefined for any other tool. */
  childAgent(toolName: string): Agent | undefined;
}

/**
 * Where a sub-agent runs: under `parent` (itself perhaps a sub-agent), with `names` the agents above it, the root's
 * first and the parent's last.
 * @internal
 */
export interface Lineage {
  readonly parent: Agent;
  readonly names: readonly string[];
}
