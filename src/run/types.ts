// The vocabulary of a run, in one file on purpose (about 480 lines, most of them the TSDoc users read in their editor): messages and their parts, the Model
// port, tool calls and their records, approval requests, the audit and the run data a snapshot holds, so the
// shape of what is stored can be read in one place. The snapshot itself (agent-snapshot.ts) adds the state read from
// the statechart, which imports this file.
import type { Answer, Question } from './question.js';
import type { GrantBounds } from '../ports/grant-store.js';
import type { JsonValue } from './json-value.js';

/**
 * Data a provider adapter keeps with a message, a part or a tool call and
 * sends back unchanged on the next request (an Anthropic thinking signature,
 * an OpenAI reasoning item's id), keyed by provider: `{ anthropic: { ... } }`.
 * Opaque to countersign, JSON, stored with the run.
 */
export type ProviderMetadata = { readonly [provider: string]: { readonly [key: string]: JsonValue } };

/** A call the model asked for, as it appears in an assistant message. */
export interface ToolCall {
  readonly id: string;
  readonly name: string;
  readonly args: unknown;
  readonly providerMetadata?: ProviderMetadata;
}

/**
 * One piece of a message beyond its plain `content`:
 * - `text`: text, as the provider split it;
 * - `reasoning`: the model's thinking, with what the provider needs to accept it back (Anthropic's `signature`, or
 *   the encrypted content of OpenAI reasoning and of Anthropic redacted thinking in `encryptedContent`, `text`
 *   then empty);
 * - `file`: an image or a document, by `url` or base64 `data`, with its media type;
 * - `tool-result`: how a call ended (`outcome`), for adapters whose providers mark errors and denials; `output` is
 *   a structured result when there is one, the message's `content` otherwise.
 *
 * @example
 * const part: MessagePart = { type: 'reasoning', text: 'The user wants /tmp cleared…', signature: 'EqQBCgIYAhIM…' };
 */
export type MessagePart =
  | { readonly type: 'text'; readonly text: string; readonly providerMetadata?: ProviderMetadata }
  | {
      readonly type: 'reasoning';
      readonly text: string;
      readonly signature?: string;
      readonly encryptedContent?: string;
      readonly providerMetadata?: ProviderMetadata;
    }
  | {
      readonly type: 'file';
      readonly mediaType: string;
      readonly data?: string;
      readonly url?: string;
      readonly filename?: string;
      readonly providerMetadata?: ProviderMetadata;
    }
  | {
      readonly type: 'tool-result';
      readonly toolCallId: string;
      readonly toolName: string;
      readonly outcome: 'ok' | 'error' | 'denied';
      readonly output?: JsonValue;
      readonly providerMetadata?: ProviderMetadata;
    };

/** Tokens a model call used, as its provider counted them. */
export interface Usage {
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  /** Of the output, how many went to reasoning. */
  readonly reasoningTokens?: number;
  /** Of the input, how many were read from the provider's prompt cache. */
  readonly cachedInputTokens?: number;
}

/** Why the model stopped. */
export type FinishReason = 'stop' | 'length' | 'tool-calls' | 'content-filter' | 'error' | 'other';

/**
 * One message of the conversation. History is kept JSON-native (strings and
 * plain objects) so a snapshot with a long history stays cheap to encode.
 * `content` is the text for readers that want a string; `parts` carry what a
 * provider needs beyond it (reasoning, files, how a tool call ended). An
 * adapter adds `text` parts only where the provider split the text among
 * other parts: the history is what a snapshot stores, so it holds the text once.
 */
export interface Message {
  readonly role: 'system' | 'user' | 'assistant' | 'tool';
  readonly content: string;
  readonly parts?: readonly MessagePart[];
  readonly toolCalls?: readonly ToolCall[];
  readonly toolCallId?: string;
  readonly providerMetadata?: ProviderMetadata;
  /** On an assistant message: what its model call used, and why it stopped. */
  readonly usage?: Usage;
  readonly finishReason?: FinishReason;
}

/** The assistant's turn, as a `Model` returns it. */
export interface AssistantMessage extends Message {
  readonly role: 'assistant';
}

