import { canonicalJson, digestOf, hmac } from '../run/digest.js';
import { SIGNATURE_V2 } from './decision-signature.js';
import type { AnyTool } from '../tools/define-tool.js';
import { DEFAULT_MAX_STRING_LENGTH, presentArgs, type PresentOptions } from '../presentation/present-args.js';
import { presentText } from '../presentation/display-text.js';
import { type RunIdentity, signedIdentity } from '../run/run-identity.js';
import type { NudgePlan } from '../policy/nudge-plan.js';
import type { ApprovalRequest, DecisionKind, OnExpire, Quorum } from '../run/types.js';
import type { Question } from '../run/question.js';

/** A tool's title is a label: longer is cut visibly, as a long argument is. */
const TITLE_MAX_LENGTH = 200;

export interface RequestSettings {
  readonly now: number;
  readonly approvalTtlMs: number | undefined;
  readonly onExpire: OnExpire;
  readonly decisionSecret: string | undefined;
  readonly present: PresentOptions;
  /** The agent's `oneCallPerRun`. */
  readonly oneCallRun?: boolean;
}

/** The settings a request is built with, from the agent's, at `now`. */
export function requestSettingsOf(
  settings: {
    readonly approvalTtlMs: number | undefined;
    readonly onExpire: OnExpire;
    readonly decisionSecret: string | undefined;
    readonly display: PresentOptions;
    readonly oneCallPerRun: boolean;
  },
  now: number,
): RequestSettings {
  return {
    now,
    approvalTtlMs: settings.approvalTtlMs,
    onExpire: settings.onExpire,
    decisionSecret: settings.decisionSecret,
    present: settings.display,
    oneCallRun: settings.oneCallPerRun,
  };
}

/**
 * The HMAC that binds a request to its run (and session) and to everything the person relies on: the call, tool and
 * argument digest, the display copy (arguments, description, reason, warnings), who may decide (approvers, rule,
 * quorum), the decisions it offers (so storage cannot widen them; a request without `decisions` signs as before), when
 * it expires and how it is nudged while it waits (`remindAfterMs`, `escalate`). Any field changed in storage breaks it.
 * Two parts come after it was signed and are signed on their own, so this signature, which a response echoes, stays
 * the same while the request waits: the `history` of reminders and escalations (nudge.ts `signHistory`) and the
 * votes of a quorum request (authority/vote-count.ts `appendVote`). The `traceparent` is left out: it says where to
 * report, never what may run, and is stamped on after signing (loop/effects/evaluate-tools.ts).
 */
export function signRequest(
  secret: string,
  request: Omit<ApprovalRequest, 'signature'> & { readonly signature?: string },
  run: RunIdentity,
): string {
  const { signature: _signature, history: _history, votes: _votes, traceparent: _trace, ...fields } = request;
  return `${SIGNATURE_V2}${hmac(secret, ['countersign.request.v2', canonicalJson({ ...signedIdentity(run), request: fields })])}`;
}

/** The v1 request HMAC (before snapshot format 2): it bound the call and its arguments only. */
export function signLegacyRequest(
  secret: string,
  request: Pick<ApprovalRequest, 'approvalId' | 'toolCallId' | 'toolName' | 'argsDigest'>,
  runId: string,
): string {
  return hmac(secret, [
    'countersign.v1',
    runId,
    request.approvalId,
    request.toolCallId,
    request.toolName,
    request.argsDigest,
  ]);
}

/** What a request reads of its tool: a request added from outside the model's turn without the agent has only a name and a description. */
export type RequestTool = Pick<AnyTool, 'name' | 'description'> &
  Partial<Pick<AnyTool, 'approvalPrompt' | 'approvalTtlMs' | 'annotations' | 'connectorStatus' | 'connector'>>;

/** The tool's `approvalPrompt` for this input, or its description when there is none, it throws or it returns a non-string. */
function promptOf(tool: RequestTool, input: unknown): string {
  if (!tool.approvalPrompt) return tool.description;
  try {
    const prompt: unknown = tool.approvalPrompt(input);
    return typeof prompt === 'string' ? prompt : tool.description;
  } catch {
    // A prompt that throws must not hide the request; the description still says what the tool does.
    return tool.description;
  }
}

