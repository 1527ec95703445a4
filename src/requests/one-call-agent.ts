// The agent of runs that make exactly one call, known before the run starts: a request from a caller outside the
// agent loop (the runtime's request agent) and an MCP gateway's tools/call are both runs of one.
import { createAgent } from '../agent/create-agent.js';
import type { Agent, AgentConfig } from '../agent/agent-types.js';
import { oneCallModel } from './one-call-model.js';

/** An agent whose every run makes the one call its input carries (`oneCallInput`), with id `callId`, then ends. */
export function oneCallAgent(
  config: Omit<AgentConfig, 'model' | 'maxTurns' | 'oneCallPerRun'> & { callId: string },
): Agent {
  const { callId, ...rest } = config;
  return createAgent({ ...rest, model: oneCallModel(callId), maxTurns: 2, oneCallPerRun: true });
}