/** A tool as the model sees it: parameters are JSON Schema. */
export interface ToolSpec {
  readonly name: string;
  readonly description: string;
  readonly parameters: Record<string, unknown>;
}

export interface ModelRequest {
  readonly messages: readonly Message[];
  readonly tools: readonly ToolSpec[];
  readonly signal?: AbortSignal;
}

/** What a model call answers: the assistant's message, and optionally what it used and why it stopped. */
export interface ModelResponse {
  readonly message: AssistantMessage;
  readonly usage?: Usage;
  readonly finishReason?: FinishReason;
}

/**
 * One piece of a streamed model answer: deltas as the provider sends them, then `finish` with the whole answer,
 * exactly what `generate` would have returned.
 *
 * @example
 * const part: ModelStreamPart = { type: 'text-delta', delta: 'Deleting ' };
 */
export type ModelStreamPart =
  | { readonly type: 'text-delta'; readonly delta: string }
  | { readonly type: 'reasoning-delta'; readonly delta: string }
  | {
      readonly type: 'tool-call-delta';
      readonly toolCallId: string;
      readonly toolName?: string;
      readonly argsDelta: string;
    }
  | { readonly type: 'finish'; readonly response: ModelResponse };

/**
 * The port every model provider adapter implements. `stream`, when present,
 * is used by `execute`: its deltas go out as `model-delta` run events and its
 * `finish` is committed exactly as `generate`'s answer would be.
 *
 * @example
 * const model: Model = {
 *   async generate({ messages }) {
 *     return { message: { role: 'assistant', content: `you said ${messages.at(-1)?.content}` }, usage: { inputTokens: 12, outputTokens: 4 } };
 *   },
 * };
 */
export interface Model {
  /** The provider's name of the model (`gpt-5`, `claude-sonnet-4-5`), for telemetry. */
  readonly modelId?: string;
  generate(request: ModelRequest): Promise<ModelResponse>;
  stream?(request: ModelRequest): AsyncIterable<ModelStreamPart>;
}

/** Why `execute` returned. */
export const StopReason = {
  Completed: 'completed',
  AwaitingApproval: 'awaiting_approval',
  MaxTurns: 'max_turns',
  Error: 'error',
  Cancelled: 'cancelled',
} as const;
export type StopReason = (typeof StopReason)[keyof typeof StopReason];

export type RunStatus = 'running' | 'awaitingApproval' | 'completed' | 'failed' | 'cancelled';

export type ToolCallStatus = 'pending' | 'approved' | 'denied' | 'executing' | 'succeeded' | 'failed' | 'expired';

/** What to do with a request nobody answered before its `expiresAt`. */
export type OnExpire = 'deny' | 'keep';

/**
 * A finding the approver should know of: about the displayed arguments, or
 * (`connector-disconnected`, path `''`) that the tool's connector was not
 * connected when the request was made.
 */
export interface ArgsWarning {
  readonly code:
    | 'bidi-control'
    | 'zero-width'
    | 'invisible'
    | 'escape-lookalike'
    | 'mixed-script'
    | 'truncated'
    | 'connector-disconnected';
  readonly path: string;
  readonly message: string;
}

/**
 * Hints a tool gives about itself (the MCP tool annotations). Shown to the
 * approver; they loosen no policy unless the tool's definition sets
 * `readOnly` or `idempotent` itself (an MCP server with `trustAnnotations`).
 */
export interface ToolAnnotations {
  readonly title?: string;
  readonly readOnlyHint?: boolean;
  readonly destructiveHint?: boolean;
  readonly idempotentHint?: boolean;
  readonly openWorldHint?: boolean;
}

/** Whether the system behind a connector can be reached: `failed` means reconnecting gave up. */
export type ConnectorStatus = 'connected' | 'connecting' | 'disconnected' | 'failed';

/**
 * Who an escalation step brings in: approver ids (added to who may decide, where the request names approvers), or
 * `{ channel }`, a channel the runtime's notifiers know by name, told about the request (widening no list).
 *
 * @example
 * const lead: EscalationTarget = ['carol'];
 * const onCall: EscalationTarget = { channel: 'slack' };
 */
