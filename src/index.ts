export { createAgent } from './machine/agent.js';
export type { Agent, AgentConfig, AgentSettings } from './machine/agent-types.js';
export { defineTool, type AnyTool, type Tool, type ToolDefinition, type ToolContext, type ToolExecuteContext, type ApprovalRequirement } from './machine/define-tool.js';
export type { Approvers } from './machine/approvers.js';
export type { ExecuteOptions } from './machine/execute-options.js';
export type { ExecuteInput } from './machine/execute-input.js';
export { withApprovalResponse, approveAll, denyAll, type DecideOptions } from './machine/with-approval-response.js';
export { cancel, type CancelOptions } from './machine/cancel.js';
export { hasPendingApprovals } from './machine/has-pending-approvals.js';
export { serialize, deserialize, SUPPORTED_SCHEMA_VERSIONS, CURRENT_SCHEMA_VERSION } from './machine/snapshot-codec.js';
export { expiryDecisions } from './machine/expiry.js';
export type { ModelDeltaEvent, RunEvent } from './machine/run-events.js';
export type { PolicyAction, PolicyConfig, PolicyContext, PolicyRule } from './machine/policy.js';
export { voteProgress, type QuorumOptions } from './machine/quorum.js';
export type { VoteTally } from './machine/authority/vote-count.js';
export { presets } from './machine/presets.js';
export { toolResult, type RichToolResult, type ToolResultFile } from './machine/rich-tool-result.js';
export { annotationBadges } from './machine/tool-annotations.js';
export { clearRunApprovals, auditLog } from './machine/run-memory.js';
export { presentArgs, defaultSecretKeys } from './machine/present-args.js';
export { createMemoryRuleStore } from './adapters/memory-rule-store.js';
export type { RuleStore, StoredRule, NewRule } from './ports/rule-store.js';
export { createMemoryGrantStore } from './adapters/memory-grant-store.js';
export type { Grant, GrantState, GrantStore, GrantBounds, GrantFilter, GrantRecord, GrantUse, ConsumeOutcome } from './ports/grant-store.js';
export type { ListGrantsOptions } from './runtime/runtime-grants.js';
export type { PresentOptions } from './machine/present-args.js';
export {
  StopReason,
  type ApprovalRequest,
  type ApprovalResponse,
  type ArgsWarning,
  type ConnectorStatus,
  type ToolAnnotations,
  type AssistantMessage,
  type AuditEntry,
  type DecisionSource,
  type DecisionScope,
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
  type ToolSpec,
  type Usage,
} from './machine/types.js';
export type { AgentSnapshot, MachineState } from './machine/agent-snapshot.js';
export type { JsonValue } from './machine/json-value.js';
export type { SnapshotStore, PendingApprovalEntry, PendingPage, ListPendingOptions, CommitOptions, CommitReceipt } from './ports/snapshot-store.js';
export type { Notifier } from './ports/notifier.js';
export { createMemoryStore, type MemoryStore } from './adapters/memory-store.js';
export { createMemoryOnceStore } from './adapters/memory-once-store.js';
export type { OnceStore } from './ports/once-store.js';
export type { CancelSignal, CancelNotice } from './ports/cancel-signal.js';
export type { Runtime, LinkedRuntime, RespondMode, RespondOptions, RespondResult, StartOptions, LinkRespondResult, InboxPage } from './runtime/runtime.js';
export type { ConnectorState } from './runtime/connector-statuses.js';
export type { ToolSource } from './machine/tool-set.js';
export type { ResumeQueue } from './ports/resume-queue.js';
export type { ResumeMode } from './web/answer-options.js';
export { createRuntime, type RuntimeOptions } from './runtime/create-runtime.js';
export { mintLinkToken, readLinkToken, type ApprovalLinkTokens, type LinkClaim, type LinkTarget, type InboxClaim } from './links/approval-links.js';
export { createApprovalLinks, type ApprovalLinkService, type ApprovalLinkOptions } from './links/link-service.js';
export { approvalLinkUrl, inboxUrl } from './links/link-urls.js';
export { isLinkedRuntime } from './runtime/link-runtime.js';
export * from './errors.js';
