import type { Model } from '../index.js';

/** The id of the one tool call of a gateway run. */
export const GATEWAY_CALL_ID = 'mcp_call';

/** A tools/call as a gateway run's input. */
export interface GatewayCall {
  readonly tool: string;
  readonly arguments: Record<string, unknown>;
}

/** The run input for `call`. */
export function gatewayInput(call: GatewayCall): string {
  return JSON.stringify(call);
}

/** The deterministic model of a gateway agent. */
export const gatewayModel: Model = {
  async generate({ messages }) {
    if (messages.at(-1)?.role === 'tool') return { message: { role: 'assistant', content: '' }, finishReason: 'stop' };
    const input = messages.find((message) => message.role === 'user');
    const call = JSON.parse(input?.content ?? '{}') as GatewayCall;
    return {
      message: {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: GATEWAY_CALL_ID, name: call.tool, args: call.arguments }],
      },
      finishReason: 'tool-calls',
    };
  },
};