export type EscalationTarget = readonly string[] | { readonly channel: string };

/**
 * One step of an escalation plan: `afterMs` after the request was made, bring in `to`.
 *
 * @example
 * const escalate: EscalationStep[] = [{ afterMs: 3_600_000, to: ['carol'] }, { afterMs: 4 * 3_600_000, to: { channel: 'slack' } }];
 */
export interface EscalationStep {
  readonly afterMs: number;
  readonly to: EscalationTarget;
}

/**
 * An escalation the sweeper made: when, and whom it brought in.
 *
 * @example
 * const added = request.history?.escalations.flatMap((escalation: Escalation) => (Array.isArray(escalation.to) ? escalation.to : []));
 */
export interface Escalation {
  readonly at: number;
  readonly to: EscalationTarget;
}

/**
 * What the sweeper did while a request waited: reminders sent and escalations made. Signed on its own
 * (`signature`, over the run, the request's signature and this history) when the agent has a decision secret, so
 * the request's own signature, the one a response echoes, never changes while it waits.
 *
 * @example
 * const history: RequestHistory | undefined = snapshot.pendingApprovals[0]?.history;
 * console.log(`reminded ${history?.reminders ?? 0} times`);
 */
export interface RequestHistory {
  readonly reminders: number;
  readonly lastRemindedAt?: number;
  readonly escalations: readonly Escalation[];
  readonly signature?: string;
}

/** What a person is asked to decide. */
export interface ApprovalRequest {
  readonly approvalId: string;
  readonly toolCallId: string;
  readonly toolName: string;
  /** Display copy of the arguments: secrets redacted, invisible characters escaped. */
  readonly args: unknown;
  /** SHA-256 (hex) of the canonical JSON of the real arguments. */
  readonly argsDigest: string;
  readonly description: string;
  readonly reason?: string;
  readonly requestedAt: number;
  readonly expiresAt?: number;
  readonly onExpire?: OnExpire;
  readonly connector?: string;
  /** What the tool says about itself (MCP annotations), shown as badges; hints only, never trusted by the request. */
  readonly annotations?: ToolAnnotations;
  readonly warnings: readonly ArgsWarning[];
  /** The policy rule that asked for this approval, if one did. */
  readonly ruleId?: string;
  /** A stored rule in shadow mode that would have allowed this call without asking (a suggested rule on trial). */
  readonly shadowRuleId?: string;
  /** Approver ids allowed to decide, when a rule or the tool names them. */
  readonly approvers?: readonly string[];
  /**
   * True when who may decide is also checked by a function of the tool or rule (`approvers` or `approvals.from`
   * given as a predicate): only the agent can run it, so the request is decided with `{ agent }`.
   */
  readonly approverFunction?: true;
  /** True when the run makes no other call (`createAgent({ oneCallPerRun })`): "approve for this run" is not offered. */
  readonly oneCallRun?: true;
  /**
   * The decisions a person may make, when the tool or its rule names fewer than all (`decisions`): a response asking
   * for another is refused (`DecisionNotOfferedError`) and no surface offers it. Dismissal is always possible.
   */
  readonly decisions?: readonly DecisionKind[];
  /**
   * HMAC over the run and every other field of the request (call, arguments,
   * display copy, approvers, rule, expiry), when the agent has a decision
   * secret. `v2.`-prefixed; a bare one was made before snapshot format 2.
   */
  readonly signature?: string;
  /** Set when a call was interrupted mid-run and may or may not have had its effect. */
  readonly outcomeUnknown?: boolean;
  /** Re-announce the request every this many ms while it waits (its tool's or rule's `remindAfterMs`). */
  readonly remindAfterMs?: number;
  /** Who is brought in, and when, while it waits (its tool's or rule's `escalate`). */
  readonly escalate?: readonly EscalationStep[];
  /** Reminders sent and escalations made so far; absent until the first. */
  readonly history?: RequestHistory;
  /** When several people must approve (a rule's or the tool's `approvals`): the settings, signed with the request. */
  readonly quorum?: Quorum;
  /** The votes so far on a quorum request, each signed on its own (they arrive after the request was signed). */
  readonly votes?: readonly Vote[];
  /**
   * On a question (`requestInput`, `askHuman`): the form of the answer, signed with the request. Approving it needs
   * an `answer` that fits; denying it declines to answer.
   */
  readonly question?: Question;
  /**
   * The W3C trace context of the execute that asked (with a `telemetry`), so the process that records the decision
   * can continue the trace. Not signed: it says where to report, never what may run.
   */
  readonly traceparent?: string;
  /**
   * On a request of a sub-agent's call (`agentAsTool`), as the parent run lists it: the delegations from this run
   * down to the run that asked, outermost first. The request itself is always the innermost call; the delegate calls
   * on the way are never what a person approves. Absent on a run's own calls.
   */
  readonly path?: readonly DelegateStep[];
}

