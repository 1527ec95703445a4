// A small harness for policy tests: one agent, a model that calls the given tools once, then answers.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { createAgent, defineTool, type AgentConfig, type Tool, type ToolDefinition } from 'countersign';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';

export interface Executions {
  /** Arguments each tool was executed with, by tool name. */
  readonly byTool: Map<string, unknown[]>;
  count(toolName: string): number;
}

export function recordingTool(
  name: string,
  options: Partial<Omit<ToolDefinition<Record<string, unknown>>, 'name' | 'execute' | 'input'>> = {},
  executions: Executions = newExecutions(),
): Tool<Record<string, unknown>> {
  return defineTool({
    name,
    description: options.description ?? `The ${name} tool`,
    input: z.record(z.string(), z.unknown()),
    ...options,
    execute: (input) => {
      const list = executions.byTool.get(name) ?? [];
      list.push(input);
      executions.byTool.set(name, list);
      return { ok: true };
    },
  });
}

export function newExecutions(): Executions {
  const byTool = new Map<string, unknown[]>();
  return { byTool, count: (toolName) => byTool.get(toolName)?.length ?? 0 };
}

/** An agent whose model calls `calls` (one turn per entry), then says "done". */
export function agentCalling(
  calls: readonly (readonly { name: string; args: unknown }[])[],
  config: Omit<AgentConfig, 'name' | 'model'> & { name?: string },
) {
  const turns = [...calls.map((turn) => toolCallTurn(turn.map((call) => ({ ...call })))), textTurn('done')];
  return createAgent({
    name: config.name ?? `policy-${randomUUID().slice(0, 8)}`,
    model: createScriptedModel(turns),
    ...config,
  });
}
