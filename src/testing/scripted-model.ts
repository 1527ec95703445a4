import { ConfigError } from '../errors.js';
import type { AssistantMessage, Message, Model, ModelRequest, ToolCall } from '../machine/types.js';

/** One scripted answer: a fixed message, or a function of the request. */
export type ScriptedTurn = AssistantMessage | ((request: ModelRequest) => AssistantMessage | Promise<AssistantMessage>);

export interface ScriptedModel extends Model {
  /** Every request the model received, in order. */
  readonly calls: readonly ModelRequest[];
}

/**
 * A model that answers from a script, for tests and examples: a list of turns
 * taken in order (one per call; it throws when the script runs out), or one
 * function of the conversation that answers every call.
 *
 * @example
 * const model = createScriptedModel([
 *   toolCallTurn('delete_file', { path: '/tmp/x' }),
 *   textTurn('Deleted /tmp/x.'),
 * ]);
 */
export function createScriptedModel(script: readonly ScriptedTurn[] | ((request: ModelRequest) => AssistantMessage | Promise<AssistantMessage>)): ScriptedModel {
  const calls: ModelRequest[] = [];
  let index = 0;
  return {
    calls,
    async generate(request) {
      calls.push(request);
      if (typeof script === 'function') return { message: await script(request) };
      const turn = script[index++];
      if (turn === undefined) throw new ConfigError(`The scripted model has only ${script.length} turns; call ${index} asked for one more.`);
      return { message: typeof turn === 'function' ? await turn(request) : turn };
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
export function toolCallTurn(nameOrCalls: string | readonly (Omit<ToolCall, 'id'> & { id?: string })[], args?: unknown, content = ''): AssistantMessage {
  const calls = typeof nameOrCalls === 'string' ? [{ name: nameOrCalls, args }] : nameOrCalls;
  return {
    role: 'assistant',
    content,
    toolCalls: calls.map((call) => ({ id: (call as { id?: string }).id ?? `call_${++callCounter}`, name: call.name, args: call.args })),
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
