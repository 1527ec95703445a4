// What a webhook says about a run event: the JSON body of each type, chosen field by field, and the webhook-id
// that names the fact (so every retry and every process sends the same id for it). A little over 300 lines on purpose:
// each type's field list stands beside the others, so a field added to one is seen missing from its neighbours.
import { createHash } from 'node:crypto';
import type {
  DelegateStep,
  RunEvent,
  VoteTally,
  ApprovalRequest,
  AuditEntry,
  EscalationTarget,
  InterruptedCall,
  RunError,
  Vote,
} from '../../index.js';

/** Every event type, in the order the docs list them. */
export const WEBHOOK_EVENT_TYPES = [
  'approval.requested',
  'approval.reminder',
  'approval.escalated',
  'approval.voted',
  'approval.resolved',
  'tool.finished',
  'run.completed',
  'run.failed',
  'run.cancelled',
] as const;

/**
 * The event types a webhook notifier can send.
 *
 * @example
 * createWebhookNotifier({ url, secret, events: ['approval.requested', 'approval.resolved', 'run.failed'] satisfies WebhookEventType[] });
 */
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/**
 * Where an event happened: on every event's `data`.
 *
 * @example
 * const { runId, agentName }: WebhookRunRef = event.data;
 */
export interface WebhookRunRef {
  readonly runId: string;
  readonly agentName: string;
}

/**
 * The session of the run asking (`ExecuteInput.sessionId`), on `approval.requested` when the run has one, so a
 * receiver can group a conversation's requests.
 *
 * @example
 * if (event.type === 'approval.requested' && event.data.sessionId !== undefined) threads.get(event.data.sessionId)?.post(event.data.description);
 */
export interface WebhookSession {
  readonly sessionId?: string;
}

/**
 * What a nudge adds to the request it is about: `approval.reminder`'s `reminder` (from 1), `approval.escalated`'s
 * `step` (from 0) and `to`, the approver ids now allowed to decide or the `{ channel }` told.
 *
 * @example
 * if (event.type === 'approval.escalated' && Array.isArray(event.data.to)) for (const id of event.data.to) await pager.page(id, event.data.description);
 */
export type WebhookNudge = { readonly reminder: number } | { readonly step: number; readonly to: EscalationTarget };

/**
 * How a call a person approved ended: `tool.finished`'s data besides the run.
 *
 * @example
 * if (event.type === 'tool.finished') await chat.reply(event.data.approvalId, `${event.data.toolName} ${event.data.status}: ${event.data.result}`);
 */
export interface WebhookToolFinished {
  readonly approvalId: string;
  readonly toolCallId: string;
  readonly toolName: string;
  readonly status: 'succeeded' | 'failed';
  /** The start of what the model reads as the result (at most 1,000 characters). */
  readonly result: string;
  /** On a sub-agent's call: the delegations down to it (`agentName` is then the sub-agent's). */
  readonly path?: readonly DelegateStep[];
}

/**
 * The JSON body of one delivery. `timestamp` is when the notifier was told
 * (ISO 8601); times inside `data` are epoch milliseconds, as in the SDK's
 * own types, so a receiver can reuse `ApprovalRequest` and `AuditEntry`.
 * `approval.requested` carries the display copy of the arguments (secrets
 * redacted) and the request's `signature` to echo back with the decision.
 *
 * @example
 * // In the receiver, after verifying the signature:
 * const event = JSON.parse(body) as WebhookEvent;
 * if (event.type === 'approval.requested') await slack.ask(event.data.runId, event.data.approvalId, event.data.args);
 */
export type WebhookEvent =
  | {
      readonly type: 'approval.requested';
      readonly timestamp: string;
      readonly data: WebhookRunRef & WebhookSession & ApprovalRequest;
    }
  | {
      readonly type: 'approval.reminder';
      readonly timestamp: string;
      readonly data: WebhookRunRef & WebhookSession & ApprovalRequest & { readonly reminder: number };
    }
  | {
      readonly type: 'approval.escalated';
      readonly timestamp: string;
      readonly data: WebhookRunRef &
        WebhookSession &
        ApprovalRequest & { readonly step: number; readonly to: EscalationTarget };
    }
  | {
      readonly type: 'approval.voted';
      readonly timestamp: string;
      readonly data: WebhookRunRef & { readonly approvalId: string; readonly vote: Vote; readonly tally: VoteTally };
    }
  | {
      readonly type: 'approval.resolved';
      readonly timestamp: string;
      readonly data: WebhookRunRef & AuditEntry & { readonly path?: readonly DelegateStep[] };
    }
  | { readonly type: 'tool.finished'; readonly timestamp: string; readonly data: WebhookRunRef & WebhookToolFinished }
  | {
      readonly type: 'run.completed';
      readonly timestamp: string;
      readonly data: WebhookRunRef & { readonly output: string };
    }
  | {
      readonly type: 'run.failed';
      readonly timestamp: string;
      readonly data: WebhookRunRef & { readonly error: RunError };
    }
  | {
      readonly type: 'run.cancelled';
      readonly timestamp: string;
      readonly data: WebhookRunRef & { readonly reason: string; readonly interrupted?: readonly InterruptedCall[] };
    };

/** Copies only the named fields that are set: what leaves the process is chosen field by field, never spread. */
function pick<T extends object, K extends keyof T>(source: T, keys: readonly K[]): Pick<T, K> {
  const copy = {} as Pick<T, K>;
  for (const key of keys) if (source[key] !== undefined) copy[key] = source[key];
  return copy;
}

