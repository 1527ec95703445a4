import { z } from 'zod';
import { functionSchema } from './function-schema.js';
import { ConfigError } from '../errors.js';
import type { AnyTool, Tool } from './define-tool.js';
import { isToolSource, ToolSet, type ToolSource } from './tool-set.js';
import { execute, type ExecuteOptions } from './execute.js';
import type { ExecuteInput } from './new-run.js';
import { InflightRuns } from './inflight.js';
import { compileRules, type PolicyAction, type PolicyConfig, type RuleSet } from './policy.js';
import type { PresentOptions } from './present-args.js';
import type { RuleStore } from '../ports/rule-store.js';
import type { GrantStore } from '../ports/grant-store.js';
import { createMemoryGrantStore } from '../adapters/memory-grant-store.js';
import type { RunEvent } from './run-events.js';
import { StoredRuleCache } from './stored-rules.js';
import type { Model, OnExpire, ToolSpec } from './types.js';
import type { AgentSnapshot } from './agent-snapshot.js';
import { optionsObject, parseOptions } from '../options.js';
import { remindAfterMsSchema } from './nudge-plan.js';

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
}

/** An agent: its tools, its policy and the loop that runs them. */
export interface Agent {
  readonly name: string;
  readonly tools: ReadonlyMap<string, AnyTool>;
  readonly settings: AgentSettings;
  /**
   * Starts a run from `{ input }` or resumes one from a snapshot, and returns
   * the snapshot where it stopped: completed, failed, cancelled, or waiting
   * for approval.
   */
  execute(input: ExecuteInput | AgentSnapshot, options?: ExecuteOptions): Promise<AgentSnapshot>;
}

/** The resolved configuration the loop and `withApprovalResponse` read. */
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
  /** The runs this agent is executing in this process, which `cancel` aborts. */
  readonly inflight: InflightRuns;
  /** This agent's compiled stored rules, rebuilt when the rule store's list changes. */
  readonly storedRules: StoredRuleCache;
}

const configSchema = optionsObject({
  name: z.string().regex(/^[A-Za-z0-9_.:-]{1,128}$/, 'use 1 to 128 letters, digits, "_", "-", "." or ":"'),
  model: z.custom<Model>((value) => typeof (value as Model | undefined)?.generate === 'function', 'must have a generate({ messages, tools }) method'),
  tools: z.array(
    z.custom<Tool | ToolSource>(
      (value) => typeof (value as Tool | undefined)?.spec === 'object' || (typeof value === 'object' && value !== null && isToolSource(value as ToolSource)),
      'must be made with defineTool, or be a source of tools such as an MCP connection',
    ),
  ),
  instructions: z.string().optional(),
  maxTurns: z.number().int().positive().optional(),
  approvalTtlMs: z.number().int().positive().optional(),
  onExpire: z.enum(['deny', 'keep']).optional(),
  remindAfterMs: remindAfterMsSchema.optional(),
  clock: functionSchema().optional(),
  policy: optionsObject({ rules: z.array(z.unknown()).optional(), default: z.enum(['allow', 'ask', 'deny']).optional() }).optional(),
  ruleStore: z.custom<RuleStore>((value) => typeof (value as RuleStore | undefined)?.list === 'function', 'must implement RuleStore').optional(),
  grantStore: z.custom<GrantStore>((value) => typeof (value as GrantStore | undefined)?.consume === 'function', 'must implement GrantStore').optional(),
  decisionSecret: z.string().min(16, 'use at least 16 characters of randomness').optional(),
  display: optionsObject({ secretKeys: z.array(z.string()).optional(), maxStringLength: z.number().int().min(16).optional() }).optional(),
  onEvent: functionSchema().optional(),
  leaseMs: z.number().int().positive().optional(),
  oneCallPerRun: z.boolean().optional(),
});

/**
 * Creates an agent. It holds no process-wide state: pass it to
 * `withApprovalResponse`, `approveAll`, `denyAll` and `cancel` (`{ agent }`),
 * so two agents with one name (two apps in one process) never mix.
 *
 * @example
 * const agent = createAgent({ name: 'files', model, tools: [deleteFile], approvalTtlMs: 3_600_000 });
 * const paused = await agent.execute({ input: 'remove /tmp/x' });
 */
export function createAgent(config: AgentConfig): Agent {
  parseOptions(configSchema, config, 'createAgent', { subject: 'config' });
  const names = new Set<string>();
  for (const tool of config.tools.flatMap((entry) => (isToolSource(entry) ? entry.tools : [entry]))) {
    if (names.has(tool.name)) throw new ConfigError(`createAgent(${config.name}): two tools are named ${tool.name}; tool names must be unique.`);
    names.add(tool.name);
  }
  const tools = new ToolSet(config.tools);
  const settings: AgentSettings = Object.freeze({
    model: config.model,
    get specs() {
      return tools.specs;
    },
    instructions: config.instructions,
    maxTurns: config.maxTurns ?? 20,
    approvalTtlMs: config.approvalTtlMs,
    onExpire: config.onExpire ?? 'deny',
    remindAfterMs: config.remindAfterMs,
    clock: config.clock ?? Date.now,
    rules: compileRules(config.policy?.rules ?? []),
    defaultAction: config.policy?.default ?? 'ask',
    ruleStore: config.ruleStore,
    grantStore: config.grantStore ?? createMemoryGrantStore(),
    decisionSecret: config.decisionSecret,
    display: config.display ?? {},
    onEvent: config.onEvent,
    leaseMs: config.leaseMs ?? 300_000,
    oneCallPerRun: config.oneCallPerRun ?? false,
    inflight: new InflightRuns(),
    storedRules: new StoredRuleCache(config.name, config.decisionSecret),
  });
  const agent: Agent = Object.freeze({
    name: config.name,
    tools,
    settings,
    execute: (input: ExecuteInput | AgentSnapshot, options?: ExecuteOptions) => execute(agent, input, options),
  });
  return agent;
}

/** The `agent` option of the functions that decide or cancel a stored run. */
export const agentOption = z.custom<Agent>(
  (value) => typeof (value as Agent | undefined)?.execute === 'function' && typeof (value as Agent).settings === 'object',
  'must be an agent made with createAgent',
);

/**
 * The agent a public function was given for `snapshot`: required, since
 * agents are not looked up by name, and it must be the run's own.
 */
export function agentOfRun(snapshot: Pick<AgentSnapshot, 'runId' | 'agentName'>, agent: Agent | undefined, where: string): Agent {
  if (agent === undefined) {
    throw new ConfigError(
      `${where}: options.agent is missing; pass { agent }, the agent of run ${snapshot.runId} (named ${snapshot.agentName}) as createAgent returned it.`,
      'missing_option',
    );
  }
  if (agent.name !== snapshot.agentName) throw new ConfigError(`${where}: this snapshot belongs to agent ${snapshot.agentName}, not ${agent.name}; pass that agent as { agent }.`);
  return agent;
}
