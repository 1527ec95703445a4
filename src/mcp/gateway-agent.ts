// The agent of a gateway's runs as a process without the upstream needs it: to decide them (a runtime on the
// gateway's store knows a run's agent by name), never to run them. The gateway carries the decision out.
import { z } from 'zod';
import type { Agent } from '../index.js';
import { oneCallAgent, optionsObject, parseOptions } from '../kit/index.js';
import { GATEWAY_CALL_ID } from './gateway-call-id.js';

/** The name of the agent of the gateway in front of the upstream named `name`. */
export const gatewayAgentName = (name: string) => `mcp-gateway.${name}`;

/** True for the name of a gateway's agent (`gatewayAgentName`). */
export const isGatewayAgentName = (agentName: string) => agentName.startsWith(gatewayAgentName(''));

const schema = optionsObject({
  name: z.string().min(1, 'is empty; pass the name the gateway was given (--name)'),
  decisionSecret: z.string().min(16, 'use at least 16 characters of randomness').optional(),
});

/**
 * The agent of the runs of the gateway named `name`, without its tools: for
 * a runtime in another process on the gateway's store (an approval app, a
 * CLI runtime module) that decides the gateway's calls. Decide with mode
 * `'record'`: the gateway, which follows its runs, then forwards the call;
 * this agent cannot run it. Pass the gateway's `decisionSecret` if it has one.
 * Throws `ConfigError` for bad options.
 *
 * @example
 * import { createRuntime } from 'countersign';
 * import { createRedisStore } from 'countersign/redis';
 *
 * const runtime = createRuntime({ agents: [mcpGatewayAgent({ name: 'files' })], store: createRedisStore({ redis }) });
 * await runtime.respond(runId, { approvalId, approved: true, approvedBy: 'alice' }, { mode: 'record' });
 */
export function mcpGatewayAgent(options: { readonly name: string; readonly decisionSecret?: string }): Agent {
  const { name, decisionSecret } = parseOptions(schema, options, 'mcpGatewayAgent', {
    hint: "Pass { name } as the gateway's --name.",
  });
  return oneCallAgent({
    name: gatewayAgentName(name),
    callId: GATEWAY_CALL_ID,
    tools: [],
    ...(decisionSecret === undefined ? {} : { decisionSecret }),
  });
}
