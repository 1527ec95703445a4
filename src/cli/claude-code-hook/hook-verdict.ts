// What the hook answers Claude Code for one tool call: the call asked about as a countersign request (its rules,
// grants and people decide), waited for up to --wait-ms, and the outcome as allow (with the person's edit as the
// tool's input), deny (phrased for the model), or ask (Claude Code's own prompt) once the wait ran out, the request
// then withdrawn so nobody approves a call that is no longer waiting.
import { ApprovalAppError, ConfigError, InvalidEditError, RunExistsError } from '../../errors.js';
import type { ApprovalAsk, RequestState, WaitOptions } from '../../index.js';
import { approvalWords, refusalWords } from '../../claude-code/outcome-words.js';
import { type ToolRequest, toolRequest } from '../../claude-code/tool-request.js';
import type { HookInput } from './hook-input.js';

/** The hook's answer: Claude Code's permission decision, its reason, and the tool's input when a person edited it. */
export type Verdict =
  | { readonly decision: 'allow'; readonly reason: string; readonly updatedInput?: Record<string, unknown> }
  | { readonly decision: 'deny' | 'ask'; readonly reason: string };

export interface VerdictSettings {
  /** How long the hook waits for a decision, the request's start included. */
  readonly waitMs: number;
  /** Stops the wait early (the CLI ties it to SIGTERM, SIGINT and SIGHUP). */
  readonly signal?: AbortSignal;
}

/** What the hook asks of where the requests live: a runtime, or an approval app over HTTP. */
export interface HookRequests {
  requestApproval(ask: ApprovalAsk): Promise<{
    readonly id: string;
    wait(options: WaitOptions): Promise<RequestState>;
    cancel(reason?: string): Promise<RequestState>;
  }>;
}

/** A request outlives the hook's wait by this much, so a hook that was killed leaves none waiting for long. */
const EXPIRY_GRACE_MS = 10_000;

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;
/** Why Claude Code asks its own question: the wait ran out in countersign. */
const timedOut = (waitMs: number) =>
  `Nobody decided in countersign within ${seconds(waitMs)}; the request there was withdrawn, so decide here.`;
/** Why Claude Code asks its own question: countersign did not take the request in time. */
const unanswered = (waitMs: number) =>
  `countersign did not take the request within ${seconds(waitMs)} (is its store reachable?), so decide here.`;

/** What the person reads of where the call comes from. */
function reasonOf(input: HookInput): string {
  const mode = input.permission_mode === undefined ? '' : `, ${input.permission_mode} permission mode`;
  return `Claude Code${input.cwd === undefined ? '' : ` in ${input.cwd.slice(0, 1000)}`} (session ${input.session_id.slice(0, 128)}${mode})`;
}

/** `work`, or undefined when `ms` pass or `signal` aborts first. */
function within<T>(work: Promise<T>, ms: number, signal?: AbortSignal): Promise<T | undefined> {
  return new Promise<T | undefined>((resolve, reject) => {
    const stop = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', stop);
      resolve(undefined);
    };
    const timer = setTimeout(stop, Math.max(0, ms));
    signal?.addEventListener('abort', stop, { once: true });
    work.then(resolve, reject).finally(stop);
  });
}

/**
 * The answer for the call in `input`: asked of `runtime` as a request keyed by the session and the tool call (so a
 * repeat of the same hook call finds the same request), in the session Claude Code names (whose grants cover it).
 */
export async function hookVerdict(
  runtime: HookRequests,
  input: HookInput,
  { waitMs, signal }: VerdictSettings,
): Promise<Verdict> {
  const request = toolRequest(input.tool_name, input.tool_input);
  const deadline = Date.now() + waitMs;
  let handle: Awaited<ReturnType<HookRequests['requestApproval']>> | undefined;
  try {
    handle = await within(
      runtime.requestApproval({
        tool: request.tool,
        args: request.args,
        description: request.description,
        reason: reasonOf(input),
        sessionId: input.session_id,
        expiresInMs: waitMs + EXPIRY_GRACE_MS,
        ...(input.tool_use_id === undefined ? {} : { key: `claude-code:${input.session_id}:${input.tool_use_id}` }),
      }),
      waitMs,
      signal,
    );
  } catch (error) {
    if (!isRefusal(error)) throw error;
    return { decision: 'deny', reason: `countersign refused to ask about this call: ${(error as Error).message}` };
  }
  if (handle === undefined) return { decision: 'ask', reason: unanswered(waitMs) };
  let state = await handle.wait({
    timeoutMs: Math.max(0, deadline - Date.now()),
    ...(signal === undefined ? {} : { signal }),
  });
  if (state.status !== 'pending') return verdictOf(state, request);
  state = await handle.cancel(`Claude Code's hook stopped waiting after ${waitMs} ms`);
  // Decided while the wait ended: that decision stands.
  return state.status === 'pending' || state.status === 'cancelled'
    ? { decision: 'ask', reason: timedOut(waitMs) }
    : verdictOf(state, request);
}

/** Whether `error` refuses the ask itself (its arguments, its key), here or in the approval app (a 4xx but 401). */
function isRefusal(error: unknown): boolean {
  if (error instanceof ApprovalAppError) return error.status >= 400 && error.status < 500 && error.status !== 401;
  return error instanceof ConfigError || error instanceof RunExistsError;
}

/** The answer for a request that is no longer pending. */
function verdictOf(state: Exclude<RequestState, { status: 'pending' }>, request: ToolRequest): Verdict {
  if (state.status !== 'approved') return { decision: 'deny', reason: refusalWords(state) };
  try {
    const updatedInput = request.inputFor(state.args ?? {}, state.id);
    return { decision: 'allow', reason: approvalWords(state), ...(updatedInput === undefined ? {} : { updatedInput }) };
  } catch (error) {
    if (!(error instanceof InvalidEditError)) throw error;
    return { decision: 'ask', reason: `${approvalWords(state)}, but ${error.message}` };
  }
}
