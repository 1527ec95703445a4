// The agent of the requests callers outside the agent loop make (`runtime.requestApproval`): every request is a run of
// it that makes one call, the one asked about. Its tools are made on demand, one per name asked about, so rules, grants
// and quorum match them by name as they match an agent's tools; an approved call "runs" by handing the approved
// arguments back to the caller, who does the work.
import { z } from 'zod';
import type { Agent, AgentConfig } from '../agent/agent-types.js';
import { ConfigError } from '../errors.js';
import type { CallAsk } from '../policy/call-ask.js';
import { type AnyTool, defineTool, type ToolDefinition } from '../tools/define-tool.js';
import { oneCallAgent } from './one-call-agent.js';
import { oneCallOf } from './one-call-model.js';

/** The name of the runtime's request agent: reserved, no agent of yours may take it. */
export const REQUEST_AGENT_NAME = 'countersign.requests';

/** The id of the one call of a request's run. */
export const REQUEST_CALL_ID = 'request';

/**
 * What the runtime's request policy says of one action a caller may ask about (`RequestOptions.tools`), as a tool
 * definition says it of the tool.
 *
 * @example
 * const deploy: RequestToolSettings = { description: 'Deploy a service to production', approvers: ['sre-lead'], approvals: { required: 2 } };
 */
export type RequestToolSettings = Partial<
  Pick<
    ToolDefinition<unknown>,
    | 'description'
    | 'approvers'
    | 'approvals'
    | 'approvalTtlMs'
    | 'remindAfterMs'
    | 'escalate'
    | 'annotations'
    | 'connector'
    | 'readOnly'
  >
>;

/**
 * The policy and settings of the requests callers outside the agent loop make (`createRuntime({ requests })`).
 * Without it every request asks a person, anyone may decide it, and it waits until decided.
 *
 * @example
 * const requests: RequestOptions = {
 *   policy: { rules: [{ tool: 'read_*', action: 'allow' }, { tool: 'drop_*', action: 'deny', reason: 'never' }] },
 *   tools: { deploy: { approvers: ['sre-lead', 'cto'], approvalTtlMs: 3_600_000 } },
 *   decisionSecret: process.env.DECISION_SECRET!,
 * };
 */
export interface RequestOptions
  extends Pick<
    AgentConfig,
    | 'policy'
    | 'ruleStore'
    | 'grantStore'
    | 'decisionSecret'
    | 'approvalTtlMs'
    | 'onExpire'
    | 'remindAfterMs'
    | 'display'
    | 'leaseMs'
  > {
  /** Per action asked about (by its `tool` name): what the person reads, who decides, how many, how long. */
  readonly tools?: { readonly [tool: string]: RequestToolSettings };
}

/** A request's call "runs" by handing back the arguments it was approved with (edited, if the person edited them). */
const handBack = (args: Record<string, unknown>) => ({ approved: true, args });

/** How many tools made on demand are kept for reuse. */
const MADE_TOOLS_KEPT = 1000;

/** The tools of requests, made on demand by name, each with its settings from `tools`. */
function requestTools(settings: RequestOptions['tools'] = {}) {
  const made = new Map<string, AnyTool>();
  const make = (name: string): AnyTool =>
    defineTool({
      description: `Approve ${name}?`,
      ...settings[name],
      name,
      input: z.record(z.string(), z.unknown()),
      idempotent: true,
      execute: handBack,
    });
  const configured = new Map(Object.keys(settings).map((name) => [name, make(name)] as const));
  return {
    tools: [] as readonly AnyTool[],
    toolNamed(name: string): AnyTool | undefined {
      const found = configured.get(name) ?? made.get(name);
      if (found !== undefined || !/^[A-Za-z0-9_.-]{1,128}$/.test(name)) return found;
      const tool = make(name);
      // Any name may be asked about: a bounded number of the unconfigured ones is kept for reuse.
      if (made.size >= MADE_TOOLS_KEPT) made.delete(made.keys().next().value!);
      made.set(name, tool);
      return tool;
    },
  };
}

/** The ask a request's run carries in its input. */
function askOf(snapshot: { readonly messages: readonly { readonly role: string; readonly content: string }[] }) {
  return (oneCallOf(snapshot.messages) as { readonly ask?: CallAsk }).ask;
}

/** The runtime's request agent, with `options` and the runtime's clock. */
export function requestAgent(options: RequestOptions = {}, clock?: () => number): Agent {
  const { tools, ...config } = options;
  if (typeof tools !== 'undefined' && (typeof tools !== 'object' || tools === null))
    throw new ConfigError(
      'createRuntime: requests.tools must be an object of settings by tool name, e.g. { deploy: { approvers: ["alice"] } }.',
    );
  try {
    return oneCallAgent({
      ...config,
      name: REQUEST_AGENT_NAME,
      callId: REQUEST_CALL_ID,
      tools: [requestTools(tools)],
      callAsk: askOf,
      ...(clock === undefined ? {} : { clock }),
    });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new ConfigError(`createRuntime: requests: ${error.message}`, error.code);
  }
}
