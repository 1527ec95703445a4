import { oneCallInput } from '../kit/index.js';

/** The id of the one tool call of a gateway run. */
export const GATEWAY_CALL_ID = 'mcp_call';

/** A tools/call as a gateway run's input. */
export interface GatewayCall {
  readonly tool: string;
  readonly arguments: Record<string, unknown>;
}

/** The run input for `call`: the one call of a run of the gateway's one-call agent. */
export function gatewayInput(call: GatewayCall): string {
  return oneCallInput(call);
}
