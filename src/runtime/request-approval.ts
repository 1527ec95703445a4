// `runtime.requestApproval`: a request from a caller outside the agent loop, started as a run of the runtime's request
// agent (recorded first, idempotent by its key), carried here until a person is asked or the policy decided it.
import { createHash, randomUUID } from 'node:crypto';
import type { AgentSnapshot } from '../run/agent-snapshot.js';
import type { ExecuteInput } from '../loop/execute-input.js';
import { type ApprovalAsk, approvalAskSchema } from '../requests/approval-ask.js';
import { oneCallInput } from '../requests/one-call-model.js';
import { REQUEST_AGENT_NAME } from '../requests/request-agent.js';
import { type RequestHandle, type RequestRuns, requestHandle } from '../requests/request-handle.js';
import { parseArgument } from './parse-argument.js';
import type { StartOptions } from './runtime.js';

/** The id of the request asked with `key`: the same for every retry of it. */
export function requestIdForKey(key: string): string {
  return `req_${createHash('sha256').update(key, 'utf8').digest('base64url').slice(0, 32)}`;
}

type Start = (agentName: string, input: ExecuteInput, options?: StartOptions) => Promise<AgentSnapshot>;

/** `runtime.requestApproval`, starting runs with `start` and handing out handles on `runs`. */
export function requestApprovalOperation(start: Start, runs: RequestRuns) {
  return async (ask: ApprovalAsk): Promise<RequestHandle> => {
    parseArgument(approvalAskSchema, ask, 'requestApproval');
    const { tool, args, key, sessionId, requestedBy, origin, ...terms } = ask;
    const runId = key === undefined ? `req_${randomUUID()}` : requestIdForKey(key);
    await start(REQUEST_AGENT_NAME, {
      input: oneCallInput({ tool, arguments: args }, { ask: terms }),
      runId,
      ...(sessionId === undefined ? {} : { sessionId }),
      ...(requestedBy === undefined ? {} : { requestedBy }),
      ...(origin === undefined ? {} : { origin }),
    });
    return requestHandle(runs, runId);
  };
}
