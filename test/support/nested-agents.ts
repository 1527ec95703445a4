// Agents that delegate (agentAsTool), for the sub-agent suites and the process that resumes a nested run from Redis:
// stateless scripted models (each answers from the conversation, so a resume in any process gets the same answers)
// and tools that log what they ran.
import { z } from 'zod';
import { type Agent, type AgentConfig, agentAsTool, createAgent, defineTool, type Message } from 'countersign';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';

export const SECRET = 'nested-agents-test-secret-0123456789';

/** A model that asks for `calls` on the first turn and, once their results are in, answers with `say(results)`. */
export function callsThenSays(
  calls: readonly { readonly name: string; readonly args: unknown }[],
  say: (results: readonly string[]) => string = (results) => results.join(' | '),
) {
  return createScriptedModel((request) => {
    const messages = request.messages;
    if (messages.at(-1)?.role !== 'tool') return toolCallTurn(calls);
    const results: string[] = [];
    for (let index = messages.length - 1; index >= 0 && messages[index]!.role === 'tool'; index--)
      results.unshift((messages[index] as Message).content);
    return textTurn(say(results));
  });
}

/** What the logged tools ran, by tool name (`name:argument`). */
export type RunLog = string[];

/** A `deploy` tool that needs a person and logs each run; `during` may hold it (a call that never returns). */
export function deployTool(
  log: RunLog,
  options: { needsApproval?: boolean; during?: (signal: AbortSignal) => Promise<unknown> } = {},
) {
  return defineTool({
    name: 'deploy',
    description: 'Deploy a version to production',
    input: z.object({ version: z.string() }),
    needsApproval: options.needsApproval ?? true,
    execute: async ({ version }, ctx) => {
      log.push(`deploy:${version}`);
      await options.during?.(ctx.signal);
      return `deployed ${version}`;
    },
  });
}

/** The `deployer` sub-agent: deploys the version its task names, then says so. */
export function deployer(log: RunLog, config: Partial<AgentConfig> & { version?: string } = {}): Agent {
  const { version = '1.4', ...rest } = config;
  return createAgent({
    name: 'deployer',
    model: callsThenSays([{ name: 'deploy', args: { version } }], ([result]) => `deployer: ${result}`),
    tools: [deployTool(log)],
    ...rest,
  });
}

/** An agent that hands one task to each of `children` in its first turn, then reports what they answered. */
export function lead(children: readonly Agent[], config: Partial<AgentConfig> = {}): Agent {
  return createAgent({
    name: 'lead',
    model: callsThenSays(children.map((child) => ({ name: child.name, args: { task: `work for ${child.name}` } }))),
    tools: children.map((child) => agentAsTool(child)),
    decisionSecret: SECRET,
    ...config,
  });
}