/**
 * One delegation on the way from a run down to a sub-agent's call: the delegate call (`toolCallId`, of the tool
 * `toolName` that `agentAsTool` made) and the agent it ran (`agentName`).
 *
 * @example
 * const chain = request.path?.map((step: DelegateStep) => step.agentName).join(' › ');
 */
export interface DelegateStep {
  readonly agentName: string;
  readonly toolCallId: string;
  readonly toolName: string;
}

/**
 * The quorum a request needs, resolved from the rule's or the tool's `approvals` (see `QuorumOptions`).
 *
 * @example
 * const quorum: Quorum = { required: 2, from: ['ana', 'bo', 'cy'], distinctPeople: true, excludeRequester: true, anyDenyDenies: true };
 */
export interface Quorum {
  readonly required: number;
  /** Who may vote, when the rule or tool names a list (a predicate is checked at each vote, not carried). */
  readonly from?: readonly string[];
  readonly distinctPeople: boolean;
  readonly excludeRequester: boolean;
  readonly anyDenyDenies: boolean;
}

/**
 * One person's vote on a quorum request.
 *
 * @example
 * const first: Vote | undefined = snap.pendingApprovals[0]?.votes?.[0]; // { by: 'ana', approved: true, at: 1767225600000 }
 */
export interface Vote {
  readonly by?: string;
  readonly approved: boolean;
  /** The agent's clock when the vote was recorded. */
  readonly at: number;
  readonly reason?: string;
  /** HMAC over the run, the approval id and the vote's fields, when the agent has a decision secret. */
  readonly signature?: string;
}

/** A person's (or a system's) answer to an `ApprovalRequest`. */
export interface ApprovalResponse {
  readonly approvalId: string;
  readonly approved: boolean;
  readonly reason?: string;
  readonly approvedBy?: string;
  readonly respondedAt?: number;
  /** Approve with changed arguments; validated against the tool's schema. */
  readonly args?: unknown;
  /**
   * How far the decision reaches: `'once'` (default) this call; `'run'` this tool by name for the rest of the run
   * (approvals only); `'session'` this tool in every run of the run's `sessionId`; `'agent'` this tool in every run
   * of the agent (needs `grant.ttlMs`). A session or agent decision, approval or denial, becomes a `Grant`.
   */
  readonly scope?: DecisionScope;
  /** Bounds of a `'session'` or `'agent'` decision: for how long, how many calls, which arguments. */
  readonly grant?: GrantBounds;
  /** Echo of the request's signature, required when the agent has a decision secret. */
  readonly signature?: string;
  /**
   * `true` with `approved: false`: the request was closed without a decision (the dialog dismissed). Recorded with
   * source `'dismissed'`, distinct from a denial and from expiry; the call does not run, the model reads that nobody
   * decided, and the run goes on as after a denial.
   */
  readonly dismissed?: boolean;
  /** The answer to a question request (`request.question`): a value per field, checked against the form. */
  readonly answer?: Answer;
}

/** How far a decision reaches (`ApprovalResponse.scope`). */
export type DecisionScope = 'once' | 'run' | 'session' | 'agent';

