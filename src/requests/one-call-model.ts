// The model of a run that makes exactly one call, known before the run starts: an MCP gateway's tools/call, a request
// from a caller outside the agent loop. The call travels as the run's input; the model asks for it, then ends.
import type { Model } from '../run/types.js';

/** The one call of such a run, as its input carries it. */
export interface OneCall {
  readonly tool: string;
  readonly arguments: Record<string, unknown>;
}

/** The run input for `call`, with whatever else the run's agent reads from it (`more`). */
export function oneCallInput(call: OneCall, more: object = {}): string {
  return JSON.stringify({ ...more, tool: call.tool, arguments: call.arguments });
}

/** The call a run's input carries (the first user message), as `oneCallInput` wrote it. */
export function oneCallOf(messages: readonly { readonly role: string; readonly content: string }[]): OneCall {
  const input = messages.find((message) => message.role === 'user');
  return JSON.parse(input?.content ?? '{}') as OneCall;
}

/** The deterministic model of a one-call run: the call (with id `callId`) in its first turn, then an empty answer. */
export function oneCallModel(callId: string): Model {
  return {
    async generate({ messages }) {
      if (messages.at(-1)?.role === 'tool')
        return { message: { role: 'assistant', content: '' }, finishReason: 'stop' };
      const call = oneCallOf(messages);
      return {
        message: { role: 'assistant', content: '', toolCalls: [{ id: callId, name: call.tool, args: call.arguments }] },
        finishReason: 'tool-calls',
      };
    },
  };
}
