// The Messages API's answer as our assistant message: thinking as reasoning parts (kept verbatim for the next
// request), text as content and text parts, tool_use as tool calls, plus usage and why it stopped.
import { z } from 'zod';
import type { FinishReason, MessagePart, ModelResponse, ToolCall, Usage } from '../../index.js';

const usageSchema = z.object({
  input_tokens: z.number(),
  output_tokens: z.number(),
  cache_creation_input_tokens: z.number().nullish(),
  cache_read_input_tokens: z.number().nullish(),
});

const knownBlockSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string() }),
  z.object({ type: z.literal('thinking'), thinking: z.string(), signature: z.string() }),
  z.object({ type: z.literal('redacted_thinking'), data: z.string() }),
  z.object({ type: z.literal('tool_use'), id: z.string(), name: z.string(), input: z.unknown() }),
]);
const KNOWN_TYPES: ReadonlySet<string> = new Set(knownBlockSchema.options.map((option) => option.shape.type.value));

// A block of a tool countersign does not offer (a server tool) has nothing to map: read as undefined.
const blockSchema = z.union([
  knownBlockSchema,
  z.looseObject({ type: z.string().refine((type) => !KNOWN_TYPES.has(type)) }).transform(() => undefined),
]);

/** A Messages API answer (`type: 'message'`), as far as countersign reads it. */
export const anthropicAnswerSchema = z.object({
  content: z.array(blockSchema),
  stop_reason: z.string().nullish(),
  usage: usageSchema,
});
export type AnthropicAnswer = z.infer<typeof anthropicAnswerSchema>;

const FINISH_REASONS: Readonly<Record<string, FinishReason>> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  tool_use: 'tool-calls',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  refusal: 'content-filter',
};

/** Anthropic's `stop_reason` in our words; one we do not know is `other`. */
export function finishReasonOf(stopReason: string | null | undefined): FinishReason {
  return (stopReason && FINISH_REASONS[stopReason]) || 'other';
}

/** Anthropic counts cached input apart from `input_tokens`; ours counts all input, the cached part again. */
export function usageOf(usage: z.infer<typeof usageSchema>): Usage {
  const cachedInputTokens = usage.cache_read_input_tokens ?? 0;
  return {
    inputTokens: usage.input_tokens + cachedInputTokens + (usage.cache_creation_input_tokens ?? 0),
    outputTokens: usage.output_tokens,
    cachedInputTokens,
  };
}

/** The assistant message, usage and finish reason of an answer. */
export function responseOf(answer: AnthropicAnswer): ModelResponse {
  const parts: MessagePart[] = [];
  const toolCalls: ToolCall[] = [];
  for (const block of answer.content) {
    if (block?.type === 'thinking') parts.push({ type: 'reasoning', text: block.thinking, signature: block.signature });
    if (block?.type === 'redacted_thinking')
      parts.push({
        type: 'reasoning',
        text: '',
        encryptedContent: block.data,
        providerMetadata: { anthropic: { redacted: true } },
      });
    if (block?.type === 'text') parts.push({ type: 'text', text: block.text });
    if (block?.type === 'tool_use') toolCalls.push({ id: block.id, name: block.name, args: block.input ?? {} });
  }
  const content = parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
  const usage = usageOf(answer.usage);
  const finishReason = finishReasonOf(answer.stop_reason);
  return {
    message: {
      role: 'assistant',
      content,
      ...(parts.length > 0 ? { parts } : {}),
      ...(toolCalls.length > 0 ? { toolCalls } : {}),
      usage,
      finishReason,
    },
    usage,
    finishReason,
  };
}
