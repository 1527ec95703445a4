// A Chat Completions answer as our ModelResponse: the first choice's content and tool calls, usage, and why it
// stopped. Also what a stream's chunks add up to.
import { z } from 'zod';
import type { FinishReason, ModelResponse } from '../../index.js';
import { usageOf } from '../../kit/index.js';
import { parseArguments } from './tool-arguments.js';

/** The counts a completion (or a stream's last chunk, with stream_options.include_usage) reports. */
export const chatUsageSchema = z.object({
  prompt_tokens: z.number().optional(),
  completion_tokens: z.number().optional(),
  prompt_tokens_details: z.object({ cached_tokens: z.number().nullish() }).nullish(),
  completion_tokens_details: z.object({ reasoning_tokens: z.number().nullish() }).nullish(),
});

/** The parts of a chat completion this adapter reads. */
export const completionSchema = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({
          content: z.string().nullish(),
          tool_calls: z
            .array(z.object({ id: z.string(), function: z.object({ name: z.string(), arguments: z.string() }) }))
            .nullish(),
        }),
        finish_reason: z.string().nullish(),
      }),
    )
    .min(1),
  usage: chatUsageSchema.nullish(),
});
export type ChatCompletion = z.infer<typeof completionSchema>;

const FINISH_REASONS: Readonly<Record<string, FinishReason>> = {
  stop: 'stop',
  length: 'length',
  tool_calls: 'tool-calls',
  function_call: 'tool-calls',
  content_filter: 'content-filter',
};

/** The assistant message, usage and finish reason of a completion's first choice. */
export function chatAnswer(completion: ChatCompletion): ModelResponse {
  const choice = completion.choices[0]!;
  const toolCalls = (choice.message.tool_calls ?? []).map((call) => ({
    id: call.id,
    name: call.function.name,
    args: parseArguments(call.function.arguments),
  }));
  const usage = usageOf({
    inputTokens: completion.usage?.prompt_tokens,
    outputTokens: completion.usage?.completion_tokens,
    reasoningTokens: completion.usage?.completion_tokens_details?.reasoning_tokens,
    cachedInputTokens: completion.usage?.prompt_tokens_details?.cached_tokens,
  });
  const finishReason = choice.finish_reason ? (FINISH_REASONS[choice.finish_reason] ?? 'other') : undefined;
  return {
    message: {
      role: 'assistant',
      content: choice.message.content ?? '',
      ...(toolCalls.length > 0 ? { toolCalls } : {}),
    },
    ...(usage === undefined ? {} : { usage }),
    ...(finishReason === undefined ? {} : { finishReason }),
  };
}
