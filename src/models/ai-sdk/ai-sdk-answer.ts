// An AI SDK model's answer (the content of doGenerate, v2 or v3) as our assistant message: text, reasoning and
// files as parts, function calls as tool calls, each with the provider metadata it came with, as plain JSON.
import type { LanguageModelV3Content } from '@ai-sdk/provider';
import type { AssistantMessage, MessagePart, ModelResponse, ProviderMetadata, ToolCall } from '../../index.js';
import type { SpecDialect } from './spec-versions.js';

/** What doGenerate answers, in the fields both specifications share. */
export interface GenerateResult {
  readonly content: readonly unknown[];
  readonly finishReason: unknown;
  readonly usage: unknown;
  readonly providerMetadata?: unknown;
}

/** Provider metadata as the JSON a snapshot keeps (undefined fields dropped), or nothing when there is none. */
function metadata(value: unknown): { readonly providerMetadata?: ProviderMetadata } {
  if (value === undefined || value === null) return {};
  const json = JSON.parse(JSON.stringify(value)) as ProviderMetadata;
  return Object.keys(json).length > 0 ? { providerMetadata: json } : {};
}

/** Arguments the model sent as text; text that is not JSON is passed on as is, for the tool's schema to refuse. */
function parseInput(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const base64 = (data: string | Uint8Array) => (typeof data === 'string' ? data : Buffer.from(data).toString('base64'));

/**
 * The answer as a `ModelResponse`. Calls the provider ran itself (`providerExecuted`), their results, sources
 * and approval requests of provider tools are left out: countersign runs and gates its own tools only.
 */
export function fromGenerateResult(result: GenerateResult, dialect: SpecDialect): ModelResponse {
  const parts: MessagePart[] = [];
  const toolCalls: ToolCall[] = [];
  for (const item of result.content as readonly LanguageModelV3Content[]) {
    if (item.type === 'text') parts.push({ type: 'text', text: item.text, ...metadata(item.providerMetadata) });
    else if (item.type === 'reasoning')
      parts.push({ type: 'reasoning', text: item.text, ...metadata(item.providerMetadata) });
    else if (item.type === 'file')
      parts.push({
        type: 'file',
        mediaType: item.mediaType,
        data: base64(item.data),
        ...metadata(item.providerMetadata),
      });
    else if (item.type === 'tool-call' && !item.providerExecuted) {
      toolCalls.push({
        id: item.toolCallId,
        name: item.toolName,
        args: parseInput(item.input),
        ...metadata(item.providerMetadata),
      });
    }
  }
  const usage = dialect.usage(result.usage);
  const finishReason = dialect.finishReason(result.finishReason);
  const content = parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
  const message: AssistantMessage = {
    role: 'assistant',
    content,
    ...(parts.length > 0 ? { parts } : {}),
    ...(toolCalls.length > 0 ? { toolCalls } : {}),
    ...metadata(result.providerMetadata),
    usage,
    finishReason,
  };
  return { message, usage, finishReason };
}
