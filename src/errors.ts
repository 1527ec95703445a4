// Every error class countersign defines, one family a file under errors/ (this file only re-exports them, so
// `import { … } from '../errors.js'` works from anywhere):
// - errors/codes.ts: CountersignErrorCode, ConfigErrorCode (every code, one union the compiler checks);
// - errors/base.ts: CountersignError, isCountersignError;
// - errors/config.ts: ConfigError, AgentNotFoundError;
// - errors/snapshot.ts: SnapshotError, ValueTooDeepError;
// - errors/decision.ts: UnknownApprovalError, RunNotAwaitingApprovalError, DecisionConflictError, DuplicateVoteError,
//   ApprovalExpiredError, InvalidEditError, InvalidAnswerError, ApproverNotAllowedError, DecisionNotOfferedError;
// - errors/signature.ts: ApprovalSignatureError, CallNotCoveredError, GrantSignatureError, RuleSignatureError;
// - errors/store.ts: VersionConflictError, RunExistsError, RunNotFoundError, StoreUnavailableError, UnsupportedCommitWriteError;
// - errors/link.ts: LinkTokenError;
// - errors/tool.ts: ToolNotFoundError, OutcomeUnknownError, ToolTimeoutError, ConnectorUnavailableError;
// - errors/http.ts: TargetMismatchError, HttpProblem (with its Problem body);
// - errors/model.ts: ModelProviderError;
// - errors/delivery.ts: DeliveryError;
// - errors/cli.ts: UsageError, ApprovalAppError.
// Which of them a user can import is decided by the public entries (src/index.ts and each subpath's index.ts), not here.
// The one error class elsewhere is the console's ConsoleRequestError (src/console/api.ts): that folder is a browser
// module graph served file by file from src/console/, so it cannot import from here.
export type { CountersignErrorCode, ConfigErrorCode } from './errors/codes.js';
export { CountersignError, isCountersignError } from './errors/base.js';
export { ConfigError, AgentNotFoundError } from './errors/config.js';
export { SnapshotError, ValueTooDeepError } from './errors/snapshot.js';
export {
  UnknownApprovalError,
  RunNotAwaitingApprovalError,
  DecisionConflictError,
  DuplicateVoteError,
  ApprovalExpiredError,
  InvalidEditError,
  InvalidAnswerError,
  ApproverNotAllowedError,
  DecisionNotOfferedError,
} from './errors/decision.js';
export {
  ApprovalSignatureError,
  CallNotCoveredError,
  GrantSignatureError,
  RuleSignatureError,
} from './errors/signature.js';
export {
  VersionConflictError,
  RunExistsError,
  RunNotFoundError,
  StoreUnavailableError,
  UnsupportedCommitWriteError,
} from './errors/store.js';
export { LinkTokenError } from './errors/link.js';
export { ToolNotFoundError, OutcomeUnknownError, ToolTimeoutError, ConnectorUnavailableError } from './errors/tool.js';
export { TargetMismatchError, HttpProblem, type Problem } from './errors/http.js';
export { ModelProviderError } from './errors/model.js';
export { DeliveryError } from './errors/delivery.js';
export { UsageError, ApprovalAppError } from './errors/cli.js';
