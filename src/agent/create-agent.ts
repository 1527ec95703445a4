import { z } from 'zod';
import { policyOptionsShape } from '../policy/policy-options.js';
import { functionSchema } from '../run/function-schema.js';
import { ConfigError } from '../errors.js';
import type { AnyTool, Tool } from '../tools/define-tool.js';
import { delegateOf } from './agent-as-tool.js';
import { isToolSource, ToolSet, type ToolSource } from '../tools/tool-set.js';
import { execute } from '../loop/execute.js';
import type { ExecuteOptions } from '../loop/execute-options.js';
import type { ExecuteInput } from '../loop/execute-input.js';
import { InflightRuns } from '../loop/inflight.js';
import { compileRules } from '../policy/policy.js';
import type { GrantStore } from '../ports/grant-store.js';
import { createMemoryGrantStore } from '../stores/memory/memory-grant-store.js';
import { StoredRuleCache } from '../policy/stored-rules.js';
import type { Model } from '../run/types.js';
import type { AgentSnapshot } from '../run/agent-snapshot.js';
import { optionsObject, parseOptions } from '../options.js';
import type { Agent, AgentConfig, AgentSettings } from './agent-types.js';
import { remindAfterMsSchema } from '../policy/nudge-plan.js';

const configSchema = optionsObject({
  name: z.string().regex(/^[A-Za-z0-9_.:-]{1,128}$/, 'use 1 to 128 letters, digits, "_", "-", "." or ":"'),
  model: z.custom<Model>(
    (value) => typeof (value as Model | undefined)?.generate === 'function',
    'must have a generate({ messages, tools }) method',
  ),
  tools: z.array(
    z.custom<Tool | ToolSource>(
      (value) =>
        typeof (value as Tool | undefined)?.spec === 'object' ||
        (typeof value === 'object' && value !== null && isToolSource(value as ToolSource)),
      'must be made with defineTool, or be a source of tools such as an MCP connection',
    ),
  ),
  instructions: z.string().optional(),
  maxTurns: z.number().int().positive().optional(),
  approvalTtlMs: z.number().int().positive().optional(),
  onExpire: z.enum(['deny', 'keep']).optional(),
  remindAfterMs: remindAfterMsSchema.optional(),
  clock: functionSchema().optional(),
  ...policyOptionsShape,
  grantStore: z
    .custom<GrantStore>(
      (value) => typeof (value as GrantStore | undefined)?.consume === 'function',
      'must implement GrantStore',
    )
    .optional(),
  decisionSecret: z.string().min(16, 'use at least 16 characters of randomness').optional(),
  display: optionsObject({
    secretKeys: z.array(z.string()).optional(),
    maxStringLength: z.number().int().min(16).optional(),
  }).optional(),
  onEvent: functionSchema().optional(),
  leaseMs: z.number().int().positive().optional(),
  oneCallPerRun: z.boolean().optional(),
  callAsk: functionSchema().optional(),
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
    if (names.has(tool.name))
      throw new ConfigError(
        `createAgent(${config.name}): two tools are named ${tool.name}; tool names must be unique.`,
      );
    names.add(tool.name);
  }
  const tools = new ToolSet(config.tools);
  const secret = config.decisionSecret;
  return agentOf(config.name, tools, {
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
    decisionSecret: secret,
    display: config.display ?? {},
    onEvent: config.onEvent,
    leaseMs: config.leaseMs ?? 300_000,
    oneCallPerRun: config.oneCallPerRun ?? false,
    callAsk: config.callAsk,
    inflight: new InflightRuns(),
    storedRules: new StoredRuleCache(config.name, secret),
    lineage: undefined,
  });
}

/** An agent from its name, tools and settings (all but `childAgent`, which is derived here, once per delegate tool). */
function agentOf(name: string, tools: ReadonlyMap<string, AnyTool>, base: Omit<AgentSettings, 'childAgent'>): Agent {
  const children = new Map<string, Agent>();
  const settings: AgentSettings = Object.freeze(
    Object.create(base, {
      childAgent: {
        value(toolName: string): Agent | undefined {
          const known = children.get(toolName);
          if (known !== undefined) return known;
          const delegate = agent.tools.get(toolName);
          const found = delegate === undefined ? undefined : delegateOf(delegate);
          if (found === undefined) return undefined;
          const child = underParent(agent, found.agent);
          children.set(toolName, child);
          return child;
        },
      },
    }),
  );
  const agent: Agent = Object.freeze({
    name,
    tools,
    settings,
    execute: (input: ExecuteInput | AgentSnapshot, options?: ExecuteOptions) => execute(agent, input, options),
  });
  return agent;
}

/**
 * A sub-agent as it runs under `parent`: its own model, tools, rules and limits, with the parent's clock and grant
 * store, the parent's decision secret (its own where the parent has none), no `onEvent` of its own (its events go out
 * as the parent's), and the parent in its lineage, whose rules its calls also answer to.
 */
function underParent(parent: Agent, child: Agent): Agent {
  const own = child.settings;
  const secret = parent.settings.decisionSecret ?? own.decisionSecret;
  const inherited = (value: unknown): PropertyDescriptor => ({ value, enumerable: true });
  const base: Omit<AgentSettings, 'childAgent'> = Object.create(own, {
    decisionSecret: inherited(secret),
    clock: inherited(parent.settings.clock),
    grantStore: inherited(parent.settings.grantStore),
    onEvent: inherited(undefined),
    storedRules: inherited(secret === own.decisionSecret ? own.storedRules : new StoredRuleCache(child.name, secret)),
    lineage: inherited({ parent, names: [...(parent.settings.lineage?.names ?? []), parent.name] }),
  });
  return agentOf(child.name, child.tools, base);
}

/** The `agent` option of the functions that decide or cancel a stored run. */
export const agentOption = z.custom<Agent>(
  (value) =>
    typeof (value as Agent | undefined)?.execute === 'function' && typeof (value as Agent).settings === 'object',
  'must be an agent made with createAgent',
);

/**
 * The agent a public function was given for `snapshot`: required, since
 * agents are not looked up by name, and it must be the run's own.
 */
export function agentOfRun(
  snapshot: Pick<AgentSnapshot, 'runId' | 'agentName'>,
  agent: Agent | undefined,
  where: string,
): Agent {
  if (agent === undefined) {
    throw new ConfigError(
      `${where}: options.agent is missing; pass { agent }, the agent of run ${snapshot.runId} (named ${snapshot.agentName}) as createAgent returned it.`,
      'missing_option',
    );
  }
  if (agent.name !== snapshot.agentName)
    throw new ConfigError(
      `${where}: this snapshot belongs to agent ${snapshot.agentName}, not ${agent.name}; pass that agent as { agent }.`,
    );
  return agent;
}