const REQUEST_FIELDS = [
  'approvalId',
  'toolCallId',
  'toolName',
  'args',
  'argsDigest',
  'description',
  'reason',
  'requestedAt',
  'expiresAt',
  'onExpire',
  'connector',
  'annotations',
  'warnings',
  'ruleId',
  'approvers',
  'approverFunction',
  'oneCallRun',
  'decisions',
  'signature',
  'outcomeUnknown',
  'remindAfterMs',
  'escalate',
  'history',
  'quorum',
  'votes',
  'question',
  // Not secret, and it lets the receiver link its own spans to the wait.
  'traceparent',
  // A rule id, as ruleId: it tells the receiver a suggested rule on trial would have allowed the call.
  'shadowRuleId',
  // The chain of delegations down to a sub-agent's call: agent names, tool names and call ids, no arguments.
  'path',
] as const satisfies readonly (keyof ApprovalRequest)[];
const AUDIT_FIELDS = [
  'approvalId',
  'toolCallId',
  'toolName',
  'decision',
  'source',
  'scope',
  'at',
  'by',
  'reason',
  'ruleId',
  'argsDigest',
  'editedArgsDigest',
  'grant',
  'approvers',
  'quorum',
  'grantId',
  'claimedAt',
  'history',
  'votes',
  'signature',
  // Made to be checked by others: the receiver can verify the decision against the published keys.
  'receipt',
] as const satisfies readonly (keyof AuditEntry)[];
const FINISHED_FIELDS = [
  'approvalId',
  'toolCallId',
  'toolName',
  'status',
  'result',
  'path',
] as const satisfies readonly (keyof WebhookToolFinished)[];
type ToolFinishedEvent = Extract<RunEvent, { type: 'tool-finished' }>;
// A field added to ApprovalRequest, AuditEntry or tool-finished fails to compile here until someone decides whether it may leave the process.
type Unlisted<T, K extends readonly (keyof T)[]> = Exclude<keyof T, K[number]>;
type Undecided =
  | Unlisted<ApprovalRequest, typeof REQUEST_FIELDS>
  | Unlisted<AuditEntry, typeof AUDIT_FIELDS>
  | Exclude<keyof ToolFinishedEvent, (typeof FINISHED_FIELDS)[number] | 'type' | keyof WebhookRunRef>;
const everyFieldDecided: [Undecided] extends [never] ? true : never = true;
void everyFieldDecided;

/** The webhook event for a run event, with the identity its `webhook-id` derives from; undefined when none is sent. */
export function toWebhookEvent(
  event: RunEvent,
  timestamp: string,
): { event: WebhookEvent; identity: string } | undefined {
  const ref: WebhookRunRef = { runId: event.runId, agentName: event.agentName };
  switch (event.type) {
    case 'approval-requested':
      return {
        event: {
          type: 'approval.requested',
          timestamp,
          data: {
            ...ref,
            ...(event.sessionId === undefined ? {} : { sessionId: event.sessionId }),
            ...(pick(event.request, REQUEST_FIELDS) as ApprovalRequest),
          },
        },
        identity: event.request.approvalId,
      };
    case 'approval-reminder':
    case 'approval-escalated': {
      const data = {
        ...ref,
        ...(event.sessionId === undefined ? {} : { sessionId: event.sessionId }),
        ...(pick(event.request, REQUEST_FIELDS) as ApprovalRequest),
      };
      return event.type === 'approval-reminder'
        ? {
            event: { type: 'approval.reminder', timestamp, data: { ...data, reminder: event.reminder } },
            identity: `${event.request.approvalId}:reminder:${event.reminder}`,
          }
        : {
            event: { type: 'approval.escalated', timestamp, data: { ...data, step: event.step, to: event.to } },
            identity: `${event.request.approvalId}:escalation:${event.step}`,
          };
    }
    case 'approval-resolved':
      // Calls a rule or run memory decided without asking anyone are in the audit log, not news for an approver.
      if (event.entry.approvalId === undefined) return undefined;
      return {
        event: {
          type: 'approval.resolved',
          timestamp,
          data: {
            ...ref,
            ...(pick(event.entry, AUDIT_FIELDS) as AuditEntry),
            ...(event.path === undefined ? {} : { path: event.path }),
          },
        },
        identity: `${event.entry.approvalId}:${event.entry.toolCallId}`,
      };
    case 'approval-voted':
      return {
        event: {
          type: 'approval.voted',
          timestamp,
          data: { ...ref, approvalId: event.approvalId, vote: event.vote, tally: event.tally },
        },
        identity: `${event.approvalId}:${event.vote.by ?? ''}:${event.vote.at}`,
      };
    case 'tool-finished':
      return {
        event: { type: 'tool.finished', timestamp, data: { ...ref, ...pick(event, FINISHED_FIELDS) } },
        identity: `${event.approvalId}:${event.toolCallId}`,
      };
    case 'run-completed':
      return { event: { type: 'run.completed', timestamp, data: { ...ref, output: event.output } }, identity: '' };
    case 'run-failed':
      return {
        event: {
          type: 'run.failed',
          timestamp,
          data: { ...ref, error: { code: event.error.code, message: event.error.message } },
        },
        identity: '',
      };
    case 'run-cancelled':
      return {
        event: {
          type: 'run.cancelled',
          timestamp,
          data: {
            ...ref,
            reason: event.reason,
            ...(event.interrupted === undefined ? {} : { interrupted: event.interrupted }),
          },
        },
        identity: '',
      };
    default:
      return undefined;
  }
}

/**
 * Derived from what the event is about, not from when it was sent: every
 * retry, and a second process announcing the same fact, carries the same id.
 */
export function webhookIdOf(type: WebhookEventType, runId: string, identity: string): string {
  return `msg_${createHash('sha256')
    .update(JSON.stringify([type, runId, identity]))
    .digest('base64url')
    .slice(0, 32)}`;
}
