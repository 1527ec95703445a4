// Helpers for the core tests: tools that record every execution, and agents with unique names.
import { z } from 'zod';
import { defineTool, type Tool, type ToolDefinition, type ToolExecuteContext } from 'countersign';
import { createScriptedModel, type ScriptedModel, type ScriptedTurn } from 'countersign/testing';

/** One execution of a recorded tool: what it received. */
export interface Execution {
  readonly toolName: string;
  readonly input: unknown;
  readonly ctx: ToolExecuteContext;
}

export interface Ledger {
  readonly executions: Execution[];
  /** Every event in order: tool executions and model calls interleaved. */
  readonly timeline: string[];
  count(toolName?: string): number;
}

export function newLedger(): Ledger {
  const executions: Execution[] = [];
  return {
    executions,
    timeline: [],
    count: (toolName) => executions.filter((item) => toolName === undefined || item.toolName === toolName).length,
  };
}

/** A tool taking `{ path: string }` that records each execution in `ledger` and returns what it did. */
export function pathTool(
  name: string,
  ledger: Ledger,
  options: Partial<Omit<ToolDefinition<{ path: string }>, 'name' | 'input' | 'execute'>> & {
    execute?: (input: { path: string }, ctx: ToolExecuteContext) => unknown;
  } = {},
): Tool<{ path: string }> {
  const { execute, ...rest } = options;
  return defineTool({
    name,
    description: `The ${name} tool`,
    input: z.object({ path: z.string().min(1) }),
    ...rest,
    execute: async (input, ctx) => {
      ledger.executions.push({ toolName: name, input, ctx });
      ledger.timeline.push(`tool:${name}:${ctx.toolCallId}`);
      return execute ? execute(input, ctx) : { done: name, path: input.path };
    },
  });
}

/** A scripted model that also writes each call to the ledger's timeline. */
export function loggedModel(script: readonly ScriptedTurn[], ledger: Ledger): ScriptedModel {
  const inner = createScriptedModel(script);
  return {
    get calls() {
      return inner.calls;
    },
    async generate(request) {
      ledger.timeline.push(`model:${inner.calls.length + 1}`);
      return inner.generate(request);
    },
  };
}

/** Parses a tool message's content. */
export function parsedResult(content: string | undefined): unknown {
  if (content === undefined) return undefined;
  try {
    return JSON.parse(content);
  } catch {
    return content;
  }
}
