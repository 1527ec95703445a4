import type { ModelMessage, Tool as AiSdkTool } from 'ai';
import { z } from 'zod';
import { ConfigError } from '../../errors.js';
import { type AnyTool, defineTool, type ToolContext, toolResult, type JsonValue } from '../../index.js';
import { isPlainJson, richResultOf, resultContent } from '../../kit/index.js';
import { toPrompt } from './ai-sdk-prompt.js';
import { dialects } from './spec-versions.js';

// biome-ignore lint/suspicious/noExplicitAny: tools of every input and output type share one record, as in the AI SDK's ToolSet
type AnyAiSdkTool = AiSdkTool<any, any>;

/** The conversation as the AI SDK's tool functions read it (`messages` of their options). */
const modelMessages = (context: ToolContext) => toPrompt(context.messages, dialects.v3) as ModelMessage[];

/** The tool's input schema as zod 4: a zod 4 schema as is, a `jsonSchema()` one converted. */
function zodInput(name: string, schema: unknown): z.ZodType {
  const where = `fromAiSdkTools: tool ${JSON.stringify(name)} inputSchema`;
  if (schema instanceof z.ZodType) return schema;
  if (typeof schema === 'function') return zodInput(name, (schema as () => unknown)());
  if (typeof schema === 'object' && schema !== null && Symbol.for('vercel.ai.schema') in schema) {
    const json = (schema as { jsonSchema: unknown }).jsonSchema;
    if (typeof (json as { then?: unknown } | null)?.then === 'function') {
      throw new ConfigError(
        `${where} is a JSON Schema that resolves later; pass the schema object itself to jsonSchema().`,
        'invalid_config',
      );
    }
    try {
      return z.fromJSONSchema(json as Parameters<typeof z.fromJSONSchema>[0]);
    } catch {
      throw new ConfigError(
        `${where} is a JSON Schema that zod cannot read; write the input as a zod 4 schema instead.`,
        'invalid_config',
      );
    }
  }
  const vendor = (schema as { '~standard'?: { vendor?: unknown } } | null)?.['~standard']?.vendor;
  throw new ConfigError(
    `${where} is ${vendor === undefined ? 'not a schema countersign can read' : `a ${String(vendor)} schema that is not zod 4`}; countersign validates inputs with zod 4: write it with \`import { z } from 'zod'\` or as jsonSchema({ ... }).`,
    'invalid_config',
  );
}

/** What an AI SDK `execute` produced; for one that streams (an async iterable), its last value, as the AI SDK takes it. */
async function finalOutput(output: unknown): Promise<unknown> {
  if (typeof output !== 'object' || output === null || !(Symbol.asyncIterator in output)) return output;
  let last: unknown;
  for await (const value of output as AsyncIterable<unknown>) last = value;
  return last;
}

/**
 * An AI SDK tool's result as the model should get it: a string as text, a JSON value as a structured result (a
 * `json` output, as the AI SDK's own generateText sends it, with the JSON as the text other adapters read).
 */
function asToolResult(output: unknown): unknown {
  if (typeof output === 'string' || output === undefined || richResultOf(output)) return output;
  const text = resultContent(output);
  let structured: unknown;
  try {
    structured = JSON.parse(text);
  } catch {
    return output;
  }
  return isPlainJson(structured) ? toolResult({ text, structured: structured as JsonValue }) : output;
}

/**
 * AI SDK tools (`tool({ description, inputSchema, execute, needsApproval })`, keyed by name as `generateText`
 * takes them) as countersign tools. The input schema must be zod 4 or `jsonSchema()` (converted with
 * `z.fromJSONSchema`); `needsApproval` keeps its meaning, and a tool that does not say needs approval, as every
 * countersign tool does (the AI SDK's default is not to ask): set `needsApproval: false` on the harmless ones.
 * Every tool needs an `execute`: countersign runs the tools it gates. A result that is not a string reaches
 * the model as a `json` output, as in the AI SDK.
 *
 * @example
 * import { tool } from 'ai';
 * import { fromAiSdkTools } from 'countersign/ai-sdk';
 * const tools = fromAiSdkTools({
 *   deleteFile: tool({ description: 'Delete a file', inputSchema: z.object({ path: z.string() }), execute: ({ path }) => fs.rm(path) }),
 *   readFile: tool({ description: 'Read a file', inputSchema: z.object({ path: z.string() }), needsApproval: false, execute: ({ path }) => fs.readFile(path, 'utf8') }),
 * });
 * const agent = createAgent({ name: 'files', model, tools });
 */
export function fromAiSdkTools(tools: Readonly<Record<string, AnyAiSdkTool>>): AnyTool[] {
  if (typeof tools !== 'object' || tools === null || Array.isArray(tools)) {
    throw new ConfigError(
      'fromAiSdkTools: tools must be an object of AI SDK tools keyed by name, as generateText takes them.',
      'invalid_config',
    );
  }
  return Object.entries(tools).map(([name, aiTool]) => {
    const { execute, needsApproval } = aiTool;
    if (typeof execute !== 'function') {
      throw new ConfigError(
        `fromAiSdkTools: tool ${JSON.stringify(name)} has no execute; countersign runs the tools it gates, so give it one.`,
        'missing_option',
      );
    }
    return defineTool({
      name,
      description: aiTool.description as string,
      input: zodInput(name, aiTool.inputSchema),
      needsApproval:
        typeof needsApproval === 'function'
          ? async (input, context) =>
              Boolean(await needsApproval(input, { toolCallId: context.toolCallId, messages: modelMessages(context) }))
          : (needsApproval ?? true),
      execute: async (input, context) =>
        asToolResult(
          await finalOutput(
            await execute(input, {
              toolCallId: context.toolCallId,
              messages: modelMessages(context),
              abortSignal: context.signal,
            }),
          ),
        ),
    });
  });
}