/**
 * A decision a person may make on a request (`decisions` on a tool or a policy rule): `'approve'` this call once,
 * `'edit'` approve it with changed arguments, `'deny'` it, or decide with the scope `'run'`, `'session'` or `'agent'`
 * (`ApprovalResponse.scope`). Closing a request undecided (a dismissal) is not a decision and is always possible.
 *
 * @example
 * const reviewOnly: readonly DecisionKind[] = ['approve', 'deny']; // no edits, nothing beyond this call
 */
export type DecisionKind = 'approve' | 'edit' | 'deny' | 'run' | 'session' | 'agent';

/**
 * Who or what decided: a person (`human`), one who closed the request undecided (`dismissed`), a rule, run memory,
 * a session or agent grant (`grant`), expiry, the tool, the default.
 */
export type DecisionSource = 'human' | 'dismissed' | 'rule' | 'memory' | 'grant' | 'expiry' | 'tool' | 'default';

/** One decision, human or automatic. */
export interface AuditEntry {
  readonly approvalId?: string;
  readonly toolCallId: string;
  readonly toolName: string;
  readonly decision: 'approved' | 'denied';
  readonly source: DecisionSource;
  readonly scope: DecisionScope;
  readonly at: number;
  readonly by?: string;
  readonly reason?: string;
  readonly ruleId?: string;
  readonly argsDigest: string;
  readonly editedArgsDigest?: string;
  /** On a `'session'` or `'agent'` decision: the bounds of the grant it made. */
  readonly grant?: GrantBounds;
  /** The approvers the decided call's request (or the policy, for a call nobody was asked about) named: who may decide it. */
  readonly approvers?: readonly string[];
  /** The quorum the decided call needed, when several people had to approve it: only their votes cover it. */
  readonly quorum?: Quorum;
  /** On a decision a grant made (source `grant`): which grant. */
  readonly grantId?: string;
  /** When the caller said it decided (`ApprovalResponse.respondedAt`): kept for the record, never used for expiry; `at` is the agent's clock. */
  readonly claimedAt?: number;
  /** The reminders and escalations of the request this entry decided, when there were any. */
  readonly history?: Omit<RequestHistory, 'signature'>;
  /** On a quorum decision: every vote cast (`by` is the last voter's). */
  readonly votes?: readonly Vote[];
  /** HMAC over the run and every other field of the entry (scope, source, who, digests), when the agent has a decision secret. */
  readonly signature?: string;
  /** The Ed25519 receipt a runtime made with `receipts` signed the entry with, which anyone can check (`verifyAudit`). */
  readonly receipt?: DecisionReceipt;
}

/**
 * A decision's receipt: an Ed25519 signature over the run, the entry's place, every other field of the entry and a
 * link to the entry before it, checkable with the public key `keyId` names (`/.well-known/jwks.json`).
 *
 * @example
 * const receipt: DecisionReceipt | undefined = auditLog(snap)[0]?.receipt;
 * receipt?.keyId;
 */
export interface DecisionReceipt {
  /** The RFC 7638 thumbprint of the key that signed it: its `kid` in the JWKS. */
  readonly keyId: string;
  /** SHA-256 (base64url) of the receipt signature of the entry before it; '' on a run's first entry. */
  readonly previous: string;
  /** The Ed25519 signature (base64url). */
  readonly signature: string;
}

/** The state of one tool call of the current turn. */
export interface ToolCallRecord {
  readonly toolCallId: string;
  readonly toolName: string;
  readonly status: ToolCallStatus;
  readonly approvalId?: string;
  /** Arguments an approver edited; the original stays in the assistant message. */
  readonly editedArgs?: unknown;
  /** What the model will read as this call's result, once there is one. */
  readonly result?: string;
  /** Files the tool handed back with its result (`toolResult`), put in the tool message as `file` parts. */
  readonly resultFiles?: readonly Extract<MessagePart, { type: 'file' }>[];
  /** The tool's structured result (`toolResult`), the tool message's `tool-result` part `output`. */
  readonly resultOutput?: JsonValue;
  readonly lease?: { readonly owner: string; readonly until: number };
  readonly attempts: number;
  /**
   * On a call added to the turn from outside the model (`withApprovalRequest`): its arguments. The model's calls
   * are in its assistant message; an added one is kept here until the turn's results are written, then goes into
   * the history as an assistant message of its own, followed by its result.
   */
  readonly added?: { readonly args: unknown };
  /** On a call put to a person with a `telemetry`: the trace it was asked in, which the execute that runs it follows. */
  readonly traceparent?: string;
  /**
   * On a delegate call (`agentAsTool`) that started its sub-agent: the sub-agent's run as it stands, kept with this
   * run so one compare-and-set covers both. Its pending requests are this run's too (with `path`).
   */
  readonly child?: ChildRun;
}

