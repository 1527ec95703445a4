// `canUseTool` for the Claude Agent SDK: each tool call the SDK asks about becomes a countersign request. The answer
// comes before `deadlineMs`: the decision when it came in time, else a refusal telling the model that a person was
// asked and to make the same call again later. That later attempt finds the same request and gets its decision at
// once; a decision reaches one attempt, so a later identical call is asked about again.
import type { CanUseTool, PermissionResult } from '@anthropic-ai/claude-agent-sdk';
import { ConfigError, InvalidEditError, RunExistsError, ValueTooDeepError } from '../errors.js';
import type { RequestOutcome, RequestState, Runtime } from '../index.js';
import { digestOf } from '../kit/index.js';
import { type CanUseToolOptions, readCanUseToolOptions } from './can-use-tool-options.js';
import { claimRequestKey, DEFAULT_CLAIM_TTL_MS, settleRequestKey } from './call-claim.js';
import { refusalWords, waitingWords } from './outcome-words.js';
import { type ToolRequest, toolRequest } from './tool-request.js';

/** Attempts one call makes at a request when others keep taking the outcomes it finds. */
const ATTEMPTS = 3;
/** What a call the request cannot carry throws: arguments the request refuses, a key taken by another ask. */
const REFUSALS = [ConfigError, RunExistsError, ValueTooDeepError];
/** Outcomes that end a request without a decision on the call: the next attempt asks again. */
const RAN_OUT = new Set<RequestState['status']>(['expired', 'cancelled', 'failed']);
/** When other attempts of the same call kept taking the outcomes this one found. */
const CONTENDED =
  'Other attempts of this same call took the decisions this attempt found, so it did not run. Make the call again if it is still needed.';

/**
 * A `canUseTool` callback for the Claude Agent SDK's `query()` that asks a person through `runtime` (its
 * `requests` policy, grants of `sessionId`, channels, console and audit) about every call the SDK asks about.
 *
 * @example
 * import { query } from '@anthropic-ai/claude-agent-sdk';
 * import { canUseTool } from 'countersign/claude-agent-sdk';
 *
 * for await (const message of query({ prompt: 'Tidy up /tmp', options: { canUseTool: canUseTool(runtime, { sessionId: 'tidy-1' }) } })) {
 *   if (message.type === 'result') console.log(message.subtype);
 * }
 */
export function canUseTool(runtime: Pick<Runtime, 'requestApproval' | 'once'>, options: CanUseToolOptions): CanUseTool {
  const settings = readCanUseToolOptions(options);
  const claimTtlMs = (settings.expiresInMs ?? DEFAULT_CLAIM_TTL_MS) + settings.deadlineMs;
  return async (toolName, input, context) => {
    if (toolName === 'AskUserQuestion' && settings.onQuestion !== undefined)
      return settings.onQuestion(toolName, input, context);
    const { signal, toolUseID } = context;
    const request = toolRequest(toolName, input);
    const deadline = Date.now() + settings.deadlineMs;
    let last: RequestOutcome | undefined;
    for (let attempt = 0; attempt < ATTEMPTS && !signal.aborted; attempt++) {
      let state: RequestState;
      let settle: () => Promise<boolean>;
      try {
        const callKey = `claude-agent-sdk:${settings.sessionId}:${digestOf({ tool: toolName, input })}`;
        const requestKey = await claimRequestKey(runtime.once, callKey, claimTtlMs);
        settle = () => settleRequestKey(runtime.once, callKey, requestKey, claimTtlMs);
        const { tool, args, description } = request;
        const handle = await runtime.requestApproval({ ...settings.ask, tool, args, description, key: requestKey });
        state = await handle.wait({ timeoutMs: Math.max(0, deadline - Date.now()), signal });
      } catch (error) {
        if (!REFUSALS.some((refusal) => error instanceof refusal)) throw error;
        return deny(`countersign refused to ask about this call: ${(error as Error).message}`, toolUseID);
      }
      if (state.status === 'pending') return deny(waitingWords(state.id), toolUseID);
      last = state;
      if (!(await settle())) continue;
      if (!RAN_OUT.has(state.status)) return answer(state, request, input, toolUseID);
    }
    if (last === undefined) return deny('The SDK withdrew this permission request; the call did not run.', toolUseID);
    return deny(RAN_OUT.has(last.status) ? refusalWords(last) : CONTENDED, toolUseID);
  };
}

function deny(message: string, toolUseID: string | undefined): PermissionResult {
  return { behavior: 'deny', message, ...(toolUseID === undefined ? {} : { toolUseID }) };
}

/** The SDK's answer for a decided request: allow with the input to run (the person's edit, if any), or the refusal. */
function answer(
  state: RequestOutcome,
  request: ToolRequest,
  input: Record<string, unknown>,
  toolUseID: string | undefined,
): PermissionResult {
  if (state.status !== 'approved') return deny(refusalWords(state), toolUseID);
  try {
    const updatedInput = request.inputFor(state.args ?? {}, state.id) ?? input;
    return { behavior: 'allow', updatedInput, ...(toolUseID === undefined ? {} : { toolUseID }) };
  } catch (error) {
    if (!(error instanceof InvalidEditError)) throw error;
    return deny(
      `A person approved this call with an edit that cannot be applied, so it did not run: ${error.message}`,
      toolUseID,
    );
  }
}