/** Builds what a person is asked: display copy, digest, warnings, expiry and signature. */
export function buildApprovalRequest(
  call: {
    run: RunIdentity;
    approvalId: string;
    toolCallId: string;
    tool: RequestTool;
    args: unknown;
    parsedInput: unknown;
    /** Said instead of the tool's `approvalPrompt` (a request added from outside the model's turn may say what it is for). */
    description?: string | undefined;
    /** When it expires, instead of the tool's or the agent's `approvalTtlMs` from now. */
    expiresAt?: number | undefined;
    onExpire?: OnExpire | undefined;
    reason?: string | undefined;
    approvers?: readonly string[] | undefined;
    approverFunction?: boolean | undefined;
    ruleId?: string | undefined;
    quorum?: Quorum | undefined;
    outcomeUnknown?: boolean;
    nudges?: NudgePlan | undefined;
    /** The decisions offered, when fewer than all (`decisions` on the tool and its rule). */
    decisions?: readonly DecisionKind[] | undefined;
    question?: Question | undefined;
    /** The stored rule in shadow mode that would have allowed the call. */
    shadowRuleId?: string | undefined;
  },
  settings: RequestSettings,
): ApprovalRequest {
  const { display, warnings } = presentArgs(call.args, settings.present);
  const ttl = call.tool.approvalTtlMs ?? settings.approvalTtlMs;
  const expiresAt = call.expiresAt ?? (ttl === undefined ? undefined : settings.now + ttl);
  const argsDigest = digestOf(call.args);
  const base = {
    approvalId: call.approvalId,
    toolCallId: call.toolCallId,
    toolName: call.tool.name,
    argsDigest,
  };
  // The description and reason may carry model-chosen text (a prompt built from the input, a thrown message): shown like arguments.
  const maxLength = settings.present.maxStringLength ?? DEFAULT_MAX_STRING_LENGTH;
  const description = presentText(
    call.description ?? promptOf(call.tool, call.parsedInput),
    'description',
    maxLength,
    warnings,
  );
  const reason = call.reason === undefined ? undefined : presentText(call.reason, 'reason', maxLength, warnings);
  // A tool's title is its author's text (an MCP upstream's, for a gateway): every surface shows it, so it is shown like arguments too.
  const annotations = call.tool.annotations;
  const title =
    annotations?.title === undefined
      ? undefined
      : presentText(annotations.title, 'annotations.title', TITLE_MAX_LENGTH, warnings);
  const connectorStatus = call.tool.connectorStatus?.();
  if (connectorStatus !== undefined && connectorStatus !== 'connected') {
    warnings.unshift({
      code: 'connector-disconnected',
      path: '',
      message: `Connector ${call.tool.connector ?? call.tool.name} is ${connectorStatus === 'failed' ? 'down (reconnecting gave up)' : connectorStatus}: an approved call waits for it to come back, and fails if it does not.`,
    });
  }
  const unsigned: ApprovalRequest = {
    ...base,
    args: display,
    description,
    requestedAt: settings.now,
    warnings,
    ...(reason === undefined ? {} : { reason }),
    ...(expiresAt === undefined ? {} : { expiresAt, onExpire: call.onExpire ?? settings.onExpire }),
    ...(call.tool.connector === undefined ? {} : { connector: call.tool.connector }),
    ...(annotations === undefined
      ? {}
      : { annotations: title === undefined ? annotations : { ...annotations, title } }),
    ...(call.ruleId === undefined ? {} : { ruleId: call.ruleId }),
    ...(call.approvers === undefined ? {} : { approvers: call.approvers }),
    ...(call.approverFunction === true ? { approverFunction: true as const } : {}),
    ...(settings.oneCallRun === true ? { oneCallRun: true as const } : {}),
    ...(call.decisions === undefined ? {} : { decisions: call.decisions }),
    ...(call.quorum === undefined ? {} : { quorum: call.quorum, votes: [] }),
    ...(call.outcomeUnknown ? { outcomeUnknown: true } : {}),
    ...(call.nudges?.remindAfterMs === undefined ? {} : { remindAfterMs: call.nudges.remindAfterMs }),
    ...(call.nudges?.escalate === undefined ? {} : { escalate: call.nudges.escalate }),
    ...(call.question === undefined ? {} : { question: call.question }),
    ...(call.shadowRuleId === undefined ? {} : { shadowRuleId: call.shadowRuleId }),
  };
  return settings.decisionSecret === undefined
    ? unsigned
    : { ...unsigned, signature: signRequest(settings.decisionSecret, unsigned, call.run) };
}
