// Every code a countersign error carries, in one union the compiler checks codes against (problem.ts maps each to an
// HTTP status without casts).

/**
 * Every `code` a countersign error carries: stable, safe to branch on, and
 * checked by the compiler (a typo in `error.code === '...'` does not compile).
 *
 * @example
 * const retryable: ReadonlySet<CountersignErrorCode> = new Set(['store_unavailable', 'version_conflict']);
 */
export type CountersignErrorCode =
  | ConfigErrorCode
  | 'invalid_snapshot'
  | 'unknown_approval'
  | 'run_not_awaiting_approval'
  | 'decision_conflict'
  | 'approval_expired'
  | 'invalid_edit'
  | 'invalid_answer'
  | 'approver_not_allowed'
  | 'decision_not_offered'
  | 'invalid_signature'
  | 'call_not_covered'
  | 'agent_not_found'
  | 'tool_not_found'
  | 'version_conflict'
  | 'run_exists'
  | 'run_not_found'
  | 'store_unavailable'
  | 'invalid_link_token'
  | 'target_mismatch'
  | 'value_too_deep'
  | 'invalid_transition'
  | 'model_provider_error'
  | 'outcome_unknown'
  | 'connector_unavailable';

/**
 * The codes of configuration problems (a `ConfigError`): fixed by changing
 * code or settings, never by retrying.
 * - `invalid_config`: an option or argument has the wrong value or shape;
 * - `unknown_option`: an option name is not known (often a typo);
 * - `missing_option`: something required was left out, or two options that go together were not given together;
 * - `links_not_configured`: one-click links were asked of a runtime made without `links`;
 * - `redis_unsupported`: the Redis server lacks something the option needs;
 * - `unsupported_write`: a commit carried a write its store cannot make atomically with it (`UnsupportedCommitWriteError`).
 *
 * @example
 * if (isCountersignError(error) && error.code === 'unknown_option') console.error(error.message);
 */
export type ConfigErrorCode =
  | 'invalid_config'
  | 'unknown_option'
  | 'missing_option'
  | 'links_not_configured'
  | 'redis_unsupported'
  | 'unsupported_write';
