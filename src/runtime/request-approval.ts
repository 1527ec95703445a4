// `runtime.requestApproval`: a request from a caller outside the agent loop, started as a run of the runtime's request
// agent (recorded first, idempotent by its key), carried here until a person is asked or the policy decided it.
import { createHash, randomUUID } from 'node:crypto';
import type { AgentSnapshot } from '../run/agent-snapshot.js';
import { canonicalJson } from '../run/digest.js';
import type { ExecuteInput } from '../loop/execute-input.js';
import type { z } from 'zod';
import { type ApprovalAsk, approvalAskSchema, type InputAsk, inputAskSchema } from '../requests/approval-ask.js';
import type { Question } from '../run/question.js';
import { questionOfSchema } from '../run/question-of-schema.js';
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

/** What a request's run starts from: its call, the caller's terms, and who asks. */
function requestRunInput(
  runId: string,
  call: { readonly tool: string; readonly args: { readonly [key: string]: unknown } },
  {
    sessionId,
    requestedBy,
    origin,
    traceparent,
    ...terms
  }: Omit<ApprovalAsk, 'tool' | 'args' | 'key'> & { readonly question?: Question },
): ExecuteInput {
  return {
    // Keys in one order, so a retry that lists them in another is the same ask.
    input: oneCallInput({ tool: call.tool, arguments: JSON.parse(canonicalJson(call.args)) }, { ask: terms }),
    runId,
    ...(sessionId === undefined ? {} : { sessionId }),
    ...(requestedBy === undefined ? {} : { requestedBy }),
    ...(origin === undefined ? {} : { origin }),
    ...(traceparent === undefined ? {} : { traceparent }),
  };
}

const requestIdOf = (key: string | undefined) => (key === undefined ? `req_${randomUUID()}` : requestIdForKey(key));

/** `runtime.requestApproval` and `runtime.requestInput`, starting runs with `start` and handing out handles on `runs`. */
export function requestOperations(start: Start, runs: RequestRuns) {
  return {
    async requestApproval(ask: ApprovalAsk): Promise<RequestHandle> {
      parseArgument(approvalAskSchema, ask, 'requestApproval');
      const { tool, args, key, ...terms } = ask;
      const runId = requestIdOf(key);
      await start(REQUEST_AGENT_NAME, requestRunInput(runId, { tool, args }, terms));
      return requestHandle(runs, runId);
    },
    async requestInput<A extends z.ZodObject>(ask: InputAsk<A>): Promise<RequestHandle<z.output<A>>> {
      parseArgument(inputAskSchema, ask, 'requestInput');
      const { question: text, answer, tool = 'question', args = {}, key, ...terms } = ask;
      const question = questionOfSchema(answer, 'requestInput');
      const runId = requestIdOf(key);
      await start(
        REQUEST_AGENT_NAME,
        requestRunInput(runId, { tool, args: { ...args, question: text } }, { ...terms, description: text, question }),
      );
      // Checked again where it comes back, against the caller's own schema: the answer is typed as it says.
      return requestHandle(runs, runId, (value) => answer.parse(value));
    },
  };
}
