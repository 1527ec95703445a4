import { oneCallInput, oneCallModel } from '../kit/index.js';

/** The id of the one tool call of a gateway run. */
export const GATEWAY_CALL_ID = 'mcp_call';

/** A tools/call as a gateway run's input. */
export interface GatewayCall {
  readonly tool: string;
  readonly arguments: Record<string, unknown>;
}

/** The run input for `call`. */
export function gatewayInput(call: GatewayCall): string {
  return oneCallInput(call);
}

/** The deterministic model of a gateway agent: the one-call model a request from outside the loop uses too. */
export const gatewayModel = oneCallModel(GATEWAY_CALL_ID);