/**
 * A sub-agent's run as its delegate call's record keeps it: a snapshot of the sub-agent (`AgentSnapshot`), its state
 * read from the same chart.
 */
export interface ChildRun extends RunContext {
  readonly state: string;
  readonly status: RunStatus;
  readonly stopReason?: StopReason;
}

/** A tool call that was running when the run was cancelled: its signal fired, and its result is never recorded. */
export interface InterruptedCall {
  readonly toolCallId: string;
  readonly toolName: string;
}

export interface RunError {
  readonly code: string;
  readonly message: string;
  /** On a cancelled run: the calls that were running when it was cancelled (left out when none was). */
  readonly interrupted?: readonly InterruptedCall[];
}

/**
 * Where a run came from: the channel a person started it in and their
 * address there (a Telegram chat id, a Slack channel, an email address), so
 * its approvals go back to the same place. Set with `execute({ input, origin })`
 * or `runtime.start(agent, { input, origin })`; carried on `approval-requested` events.
 *
 * @example
 * await runtime.start('files', { input: text, origin: { channel: 'telegram', address: String(message.chat.id) } });
 */
export interface RunOrigin {
  /** The channel's name, as its adapter knows it: `telegram`, `slack`, `discord`, `email`, or your own. */
  readonly channel: string;
  /** Where on that channel: a chat, channel or user id, or an address. */
  readonly address: string;
  /** A thread or topic inside it, where the channel has them. */
  readonly thread?: string;
}

/** The run data the statechart carries: a snapshot (`AgentSnapshot`) without the state, status and stop reason that derive from the state value. */
export interface RunContext {
  readonly runId: string;
  readonly agentName: string;
  readonly messages: readonly Message[];
  readonly pendingApprovals: readonly ApprovalRequest[];
  readonly toolCalls: readonly ToolCallRecord[];
  readonly audit: readonly AuditEntry[];
  /** Tool names approved with `scope: 'run'`. */
  readonly runApprovals: readonly string[];
  /**
   * Where run memory starts in `audit`: `clearRunApprovals` moves it to the
   * end, so the `scope: 'run'` approvals before it grant nothing any more.
   */
  readonly runApprovalsSince?: number;
  readonly turns: number;
  readonly maxTurns: number;
  /** Tokens used by every model call of the run so far (each assistant message has its own call's `usage`). */
  readonly usage?: Usage;
  /** Where the run came from, when its starter said (`ExecuteInput.origin`). */
  readonly origin?: RunOrigin;
  /** The session (a conversation) the run belongs to, when its starter said (`ExecuteInput.sessionId`); bound by its signatures. */
  readonly sessionId?: string;
  /** Who asked for the run (`ExecuteInput.requestedBy`): a quorum with `excludeRequester` refuses their vote. Bound by its signatures. */
  readonly requestedBy?: string;
  /** The trace the run continues (`ExecuteInput.traceparent`): its spans are children of the caller's. */
  readonly traceparent?: string;
  /**
   * The sub-agent runs (`agentAsTool`) of the run's earlier turns, without their history: kept for their decisions, so
   * a decision resent after its reply was lost is still known. The current turn's are on their delegate calls' records.
   */
  readonly subRuns?: readonly ChildRun[];
  /** On a sub-agent's run (`agentAsTool`): the run that delegated to it. Bound by its signatures. */
  readonly parentRunId?: string;
  /** On a sub-agent's run: the delegate call of the parent run it answers. Bound by its signatures. */
  readonly parentToolCallId?: string;
  readonly version: number;
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly output?: string;
  readonly error?: RunError;
}
