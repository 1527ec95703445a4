// A parent's tool that runs another agent (a sub-agent): the loop runs its delegate calls itself (src/loop/effects/
// run-delegate.ts), so a sub-agent's call that needs a person pauses the whole run and is asked as that inner call.
import { z } from 'zod';
import { ConfigError } from '../errors.js';
import { defineTool, type Tool } from '../tools/define-tool.js';
import { functionSchema } from '../run/function-schema.js';
import { optionsObject, parseOptions } from '../options.js';
import type { Agent } from './agent-types.js';

/** Options of `agentAsTool`. */
export interface AgentAsToolOptions<Input> {
  /** The tool's name as the parent's model sees it; the sub-agent's name by default (`:` made `_`). */
  readonly name?: string;
  /** What the parent's model reads about the tool; a sentence naming the sub-agent by default. */
  readonly description?: string;
  /** The delegate call's arguments; `{ task: string }` by default. */
  readonly input?: z.ZodType<Input>;
  /** The sub-agent's first message, from the arguments; the `task` (or the arguments as JSON) by default. */
  readonly prompt?: (input: Input) => string;
  /**
   * What the sub-agent starts from: `'task'` (default) only its prompt; `'conversation'` the parent's conversation so
   * far (its user and assistant text, not its tool calls) and then the prompt.
   */
  readonly inherit?: 'task' | 'conversation';
  /** How many delegations deep a chain may go, counting this one (default 4): deeper, the call fails with a clear result. */
  readonly maxDepth?: number;
}

/** What the loop needs of a delegate tool: the sub-agent and how its run starts. */
export interface Delegate {
  readonly agent: Agent;
  readonly prompt: (input: unknown) => string;
  readonly inherit: 'task' | 'conversation';
  readonly maxDepth: number;
}

const delegates = new WeakMap<object, Delegate>();

/** The sub-agent a tool runs, when `agentAsTool` made it. */
export function delegateOf(tool: object): Delegate | undefined {
  return delegates.get(tool);
}

const optionsSchema = optionsObject({
  name: z.string().optional(),
  description: z.string().min(1).optional(),
  input: z.custom<z.ZodType>((value) => value instanceof z.ZodType, 'must be a zod schema').optional(),
  prompt: functionSchema().optional(),
  inherit: z.enum(['task', 'conversation']).optional(),
  maxDepth: z.number().int().min(1).max(16).optional(),
});

const taskInput = z.object({ task: z.string().min(1).describe('What the agent should do, in full') });

function defaultPrompt(input: unknown): string {
  const task = (input as { task?: unknown } | null)?.task;
  return typeof task === 'string' ? task : JSON.stringify(input);
}

/**
 * A tool that runs `child`, another agent, as a sub-agent of the agent it is given to. The sub-agent's run is a real
 * run, kept with the parent's (one snapshot, one compare-and-set). When one of its calls needs a person the parent
 * stops in `awaitingApproval` too and lists that inner call (with its `path`); the delegate call itself is never what
 * a person approves. A decision made on the parent reaches the sub-agent, the inner call runs once, and the
 * sub-agent's answer is the delegate call's result. The parent's rules apply to the sub-agent's calls and can only
 * tighten what its own rules say; the parent's decision secret signs the whole chain.
 *
 * @example
 * const deployer = createAgent({ name: 'deployer', model, tools: [deploy] });
 * const lead = createAgent({ name: 'lead', model, tools: [agentAsTool(deployer, { description: 'Ships a release' })] });
 * const paused = await lead.execute({ input: 'ship 1.4' });
 * paused.pendingApprovals[0]?.toolName; // 'deploy', with path [{ agentName: 'deployer', toolName: 'deployer', … }]
 */
export function agentAsTool<Input = { task: string }>(
  child: Agent,
  options: AgentAsToolOptions<Input> = {},
): Tool<Input> {
  if (typeof child?.execute !== 'function' || typeof child.settings !== 'object')
    throw new ConfigError('agentAsTool: pass an agent made with createAgent as the first argument.');
  parseOptions(optionsSchema, options, `agentAsTool(${child.name})`);
  const input = (options.input ?? taskInput) as z.ZodType<Input>;
  const tool = defineTool<Input>({
    name: options.name ?? child.name.replaceAll(':', '_'),
    description:
      options.description ?? `Hands a task to the ${child.name} agent, which works on it and answers with its result.`,
    input,
    // The delegate call only starts the sub-agent: each of the sub-agent's own calls is gated where it is made.
    needsApproval: false,
    execute: () => {
      throw new ConfigError(
        `agentAsTool(${child.name}): this tool runs inside an agent's loop (createAgent({ tools: [...] })), where the sub-agent's approvals pause the parent run; it cannot be called on its own.`,
      );
    },
  });
  delegates.set(tool, {
    agent: child,
    prompt: (options.prompt as ((value: unknown) => string) | undefined) ?? defaultPrompt,
    inherit: options.inherit ?? 'task',
    maxDepth: options.maxDepth ?? 4,
  });
  return tool;
}
