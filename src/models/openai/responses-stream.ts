// A streamed Responses API answer (`stream: true`) as model stream parts: output text (and refusal), reasoning
// summary and function call argument deltas as they come, and at the final event (response.completed, or
// .incomplete / .failed) the whole response it carries, mapped by the same responsesAnswer as a plain answer.
import { z } from 'zod';
import type { ModelStreamPart } from '../../index.js';
import { ModelProviderError, readEventData, type ServerSentEvent } from '../../kit/index.js';
import { responseSchema, responsesAnswer } from './responses-output.js';

const ITEM_ADDED = 'response.output_item.added';
const DELTA_TYPES = [
  'response.output_text.delta',
  'response.refusal.delta',
  'response.reasoning_summary_text.delta',
  'response.function_call_arguments.delta',
] as const;
const FINAL_TYPES = ['response.completed', 'response.incomplete', 'response.failed'] as const;
const KNOWN_TYPES: ReadonlySet<string> = new Set([ITEM_ADDED, ...DELTA_TYPES, ...FINAL_TYPES, 'error']);

const knownEventSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal(ITEM_ADDED),
    item: z.looseObject({
      type: z.string(),
      id: z.string().nullish(),
      call_id: z.string().nullish(),
      name: z.string().nullish(),
    }),
  }),
  z.object({ type: z.enum(DELTA_TYPES), item_id: z.string(), delta: z.string() }),
  z.object({ type: z.enum(FINAL_TYPES), response: responseSchema }),
  z.object({ type: z.literal('error'), code: z.string().nullish() }),
]);

// response.created, .in_progress, content_part and the .done events, and what comes later: read past.
const eventSchema = z.union([
  knownEventSchema,
  z.looseObject({ type: z.string().refine((type) => !KNOWN_TYPES.has(type)) }).transform(() => undefined),
]);

/** The stream parts of a Responses API event stream; throws ModelProviderError for an `error` event or a stream that stops short. */
export async function* responsesStreamParts(events: AsyncIterable<ServerSentEvent>): AsyncGenerator<ModelStreamPart> {
  /** The function calls begun so far, by item id: their call id and name, which argument deltas do not repeat. */
  const calls = new Map<string, { readonly toolCallId: string; readonly toolName: string }>();
  for await (const event of events) {
    const data = readEventData(event, eventSchema, 'a Responses API stream event');
    if (data === undefined) continue;
    switch (data.type) {
      case 'response.output_item.added':
        if (data.item.type === 'function_call' && data.item.id && data.item.call_id && data.item.name) {
          calls.set(data.item.id, { toolCallId: data.item.call_id, toolName: data.item.name });
        }
        break;
      case 'response.output_text.delta':
      case 'response.refusal.delta':
        yield { type: 'text-delta', delta: data.delta };
        break;
      case 'response.reasoning_summary_text.delta':
        yield { type: 'reasoning-delta', delta: data.delta };
        break;
      case 'response.function_call_arguments.delta': {
        const call = calls.get(data.item_id);
        if (call) yield { type: 'tool-call-delta', ...call, argsDelta: data.delta };
        break;
      }
      case 'error':
        throw new ModelProviderError(
          `The model provider ended its stream with an error (${data.code ?? 'no code'}).`,
          undefined,
          event.data,
        );
      default:
        yield { type: 'finish', response: responsesAnswer(data.response) };
        return;
    }
  }
  throw new ModelProviderError('The model provider ended its stream before response.completed.');
}
