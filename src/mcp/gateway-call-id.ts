/** The id of the one tool call of a gateway run (a run of the gateway's one-call agent). */
export const GATEWAY_CALL_ID = 'mcp_call';
