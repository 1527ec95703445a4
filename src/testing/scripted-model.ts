import { z } from 'zod';
import { ConfigError } from '../errors.js';
import type {
  AssistantMessage,
  Message,
  Model,
  ModelRequest,
  ModelResponse,
  ModelStreamPart,
  ToolCall,
} from '../index.js';
import { optionsObject, parseOptions } from '../kit/index.js';

/** One scripted answer: a fixed message, or a function of the request. */
export type ScriptedTurn = AssistantMessage | ((request: ModelRequest) => AssistantMessage | Promise<AssistantMessage>);

export interface ScriptedModel extends Model {
  /** Every request the model received, in order. */
  readonly calls: readonly ModelRequest[];
}

/**
 * Options of `createScriptedModel`.
 *
 * @example
 * const options: ScriptedModelOptions = { stream: true };
 */
export interface ScriptedModelOptions {
  /**
   * Also answer through `stream`, which the loop then uses: each turn comes as deltas (the reasoning parts' text
   * and the content a word at a time, each call's JSON arguments a few characters at a time, its first piece
   * naming the tool), then `finish` with exactly what `generate` would have answered. Default false.
   */
  readonly stream?: boolean;
}

const optionsSchema = optionsObject({ stream: z.boolean().optional() });

/** A word with the spaces before it, or trailing spaces: the pieces join back to `text`. */
const words = (text: string): string[] => text.match(/\s*\S+|\s+/g) ?? [];
/** Eight characters at a time (code points, so no surrogate pair is cut). */
const chunks = (text: string): string[] => text.match(/.{1,8}/gsu) ?? [];

/** `message` as a stream would bring it: reasoning, then text, then each call's arguments, then the whole answer. */
function* streamed(response: ModelResponse): Generator<ModelStreamPart> {
  const { message } = response;
  for (const part of message.parts ?? []) {
    if (part.type === 'reasoning') for (const delta of words(part.text)) yield { type: 'reasoning-delta', delta };
  }
  for (const delta of words(message.content)) yield { type: 'text-delta', delta };
  for (const call of message.toolCalls ?? []) {
    const pieces = chunks(JSON.stringify(call.args) ?? '');
    yield { type: 'tool-call-delta', toolCallId: call.id, toolName: call.name, argsDelta: pieces[0] ?? '' };
    for (const argsDelta of pieces.slice(1)) yield { type: 'tool-call-delta', toolCallId: call.id, argsDelta };
  }
  yield { type: 'finish', response };
}

/**
 * A model that answers from a script, for tests and examples: a list of turns
 * taken in order (one per call; it throws when the script runs out), or one
 * function of the conversation that answers every call. With `{ stream: true }`
 * it also has `stream`, so the loop streams each turn as deltas (`model-delta`
 * events) before committing it.
 *
 * @example
 * const model = createScriptedModel([
 *   toolCallTurn('delete_file', { path: '/tmp/x' }),
 *   textTurn('Deleted /tmp/x.'),
 * ]);
 *
 * @example
 * const streaming = createScriptedModel([textTurn('Deleted /tmp/x.')], { stream: true });
 * const agent = createAgent({ name: 'files', model: streaming, tools: [], onEvent: (event) => {
 *   if (event.type === 'model-delta') process.stdout.write(event.delta); // 'Deleted', ' /tmp/x.'
 * } });
 */
export function createScriptedModel(
  script: readonly ScriptedTurn[] | ((request: ModelRequest) => AssistantMessage | Promise<AssistantMessage>),
  options: ScriptedModelOptions = {},
): ScriptedModel {
  parseOptions(optionsSchema, options, 'createScriptedModel');
  const calls: ModelRequest[] = [];
  let index = 0;
  const answer = async (request: ModelRequest): Promise<ModelResponse> => {
    calls.push(request);
    if (typeof script === 'function') return { message: await script(request) };
    const turn = script[index++];
    if (turn === undefined)
      throw new ConfigError(`The scripted model has only ${script.length} turns; call ${index} asked for one more.`);
    return { message: typeof turn === 'function' ? await turn(request) : turn };
  };
  if (!options.stream) return { calls, generate: answer };
  return {
    calls,
    generate: answer,
    async *stream(request) {
      yield* streamed(await answer(request));
    },
  };
}

let callCounter = 0;

/**
 * An assistant turn that calls tools.
 *
 * @example
 * toolCallTurn('delete_file', { path: '/tmp/x' });
 * toolCallTurn([{ name: 'a', args: {} }, { name: 'b', args: {}, id: 'call_b' }]);
 */
export function toolCallTurn(
  nameOrCalls: string | readonly (Omit<ToolCall, 'id'> & { id?: string })[],
  args?: unknown,
  content = '',
): AssistantMessage {
  const calls = typeof nameOrCalls === 'string' ? [{ name: nameOrCalls, args }] : nameOrCalls;
  return {
    role: 'assistant',
    content,
    toolCalls: calls.map((call) => ({
      id: (call as { id?: string }).id ?? `call_${++callCounter}`,
      name: call.name,
      args: call.args,
    })),
  };
}

/**
 * A final assistant answer.
 *
 * @example
 * textTurn('All done.');
 */
export function textTurn(content: string): AssistantMessage {
  return { role: 'assistant', content };
}

/** The tool results of the last turn of a conversation, parsed. */
export function lastToolResults(messages: readonly Message[]): unknown[] {
  const results: unknown[] = [];
  for (let index = messages.length - 1; index >= 0 && messages[index]!.role === 'tool'; index--) {
    const content = messages[index]!.content;
    try {
      results.unshift(JSON.parse(content));
    } catch {
      results.unshift(content);
    }
  }
  return results;
}
