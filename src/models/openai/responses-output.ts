// A Responses API answer as our ModelResponse: reasoning items as reasoning parts (one a summary, the encrypted
// content on the item's first, the item id on each), output text as text parts and `content`, function calls as
// tool calls (call_id as id, item id in providerMetadata), the response id on the message for previous_response_id,
// usage, and a finish reason from status and incomplete_details. Also what a stream's final event carries.
import { z } from 'zod';
import type { AssistantMessage, FinishReason, MessagePart, ModelResponse, ToolCall } from '../../index.js';
import { usageOf } from '../../kit/index.js';
import { parseArguments } from './tool-arguments.js';

const reasoningItem = z.object({
  type: z.literal('reasoning'),
  id: z.string(),
  summary: z.array(z.object({ text: z.string() })).default([]),
  encrypted_content: z.string().nullish(),
});
const messageItem = z.object({
  type: z.literal('message'),
  id: z.string(),
  content: z.array(
    z.union([
      z.object({ type: z.literal('output_text'), text: z.string() }),
      z.object({ type: z.literal('refusal'), refusal: z.string() }),
    ]),
  ),
});
const functionCallItem = z.object({
  type: z.literal('function_call'),
  id: z.string().nullish(),
  call_id: z.string(),
  name: z.string(),
  arguments: z.string(),
});
/** Items for tools this adapter does not offer (web search, ...): read past. */
const otherItem = z.object({
  type: z.string().refine((type) => !['reasoning', 'message', 'function_call'].includes(type)),
});

/** The parts of a Responses API answer this adapter reads. */
export const responseSchema = z.object({
  id: z.string(),
  status: z.string().nullish(),
  incomplete_details: z.object({ reason: z.string().nullish() }).nullish(),
  output: z.array(z.union([reasoningItem, messageItem, functionCallItem, otherItem])),
  usage: z
    .object({
      input_tokens: z.number().nullish(),
      output_tokens: z.number().nullish(),
      input_tokens_details: z.object({ cached_tokens: z.number().nullish() }).nullish(),
      output_tokens_details: z.object({ reasoning_tokens: z.number().nullish() }).nullish(),
    })
    .nullish(),
});
export type ResponsesAnswer = z.infer<typeof responseSchema>;

const openai = (itemId: string) => ({ openai: { itemId } });

function reasoningParts(item: z.infer<typeof reasoningItem>): MessagePart[] {
  const texts = item.summary.length === 0 ? [''] : item.summary.map((summary) => summary.text);
  return texts.map((text, index) => ({
    type: 'reasoning',
    text,
    ...(index === 0 && item.encrypted_content ? { encryptedContent: item.encrypted_content } : {}),
    providerMetadata: openai(item.id),
  }));
}

function finishReasonOf(answer: ResponsesAnswer, calledTools: boolean): FinishReason {
  const incomplete = answer.incomplete_details?.reason;
  if (incomplete === 'max_output_tokens') return 'length';
  if (incomplete === 'content_filter') return 'content-filter';
  if (answer.status === 'failed') return 'error';
  if (calledTools) return 'tool-calls';
  return answer.status === 'completed' || answer.status == null ? 'stop' : 'other';
}

/** The assistant message, usage and finish reason of a Responses API answer. */
export function responsesAnswer(answer: ResponsesAnswer): ModelResponse {
  const parts: MessagePart[] = [];
  const toolCalls: ToolCall[] = [];
  for (const item of answer.output) {
    if (item.type === 'reasoning' && 'summary' in item) parts.push(...reasoningParts(item));
    else if (item.type === 'message' && 'content' in item) {
      for (const content of item.content)
        parts.push({
          type: 'text',
          text: content.type === 'refusal' ? content.refusal : content.text,
          providerMetadata: openai(item.id),
        });
    } else if (item.type === 'function_call' && 'call_id' in item) {
      toolCalls.push({
        id: item.call_id,
        name: item.name,
        args: parseArguments(item.arguments),
        ...(item.id ? { providerMetadata: openai(item.id) } : {}),
      });
    }
  }
  const message: AssistantMessage = {
    role: 'assistant',
    content: parts.map((part) => (part.type === 'text' ? part.text : '')).join(''),
    ...(parts.length > 0 ? { parts } : {}),
    ...(toolCalls.length > 0 ? { toolCalls } : {}),
    providerMetadata: { openai: { responseId: answer.id } },
  };
  const usage = usageOf({
    inputTokens: answer.usage?.input_tokens,
    outputTokens: answer.usage?.output_tokens,
    reasoningTokens: answer.usage?.output_tokens_details?.reasoning_tokens,
    cachedInputTokens: answer.usage?.input_tokens_details?.cached_tokens,
  });
  return {
    message,
    ...(usage === undefined ? {} : { usage }),
    finishReason: finishReasonOf(answer, toolCalls.length > 0),
  };
}
