// A streamed Messages API answer (`stream: true`) as model stream parts: text, thinking and tool input deltas as
// they come, and at `message_stop` the message the events add up to, mapped by the same responseOf as a plain
// answer, so a streamed turn is kept exactly as a generated one (thinking signatures and redacted blocks too).
import { z } from 'zod';
import type { ModelStreamPart } from '../../index.js';
import { ModelProviderError, readEventData, type ServerSentEvent } from '../../kit/index.js';
import { anthropicAnswerSchema, responseOf } from './anthropic-answer.js';

const block = z.looseObject({ type: z.string() });
const counts = z.looseObject({});

/** A schema for `known`, with any other `type` (added after this adapter was written) read as undefined. */
function orUnknown<
  const Options extends readonly [
    z.ZodObject<{ type: z.ZodLiteral<string> }>,
    ...z.ZodObject<{ type: z.ZodLiteral<string> }>[],
  ],
>(known: Options) {
  const types: ReadonlySet<unknown> = new Set(known.map((option) => option.shape.type.value));
  return z.union([
    z.discriminatedUnion('type', known),
    z.looseObject({ type: z.string().refine((type) => !types.has(type)) }).transform(() => undefined),
  ]);
}

const eventSchema = orUnknown([
  z.object({ type: z.literal('message_start'), message: z.object({ usage: counts }) }),
  z.object({ type: z.literal('content_block_start'), index: z.number(), content_block: block }),
  z.object({
    type: z.literal('content_block_delta'),
    index: z.number(),
    // citations_delta, and what comes later, is nothing countersign keeps.
    delta: orUnknown([
      z.object({ type: z.literal('text_delta'), text: z.string() }),
      z.object({ type: z.literal('thinking_delta'), thinking: z.string() }),
      z.object({ type: z.literal('signature_delta'), signature: z.string() }),
      z.object({ type: z.literal('input_json_delta'), partial_json: z.string() }),
    ]),
  }),
  z.object({ type: z.literal('content_block_stop'), index: z.number() }),
  z.object({
    type: z.literal('message_delta'),
    delta: z.object({ stop_reason: z.string().nullish() }),
    usage: counts.nullish(),
  }),
  z.object({ type: z.literal('message_stop') }),
  z.object({ type: z.literal('ping') }),
  z.object({ type: z.literal('error'), error: z.object({ type: z.string() }) }),
]);

/** What the events so far add up to: the blocks by index (a tool's input still as JSON text), why it stopped, usage. */
class AnthropicAnswerBuilder {
  private readonly blocks: Record<string, unknown>[] = [];
  private readonly toolInputs = new Map<number, string>();
  private usage: Record<string, unknown> = {};
  private stopReason: string | null | undefined;

  start(usage: Record<string, unknown>): void {
    this.usage = usage;
  }

  open(index: number, block: Record<string, unknown>): void {
    this.blocks[index] = { ...block };
    if (block['type'] === 'tool_use') this.toolInputs.set(index, '');
  }

  append(index: number, field: string, text: string): void {
    const open = this.blocks[index];
    if (open && field === 'partial_json') this.toolInputs.set(index, (this.toolInputs.get(index) ?? '') + text);
    else if (open) open[field] = `${typeof open[field] === 'string' ? open[field] : ''}${text}`;
  }

  /** The tool call an input delta at `index` belongs to. */
  toolOf(index: number): { readonly id: string; readonly name: string } | undefined {
    const open = this.blocks[index];
    return open?.['type'] === 'tool_use' ? { id: String(open['id']), name: String(open['name']) } : undefined;
  }

  end(stopReason: string | null | undefined, usage: Record<string, unknown> | null | undefined): void {
    this.stopReason = stopReason;
    // message_delta's counts are cumulative; those it leaves out (or sends as null) stay as message_start said.
    this.usage = {
      ...this.usage,
      ...Object.fromEntries(Object.entries(usage ?? {}).filter((entry) => entry[1] != null)),
    };
  }

  /** The whole answer, as a non-streamed call would have had it. */
  answer(): unknown {
    const content = this.blocks.map((open, index) => {
      const input = this.toolInputs.get(index);
      return input === undefined ? open : { ...open, input: input === '' ? {} : JSON.parse(input) };
    });
    return { content, stop_reason: this.stopReason, usage: this.usage };
  }
}

const PROVIDER = 'Anthropic';

/** The stream parts of a Messages API event stream; throws ModelProviderError for an `error` event or a stream that stops short. */
export async function* anthropicStreamParts(events: AsyncIterable<ServerSentEvent>): AsyncGenerator<ModelStreamPart> {
  const builder = new AnthropicAnswerBuilder();
  for await (const event of events) {
    const data = readEventData(event, eventSchema, 'a Messages API stream event', PROVIDER);
    if (data?.type === 'message_start') builder.start(data.message.usage);
    else if (data?.type === 'content_block_start') builder.open(data.index, data.content_block);
    else if (data?.type === 'content_block_delta') {
      const { delta, index } = data;
      if (delta?.type === 'text_delta') {
        builder.append(index, 'text', delta.text);
        yield { type: 'text-delta', delta: delta.text };
      } else if (delta?.type === 'thinking_delta') {
        builder.append(index, 'thinking', delta.thinking);
        yield { type: 'reasoning-delta', delta: delta.thinking };
      } else if (delta?.type === 'signature_delta') builder.append(index, 'signature', delta.signature);
      else if (delta?.type === 'input_json_delta') {
        builder.append(index, 'partial_json', delta.partial_json);
        const tool = builder.toolOf(index);
        if (tool)
          yield { type: 'tool-call-delta', toolCallId: tool.id, toolName: tool.name, argsDelta: delta.partial_json };
      }
    } else if (data?.type === 'message_delta') builder.end(data.delta.stop_reason, data.usage);
    else if (data?.type === 'error')
      throw new ModelProviderError(
        `${PROVIDER} ended its stream with an error (${data.error.type}).`,
        undefined,
        event.data,
      );
    else if (data?.type === 'message_stop') {
      yield { type: 'finish', response: responseOf(finalAnswer(builder)) };
      return;
    }
  }
  throw new ModelProviderError(`${PROVIDER}'s stream ended before message_stop.`);
}

function finalAnswer(builder: AnthropicAnswerBuilder) {
  try {
    return anthropicAnswerSchema.parse(builder.answer());
  } catch {
    throw new ModelProviderError(`${PROVIDER}'s stream did not add up to a Messages API message.`);
  }
}
