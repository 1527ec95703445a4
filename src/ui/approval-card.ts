import {
  voteProgress,
  type AgentSnapshot,
  type ApprovalRequest,
  type ArgsWarning,
  type AuditEntry,
  type Question,
} from '../index.js';
import { decisionChoices, decisionOutcome } from '../kit/index.js';

/**
 * What a chat's approval card shows of a waiting request, beside the protocol's own approval part (the AI SDK's
 * `data-countersign-approval` part, AG-UI's interrupt `metadata.card`); sent again, under the same id, when a vote
 * changes it.
 *
 * @example
 * const card = part.data as ChatApprovalCard; // a useChat part of type 'data-countersign-approval'
 * if (card.expiresAt !== undefined) startCountdown(card.expiresAt);
 */
export interface ChatApprovalCard {
  readonly approvalId: string;
  readonly runId: string;
  readonly toolCallId: string;
  readonly toolName: string;
  readonly description: string;
  /** Why a person is asked (the rule's or the tool's reason). */
  readonly reason?: string;
  /** The arguments as the person sees them: secrets redacted, invisible characters escaped. */
  readonly args: unknown;
  readonly warnings: readonly ArgsWarning[];
  readonly requestedAt: number;
  readonly expiresAt?: number;
  /** The echo a chat answer must carry (the request's signature), when the agent signs its requests. */
  readonly signature?: string;
  /** What the person may do here: approve once, the wider approval ("for this session"), deny. */
  readonly offered: {
    readonly approve: boolean;
    readonly deny: boolean;
    readonly wider?: { readonly scope: 'run' | 'session'; readonly label: string };
  };
  /** On a request several people must approve: approvals so far, how many are needed, how many more. */
  readonly quorum?: { readonly approvals: number; readonly required: number; readonly remaining: number };
  /** On a question: the form of the answer. */
  readonly question?: Question;
}

/**
 * How a request was settled, in the chat (the AI SDK's `data-countersign-decision` part, AG-UI's tool result), on
 * whichever surface it was decided: here, the console, Slack, a link, the CLI, or by expiry.
 *
 * @example
 * const decision = part.data as ChatDecision; // a useChat part of type 'data-countersign-decision'
 * if (decision.outcome === 'denied') show(`Denied by ${decision.by}: ${decision.reason}`);
 */
export interface ChatDecision {
  readonly approvalId: string;
  readonly toolCallId: string;
  readonly outcome: 'approved' | 'denied' | 'expired' | 'dismissed';
  readonly by?: string;
  readonly reason?: string;
  readonly at: number;
}

/** How `entry` settled its request, for a chat. */
export function chatDecision(entry: AuditEntry & { readonly approvalId: string }): ChatDecision {
  return {
    approvalId: entry.approvalId,
    toolCallId: entry.toolCallId,
    outcome: decisionOutcome(entry),
    ...(entry.by === undefined ? {} : { by: entry.by }),
    ...(entry.reason === undefined ? {} : { reason: entry.reason }),
    at: entry.at,
  };
}

/** The card of `request`, waiting in `run`. */
export function approvalCard(run: AgentSnapshot, request: ApprovalRequest): ChatApprovalCard {
  const choices = decisionChoices(request, run.sessionId);
  const progress = voteProgress(run, request.approvalId);
  return {
    approvalId: request.approvalId,
    runId: run.runId,
    toolCallId: request.toolCallId,
    toolName: request.toolName,
    description: request.description,
    ...(request.reason === undefined ? {} : { reason: request.reason }),
    args: request.args,
    warnings: request.warnings,
    requestedAt: request.requestedAt,
    ...(request.expiresAt === undefined ? {} : { expiresAt: request.expiresAt }),
    ...(request.signature === undefined ? {} : { signature: request.signature }),
    offered: {
      approve: choices.approve,
      deny: choices.deny,
      ...(choices.wider === undefined ? {} : { wider: choices.wider }),
    },
    ...(progress === undefined
      ? {}
      : { quorum: { approvals: progress.approvals, required: progress.required, remaining: progress.remaining } }),
    ...(request.question === undefined ? {} : { question: request.question }),
  };
}
