export { createAgent } from './agent/create-agent.js';
export type { Agent, AgentConfig } from './agent/agent-types.js';
export { agentAsTool, type AgentAsToolOptions } from './agent/agent-as-tool.js';
export {
  defineTool,
  type AnyTool,
  type Tool,
  type ToolDefinition,
  type ToolContext,
  type ToolExecuteContext,
  type ApprovalRequirement,
} from './tools/define-tool.js';
export type { Approvers } from './policy/approvers.js';
export type { ExecuteOptions } from './loop/execute-options.js';
export type { ExecuteInput } from './loop/execute-input.js';
export { withApprovalResponse, approveAll, denyAll } from './decisions/with-approval-response.js';
export type { DecideOptions } from './decisions/decider-of.js';
export { withApprovalRequest } from './decisions/with-approval-request.js';
export type { NewApprovalRequest, AddRequestOptions } from './decisions/new-approval-request.js';
export { cancel, type CancelOptions } from './decisions/cancel.js';
export { hasPendingApprovals } from './run/has-pending-approvals.js';
export { serialize, deserialize, SUPPORTED_SCHEMA_VERSIONS, CURRENT_SCHEMA_VERSION } from './run/snapshot-codec.js';
export type { ModelDeltaEvent, RunEvent } from './run/run-events.js';
export type { PolicyAction, PolicyConfig, PolicyContext, PolicyRule } from './policy/policy.js';
export { voteProgress, type QuorumOptions } from './policy/quorum.js';
export {
  suggestRules,
  type DecidedCall,
  type RuleSuggestion,
  type SuggestRulesOptions,
} from './policy/suggest-rules.js';
export type { VoteTally } from './decisions/authority/vote-count.js';
export { presets } from './tools/presets.js';
export { toolResult, type RichToolResult, type ToolResultFile } from './tools/rich-tool-result.js';
export { annotationBadges } from './run/tool-annotations.js';
export { clearRunApprovals, auditLog } from './decisions/run-memory.js';
export { presentArgs, defaultSecretKeys } from './presentation/present-args.js';
export { createMemoryRuleStore } from './stores/memory/memory-rule-store.js';
export type { RuleStore, StoredRule, NewRule } from './ports/rule-store.js';
export { createMemoryGrantStore } from './stores/memory/memory-grant-store.js';
export type {
  Grant,
  GrantState,
  GrantStore,
  GrantBounds,
  GrantFilter,
  GrantRecord,
  GrantUse,
  ConsumeOutcome,
} from './ports/grant-store.js';
export type { ListGrantsOptions } from './runtime/runtime-grants.js';
export type { PersonToken, PersonTokenStore, StoredPersonToken } from './ports/person-token-store.js';
export type { PersonTokens, IssuePersonToken } from './runtime/person-tokens/person-tokens.js';
export { createMemoryPersonTokenStore } from './stores/memory/memory-person-token-store.js';
export type { ReceiptOptions, ReceiptJwk, ReceiptKeySet } from './runtime/receipts/receipt-keys.js';
export {
  verifyAudit,
  type AuditExport,
  type AuditProblem,
  type AuditProblemCode,
  type AuditVerification,
} from './runtime/receipts/verify-audit.js';
export type { PresentOptions } from './presentation/present-args.js';
export {
  StopReason,
  type ApprovalRequest,
  type ApprovalResponse,
  type ArgsWarning,
  type ConnectorStatus,
  type ToolAnnotations,
  type AssistantMessage,
  type AuditEntry,
  type DecisionReceipt,
  type DecisionSource,
  type DecisionScope,
  type DecisionKind,
  type Escalation,
  type EscalationStep,
  type EscalationTarget,
  type RequestHistory,
  type FinishReason,
  type Message,
  type MessagePart,
  type Model,
  type ModelRequest,
  type ModelResponse,
  type ModelStreamPart,
  type ProviderMetadata,
  type OnExpire,
  type Quorum,
  type Vote,
  type RunError,
  type InterruptedCall,
  type RunOrigin,
  type RunStatus,
  type ToolCall,
  type ToolCallRecord,
  type ToolCallStatus,
  type ChildRun,
  type DelegateStep,
  type ToolSpec,
  type Usage,
} from './run/types.js';
export type { AgentSnapshot, MachineState } from './run/agent-snapshot.js';
export type { JsonValue } from './run/json-value.js';
export type {
  SnapshotStore,
  PendingApprovalEntry,
  PendingPage,
  ListPendingOptions,
  CommitOptions,
  CommitReceipt,
  CommitWrite,
  CommitWriteKind,
  EnqueueWrite,
  PutIfAbsentWrite,
  ReplaceIfWrite,
} from './ports/snapshot-store.js';
export type { Notifier } from './ports/notifier.js';
export type { ExecuteTelemetry, Telemetry } from './ports/telemetry.js';
export { createMemoryStore, type MemoryStore } from './stores/memory/memory-store.js';
export { createMemoryOnceStore } from './stores/memory/memory-once-store.js';
export type { OnceStore } from './ports/once-store.js';
export type { CancelSignal, CancelNotice } from './ports/cancel-signal.js';
export type {
  Runtime,
  LinkedRuntime,
  RespondMode,
  RespondOptions,
  RespondResult,
  RuntimeDecideOptions,
  DecideResult,
  DecideOutcome,
  StartOptions,
  LinkRespondResult,
  InboxPage,
} from './runtime/runtime.js';
export type { AnnounceReport } from './runtime/announce-pending.js';
export type { ConnectorState } from './runtime/connector-statuses.js';
export type { ToolSource } from './tools/tool-set.js';
export type { ResumeQueue } from './ports/resume-queue.js';
export type { ResumeMode } from './kit/web/answer-options.js';
export { createRuntime, type RuntimeOptions } from './runtime/create-runtime.js';
export type { ApprovalAsk, InputAsk } from './requests/approval-ask.js';
export type { Answer, AnswerIssue, Question, QuestionField } from './run/question.js';
export { answerIssues } from './run/question.js';
export { askHuman, type AskHumanOptions } from './tools/ask-human.js';
export { REQUEST_AGENT_NAME, type RequestOptions, type RequestToolSettings } from './requests/request-agent.js';
export type { RequestHandle, WaitOptions } from './requests/request-handle.js';
export type { PendingRequest, RequestOutcome, RequestState } from './requests/request-state.js';
export type { ApprovalLinkTokens, LinkClaim, LinkTarget, InboxClaim } from './links/approval-links.js';
export { createApprovalLinks, type ApprovalLinkService, type ApprovalLinkOptions } from './links/link-service.js';
export { approvalLinkUrl, inboxUrl } from './links/link-urls.js';
export { isLinkedRuntime } from './runtime/link-runtime.js';
// The errors of the core; the adapters' own (ModelProviderError, HttpProblem) are exported by their subpaths.
export {
  type CountersignErrorCode,
  type ConfigErrorCode,
  CountersignError,
  isCountersignError,
  ConfigError,
  AgentNotFoundError,
  SnapshotError,
  ValueTooDeepError,
  UnknownApprovalError,
  RunNotAwaitingApprovalError,
  DecisionConflictError,
  DuplicateVoteError,
  ApprovalExpiredError,
  InvalidEditError,
  InvalidAnswerError,
  ApproverNotAllowedError,
  DecisionNotOfferedError,
  ApprovalSignatureError,
  CallNotCoveredError,
  GrantSignatureError,
  RuleSignatureError,
  VersionConflictError,
  RunExistsError,
  RunNotFoundError,
  StoreUnavailableError,
  UnsupportedCommitWriteError,
  LinkTokenError,
  TargetMismatchError,
  ToolNotFoundError,
  OutcomeUnknownError,
  ToolTimeoutError,
  ConnectorUnavailableError,
} from './errors.js';
