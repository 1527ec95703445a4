// A streamed Chat Completions answer (`stream: true`, usage asked for with stream_options.include_usage) as model
// stream parts: content and tool call argument deltas of the first choice as they come, and at `data: [DONE]` the
// completion the chunks add up to, mapped by the same chatAnswer as a plain answer.
import { z } from 'zod';
import type { ModelStreamPart } from '../../index.js';
import { ModelProviderError, readEventData, type ServerSentEvent } from '../../kit/index.js';
import { chatAnswer, chatUsageSchema, completionSchema } from './chat-output.js';

const toolCallDelta = z.object({
  index: z.number(),
  id: z.string().nullish(),
  function: z.object({ name: z.string().nullish(), arguments: z.string().nullish() }).nullish(),
});

const chunkSchema = z.union([
  z.object({ error: z.object({ code: z.union([z.string(), z.number()]).nullish(), type: z.string().nullish() }) }),
  z.object({
    choices: z.array(
      z.object({
        index: z.number().default(0),
        delta: z.object({ content: z.string().nullish(), tool_calls: z.array(toolCallDelta).nullish() }).nullish(),
        finish_reason: z.string().nullish(),
      }),
    ),
    usage: chatUsageSchema.nullish(),
  }),
]);

/** The tool calls of the first choice so far, by their index in its tool_calls. */
type CallsSoFar = { id: string; name: string; arguments: string }[];

/** The stream parts of a Chat Completions chunk stream; throws ModelProviderError for an error chunk or a stream that stops short. */
export async function* chatStreamParts(events: AsyncIterable<ServerSentEvent>): AsyncGenerator<ModelStreamPart> {
  let content = '';
  const calls: CallsSoFar = [];
  let finishReason: string | null = null;
  let usage: z.infer<typeof chatUsageSchema> | null = null;
  for await (const event of events) {
    if (event.data === '[DONE]') {
      const completion = completionSchema.safeParse({
        choices: [
          {
            message: { content, tool_calls: calls.map(({ id, ...call }) => ({ id, function: call })) },
            finish_reason: finishReason,
          },
        ],
        usage,
      });
      if (!completion.success)
        throw new ModelProviderError('The model provider streamed chunks that do not add up to a chat completion.');
      yield { type: 'finish', response: chatAnswer(completion.data) };
      return;
    }
    const chunk = readEventData(event, chunkSchema, 'a chat completion chunk');
    if ('error' in chunk) {
      throw new ModelProviderError(
        `The model provider ended its stream with an error (${chunk.error.code ?? chunk.error.type ?? 'no code'}).`,
        undefined,
        event.data,
      );
    }
    usage = chunk.usage ?? usage;
    for (const choice of chunk.choices.filter((each) => each.index === 0)) {
      finishReason = choice.finish_reason ?? finishReason;
      if (choice.delta?.content) {
        content += choice.delta.content;
        yield { type: 'text-delta', delta: choice.delta.content };
      }
      for (const delta of choice.delta?.tool_calls ?? []) {
        calls[delta.index] ??= { id: '', name: '', arguments: '' };
        const call = calls[delta.index]!;
        call.id ||= delta.id ?? '';
        call.name ||= delta.function?.name ?? '';
        call.arguments += delta.function?.arguments ?? '';
        if (delta.function?.arguments)
          yield {
            type: 'tool-call-delta',
            toolCallId: call.id,
            toolName: call.name,
            argsDelta: delta.function.arguments,
          };
      }
    }
  }
  throw new ModelProviderError('The model provider ended its stream before data: [DONE].');
}
