// An AI SDK model's stream (doStream, v2 or v3) as our stream parts: text, reasoning and tool input deltas as they
// come, then `finish` with the answer built from the same content doGenerate would have returned, so a streamed
// turn is stored exactly as a generated one.
import type { LanguageModelV3Content, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import type { ModelStreamPart } from '../../index.js';
import { ModelProviderError } from '../../kit/index.js';
import { fromGenerateResult } from './ai-sdk-answer.js';
import { streamError } from './ai-sdk-errors.js';
import type { SpecDialect } from './spec-versions.js';

type Block = { type: 'text' | 'reasoning'; text: string; providerMetadata?: unknown };

/** What the stream has said so far: the content in the order its pieces started, and the tool inputs under way. */
class Answer {
  readonly content: (Block | LanguageModelV3Content)[] = [];
  readonly blocks = new Map<string, Block>();
  readonly toolInputs = new Map<string, { toolName: string; countersignRuns: boolean }>();
  finish: { usage: unknown; finishReason: unknown; providerMetadata?: unknown } | undefined;

  start(type: Block['type'], id: string, providerMetadata: unknown): void {
    const block: Block = { type, text: '', providerMetadata };
    this.blocks.set(id, block);
    this.content.push(block);
  }

  /** Text and metadata for a started block; the latest metadata wins, as in the AI SDK's own streamText. */
  extend(id: string, text: string, providerMetadata: unknown): void {
    const block = this.blocks.get(id);
    if (!block)
      throw new ModelProviderError(
        "The model provider's answer could not be read.",
        undefined,
        `a stream part continued a text or reasoning part (${id}) that never started`,
      );
    block.text += text;
    if (providerMetadata !== undefined) block.providerMetadata = providerMetadata;
  }
}

/** The delta to announce for one part of the AI SDK's stream, after noting what it adds to the answer. */
function take(answer: Answer, part: LanguageModelV3StreamPart): ModelStreamPart | undefined {
  switch (part.type) {
    case 'text-start':
    case 'reasoning-start':
      answer.start(part.type === 'text-start' ? 'text' : 'reasoning', part.id, part.providerMetadata);
      return undefined;
    case 'text-delta':
    case 'reasoning-delta':
      answer.extend(part.id, part.delta, part.providerMetadata);
      if (part.delta === '') return undefined;
      return { type: part.type, delta: part.delta };
    case 'text-end':
    case 'reasoning-end':
      answer.extend(part.id, '', part.providerMetadata);
      answer.blocks.delete(part.id);
      return undefined;
    case 'tool-input-start':
      answer.toolInputs.set(part.id, { toolName: part.toolName, countersignRuns: part.providerExecuted !== true });
      return undefined;
    case 'tool-input-delta': {
      const input = answer.toolInputs.get(part.id);
      if (!input?.countersignRuns || part.delta === '') return undefined;
      return { type: 'tool-call-delta', toolCallId: part.id, toolName: input.toolName, argsDelta: part.delta };
    }
    case 'tool-input-end':
      answer.toolInputs.delete(part.id);
      return undefined;
    case 'finish':
      answer.finish = { usage: part.usage, finishReason: part.finishReason, providerMetadata: part.providerMetadata };
      return undefined;
    case 'error':
      throw streamError(part.error);
    case 'stream-start':
    case 'response-metadata':
    case 'raw':
      return undefined;
    default:
      // Whole pieces of content: tool calls, files, and what the provider ran or cited (left out as in doGenerate).
      answer.content.push(part);
      return undefined;
  }
}

/**
 * Reads `stream` to its end, yielding each delta and then `finish`; throws a `ModelProviderError` when the
 * provider reports an error or the stream ends without its `finish` part.
 */
export async function* fromStream(
  stream: ReadableStream<unknown>,
  dialect: SpecDialect,
): AsyncGenerator<ModelStreamPart> {
  const answer = new Answer();
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const delta = take(answer, value as LanguageModelV3StreamPart);
      if (delta) yield delta;
    }
  } finally {
    // Stops the provider's answer when the reader stopped early (an abort, a failure); a no-op once it ended.
    await reader.cancel().catch(() => undefined);
  }
  if (!answer.finish) throw new ModelProviderError("The model provider's answer ended before it was finished.");
  yield { type: 'finish', response: fromGenerateResult({ ...answer.finish, content: answer.content }, dialect) };
}
