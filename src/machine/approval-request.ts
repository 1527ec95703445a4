import { canonicalJson, digestOf, hmac } from './digest.js';
import { SIGNATURE_V2 } from './decision-signature.js';
import type { Tool } from './define-tool.js';
import { presentArgs, type PresentOptions } from './present-args.js';
import type { ApprovalRequest, OnExpire } from './types.js';

export interface RequestSettings {
  readonly now: number;
  readonly approvalTtlMs: number | undefined;
  readonly onExpire: OnExpire;
  readonly decisionSecret: string | undefined;
  readonly present: PresentOptions;
}

/**
 * The HMAC that binds a request to its run and to everything the person
 * relies on: the call, tool and argument digest, the display copy
 * (arguments, description, reason, warnings), who may decide (approvers,
 * rule), and when it expires. Any field changed in storage breaks it.
 */
export function signRequest(secret: string, request: Omit<ApprovalRequest, 'signature'> & { readonly signature?: string }, runId: string): string {
  const { signature: _signature, ...fields } = request;
  return `${SIGNATURE_V2}${hmac(secret, ['countersign.request.v2', canonicalJson({ runId, request: fields })])}`;
}

/** The v1 request HMAC (before snapshot format 2): it bound the call and its arguments only. */
export function signLegacyRequest(secret: string, request: Pick<ApprovalRequest, 'approvalId' | 'toolCallId' | 'toolName' | 'argsDigest'>, runId: string): string {
  return hmac(secret, ['countersign.v1', runId, request.approvalId, request.toolCallId, request.toolName, request.argsDigest]);
}

/** Builds what a person is asked: display copy, digest, warnings, expiry and signature. */
export function buildApprovalRequest(
  call: {
    runId: string;
    approvalId: string;
    toolCallId: string;
    tool: Tool<any>;
    args: unknown;
    parsedInput: unknown;
    reason?: string | undefined;
    approvers?: readonly string[] | undefined;
    ruleId?: string | undefined;
    outcomeUnknown?: boolean;
  },
  settings: RequestSettings,
): ApprovalRequest {
  const { display, warnings } = presentArgs(call.args, settings.present);
  const ttl = call.tool.approvalTtlMs ?? settings.approvalTtlMs;
  const argsDigest = digestOf(call.args);
  const base = {
    approvalId: call.approvalId,
    toolCallId: call.toolCallId,
    toolName: call.tool.name,
    argsDigest,
  };
  let description = call.tool.description;
  if (call.tool.approvalPrompt) {
    try {
      description = call.tool.approvalPrompt(call.parsedInput);
    } catch {
      // A prompt that throws must not hide the request; the description still says what the tool does.
    }
  }
  const unsigned: ApprovalRequest = {
    ...base,
    args: display,
    description,
    requestedAt: settings.now,
    warnings,
    ...(call.reason === undefined ? {} : { reason: call.reason }),
    ...(ttl === undefined ? {} : { expiresAt: settings.now + ttl, onExpire: settings.onExpire }),
    ...(call.tool.connector === undefined ? {} : { connector: call.tool.connector }),
    ...(call.ruleId === undefined ? {} : { ruleId: call.ruleId }),
    ...(call.approvers === undefined ? {} : { approvers: call.approvers }),
    ...(call.outcomeUnknown ? { outcomeUnknown: true } : {}),
  };
  return settings.decisionSecret === undefined ? unsigned : { ...unsigned, signature: signRequest(settings.decisionSecret, unsigned, call.runId) };
}
