// The catalogue of every error countersign throws and of every code they carry, in one file on purpose
// (over 300 lines): one place to read what can go wrong, and the union the compiler checks codes against.
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
  | 'approver_not_allowed'
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
export type ConfigErrorCode = 'invalid_config' | 'unknown_option' | 'missing_option' | 'links_not_configured' | 'redis_unsupported' | 'unsupported_write';

/**
 * Base class of every error countersign throws. `code` is stable and safe to
 * branch on; `fault` says whether the caller (`'user'`) or countersign
 * (`'library'`) should fix it.
 *
 * @example
 * try {
 *   withApprovalResponse(snapshot, { approvalId: 'nope', approved: true }, { agent });
 * } catch (error) {
 *   if (isCountersignError(error)) console.log(error.code, error.message);
 * }
 */
export class CountersignError extends Error {
  readonly code: CountersignErrorCode;
  readonly fault: 'user' | 'library' | 'environment';

  constructor(code: CountersignErrorCode, message: string, options: { cause?: unknown; fault?: 'user' | 'library' | 'environment' } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.fault = options.fault ?? 'user';
  }
}

/**
 * True for any countersign error, also across realms and duplicated installs
 * (compares `name` and `code`, not only the prototype chain).
 *
 * @example
 * if (isCountersignError(error) && error.code === 'approval_expired') retryLater();
 */
export function isCountersignError(error: unknown): error is CountersignError {
  return error instanceof CountersignError || (error instanceof Error && typeof (error as { code?: unknown }).code === 'string' && /Error$/.test(error.name) && 'fault' in error);
}

/**
 * A configuration or argument given to countersign is invalid; `code` says
 * which kind of problem (`ConfigErrorCode`), the message names the option and the fix.
 *
 * @example
 * throw new ConfigError('createSlackNotifier: token needs a channel to post to, e.g. channel: "C0123456789".', 'missing_option');
 */
export class ConfigError extends CountersignError {
  declare readonly code: ConfigErrorCode;

  constructor(message: string, code: ConfigErrorCode = 'invalid_config') {
    super(code, message);
  }
}

/**
 * A commit carried a write (`CommitWrite`) its store cannot make in the same atomic step as the run: nothing was
 * written. Ask `store.appliesAtomically(write)` first, and make a write it cannot yourself, before or after the commit.
 *
 * @example
 * try { await store.commit(next, version, events, { writes }); }
 * catch (error) { if (error instanceof UnsupportedCommitWriteError) console.log(error.kind, error.runId); }
 */
export class UnsupportedCommitWriteError extends ConfigError {
  readonly runId: string;
  readonly kind: string;

  constructor(runId: string, kind: string, why: string) {
    super(
      `commit: this store cannot make a '${kind}' write atomically with the commit of run ${runId} (${why}); ask store.appliesAtomically(write) first and make it yourself otherwise. Nothing was written.`,
      'unsupported_write',
    );
    this.runId = runId;
    this.kind = kind;
  }
}

/** A serialized snapshot could not be read. */
export class SnapshotError extends CountersignError {
  readonly path: string | undefined;
  readonly supportedVersions: readonly number[];

  constructor(message: string, details: { path?: string; supportedVersions: readonly number[]; cause?: unknown }) {
    super('invalid_snapshot', message, { cause: details.cause });
    this.path = details.path;
    this.supportedVersions = details.supportedVersions;
  }
}

/** The decision names an approval the run never asked for. */
export class UnknownApprovalError extends CountersignError {
  readonly approvalId: string;
  readonly runId: string;

  constructor(runId: string, approvalId: string, pending: readonly string[]) {
    super(
      'unknown_approval',
      `Run ${runId} has no approval ${approvalId}. ` +
        (pending.length > 0 ? `Pending approvals: ${pending.join(', ')}.` : 'It has no pending approvals; load the latest snapshot of the run.'),
    );
    this.runId = runId;
    this.approvalId = approvalId;
  }
}

/** The run is not waiting for a decision (it finished, failed, or was cancelled). */
export class RunNotAwaitingApprovalError extends CountersignError {
  readonly approvalId: string;
  readonly runId: string;
  readonly status: string;

  constructor(runId: string, approvalId: string, status: string) {
    super('run_not_awaiting_approval', `Run ${runId} is ${status}, not awaiting approval, so approval ${approvalId} can no longer be decided.`);
    this.runId = runId;
    this.approvalId = approvalId;
    this.status = status;
  }
}

/** A different decision for this approval was recorded first. */
export class DecisionConflictError extends CountersignError {
  readonly approvalId: string;
  readonly winner: {
    readonly decision: 'approved' | 'denied';
    readonly by?: string;
    readonly at: number;
    readonly scope: 'once' | 'run' | 'session' | 'agent';
    readonly editedArgsDigest?: string;
  };

  constructor(approvalId: string, winner: DecisionConflictError['winner'], message?: string) {
    super(
      'decision_conflict',
      message ??
        `Approval ${approvalId} was already ${winner.decision}${winner.by ? ` by ${winner.by}` : ''} at ` +
          `${new Date(winner.at).toISOString()}; a different decision cannot replace it.`,
    );
    this.approvalId = approvalId;
    this.winner = winner;
  }
}

/**
 * A person voted twice on a quorum request that counts each person once; `winner` is their first vote, which
 * stands. (An identical repeat of one's own vote is not an error: it returns the run unchanged.)
 */
export class DuplicateVoteError extends DecisionConflictError {
  constructor(approvalId: string, first: { readonly by: string; readonly approved: boolean; readonly at: number }) {
    super(
      approvalId,
      { decision: first.approved ? 'approved' : 'denied', by: first.by, at: first.at, scope: 'once' },
      `${first.by} already voted to ${first.approved ? 'approve' : 'deny'} approval ${approvalId} at ${new Date(first.at).toISOString()}; ` +
        'each person votes once on it, and a vote cannot be changed. Ask another approver.',
    );
  }
}

/** The approval expired before the decision arrived. */
export class ApprovalExpiredError extends CountersignError {
  readonly approvalId: string;
  readonly expiresAt: number;
  readonly respondedAt: number;

  constructor(approvalId: string, expiresAt: number, respondedAt: number) {
    super(
      'approval_expired',
      `Approval ${approvalId} expired at ${new Date(expiresAt).toISOString()}; the decision came at ` +
        `${new Date(respondedAt).toISOString()}. Ask the agent again, or configure onExpire: 'keep'.`,
    );
    this.approvalId = approvalId;
    this.expiresAt = expiresAt;
    this.respondedAt = respondedAt;
  }
}

/** Edited arguments do not satisfy the tool's input schema. */
export class InvalidEditError extends CountersignError {
  readonly approvalId: string;
  readonly issues: readonly { path: string; message: string }[];

  constructor(approvalId: string, toolName: string, issues: readonly { path: string; message: string }[]) {
    super(
      'invalid_edit',
      `Edited arguments for approval ${approvalId} do not match the input schema of ${toolName}: ` +
        issues.map((issue) => `${issue.path || '(root)'}: ${issue.message}`).join('; ') +
        '. Send arguments the tool accepts, or approve without editing.',
    );
    this.approvalId = approvalId;
    this.issues = issues;
  }
}

/** The person deciding is not among the approvers the rule or tool names. */
export class ApproverNotAllowedError extends CountersignError {
  readonly approvalId: string;
  readonly approvedBy: string | undefined;

  /** `why`, when given, replaces the list of who is allowed (a quorum's own rules: the requester, who may vote). */
  constructor(approvalId: string, approvedBy: string | undefined, approvers: readonly string[] | undefined, why?: string) {
    super(
      'approver_not_allowed',
      `${approvedBy === undefined ? 'An anonymous approver' : `Approver ${approvedBy}`} may not decide approval ${approvalId}` +
        (why !== undefined ? `: ${why}.` : approvers && approvers.length > 0 ? `; allowed: ${approvers.join(', ')}.` : '.') +
        (approvedBy === undefined ? ' Set approvedBy on the response.' : ''),
    );
    this.approvalId = approvalId;
    this.approvedBy = approvedBy;
  }
}

/** A signed request, response or call does not match its signature. */
export class ApprovalSignatureError extends CountersignError {
  readonly approvalId: string;

  constructor(approvalId: string, detail: string) {
    super('invalid_signature', `Approval ${approvalId}: ${detail}`);
    this.approvalId = approvalId;
  }
}

/**
 * The gate before a tool runs found no signed record that covers the call: no decision of someone allowed to decide
 * it, no quorum of allowed voters, no live grant of someone allowed. Nothing ran; whatever recorded the approval was
 * wrong, so the call is refused rather than trusted.
 */
export class CallNotCoveredError extends CountersignError {
  readonly toolCallId: string;
  readonly approvalId: string | undefined;

  constructor(toolCallId: string, approvalId: string | undefined, detail: string) {
    super('call_not_covered', `Call ${toolCallId}${approvalId === undefined ? '' : ` (approval ${approvalId})`} may not run: ${detail}. Nothing was run.`, { fault: 'library' });
    this.toolCallId = toolCallId;
    this.approvalId = approvalId;
  }
}

/** A grant read from the grant store does not match its signature: it was written or altered outside countersign, and covers nothing. */
export class GrantSignatureError extends CountersignError {
  readonly grantId: string;

  constructor(grantId: string) {
    super(
      'invalid_signature',
      `Grant ${grantId} in the grant store is not signed with this agent's decisionSecret (forged or altered in storage); it was ignored and the call is put to a person. Revoke it with runtime.revokeGrant('${grantId}').`,
    );
    this.grantId = grantId;
  }
}

/**
 * With a `decisionSecret`, a stored rule that is not signed with it (written straight into storage, altered there,
 * or written by a rule store given no or another `decisionSecret`): the agent ignores it.
 *
 * @example
 * const rules = createRedisRuleStore({ redis, prefix: 'myapp:', decisionSecret: process.env.DECISION_SECRET });
 */
export class RuleSignatureError extends CountersignError {
  readonly ruleId: string;

  constructor(ruleId: string) {
    super(
      'invalid_signature',
      `Stored rule ${ruleId} is not signed with this agent's decisionSecret (written or altered in storage, or by a rule store without the same decisionSecret); it is ignored. Give the rule store the agent's decisionSecret and add the rule again through it.`,
    );
    this.ruleId = ruleId;
  }
}

/** A runtime has no agent of this name among its `agents`. */
export class AgentNotFoundError extends CountersignError {
  readonly agentName: string;

  constructor(agentName: string, known: readonly string[]) {
    super(
      'agent_not_found',
      `No agent named ${agentName} is given to this runtime` +
        (known.length > 0 ? ` (known: ${known.join(', ')})` : '') +
        '. Pass it in createRuntime({ agents }) to resume its runs.',
    );
    this.agentName = agentName;
  }
}

/** A snapshot names a tool this agent does not have (anymore). */
export class ToolNotFoundError extends CountersignError {
  readonly toolName: string;

  constructor(toolName: string, agentName: string) {
    super('tool_not_found', `Agent ${agentName} has no tool named ${toolName}; it was removed or renamed since the run paused. Deploy the tool again, or deny the approval.`);
    this.toolName = toolName;
  }
}

/** Another writer changed the run first (compare-and-set lost). */
export class VersionConflictError extends CountersignError {
  readonly runId: string;
  readonly expected: number;
  readonly actual: number | undefined;

  constructor(runId: string, expected: number, actual: number | undefined) {
    super('version_conflict', `Run ${runId} is at version ${actual ?? '(missing)'}, not ${expected}: another writer committed first. Reload and retry.`);
    this.runId = runId;
    this.expected = expected;
    this.actual = actual;
  }
}

/**
 * A start named a run (by its run id, or by an idempotency key) that already exists with another start: another
 * agent, or other input, session, requester or origin. A retry of the same start gets the existing run instead.
 *
 * @example
 * try { await runtime.start('files', { input, runId }); }
 * catch (error) { if (error instanceof RunExistsError) console.log(`${error.runId} is taken by another start`); }
 */
export class RunExistsError extends CountersignError {
  readonly runId: string;

  constructor(runId: string) {
    super(
      'run_exists',
      `Run ${runId} already exists, started with another agent or other input (messages, sessionId, requestedBy or origin); nothing was started. ` +
        'A retry must send the very same start to get the existing run; start a new run with a new run id or idempotency key.',
    );
    this.runId = runId;
  }
}

/** No run with this id is stored. */
export class RunNotFoundError extends CountersignError {
  readonly runId: string;

  constructor(runId: string) {
    super('run_not_found', `No run ${runId} is stored; it never existed or its retention ran out.`);
    this.runId = runId;
  }
}

/** The store could not be reached; the operation may be retried. */
export class StoreUnavailableError extends CountersignError {
  readonly retryable = true;

  constructor(message: string, cause?: unknown) {
    super('store_unavailable', `${message} The operation can be retried.`, { cause, fault: 'environment' });
  }
}

/** A one-click approval link is forged, altered, expired or already used. */
export class LinkTokenError extends CountersignError {
  readonly reason: 'malformed' | 'bad_signature' | 'expired' | 'used';
  /** The run the token names; known only for a genuine token (`used`), since tokens are opaque. */
  readonly runId: string | undefined;
  readonly approvalId: string | undefined;

  constructor(reason: LinkTokenError['reason'], target?: { readonly runId: string; readonly approvalId: string }) {
    super(
      'invalid_link_token',
      {
        malformed: 'This approval link is malformed; open the link exactly as it was sent.',
        bad_signature: 'This approval link is not valid: its signature does not match.',
        expired: 'This approval link has expired; ask for a new one.',
        used: 'This approval link was already used.',
      }[reason],
    );
    this.reason = reason;
    this.runId = target?.runId;
    this.approvalId = target?.approvalId;
  }
}

/**
 * A write's body does not name the run (and approval) its URL names. A
 * Standard Webhooks signature covers only the id, timestamp and body, so a
 * signed body must say where it applies; otherwise a captured delivery could
 * be replayed to another run's URL.
 */
export class TargetMismatchError extends CountersignError {
  readonly runId: string;
  readonly approvalId: string | undefined;
  /** `missing`: a signed body left out its target; `mismatch`: the body names another run or approval. */
  readonly reason: 'missing' | 'mismatch';

  constructor(runId: string, approvalId: string | undefined, reason: 'missing' | 'mismatch') {
    const send = `"runId": ${JSON.stringify(runId)}${approvalId === undefined ? '' : ` and "approvalId": ${JSON.stringify(approvalId)}`}`;
    super(
      'target_mismatch',
      reason === 'missing'
        ? `A signed write must name its target in the signed body: send ${send}. Nothing was done.`
        : `The body names another run or approval than the URL; nothing was done. Send it to the URL of what it names, or send ${send} for this one.`,
    );
    this.runId = runId;
    this.approvalId = approvalId;
    this.reason = reason;
  }
}

/**
 * A value nests too deep to be encoded for a digest or a display copy (for
 * example arguments read back from a store written before calls were limited
 * in depth). Nothing was signed, shown or run with it.
 */
export class ValueTooDeepError extends CountersignError {
  readonly maxDepth: number;
  readonly path: string;

  constructor(what: string, maxDepth: number, path: string) {
    super(
      'value_too_deep',
      `${what} nests deeper than ${maxDepth} levels (at ${path || '(root)'}), so it cannot be encoded safely. ` +
        'Deny or cancel the call it belongs to; arguments that deep are refused as invalid calls.',
    );
    this.maxDepth = maxDepth;
    this.path = path;
  }
}

/**
 * Thrown by a tool whose call was cut off after it may have reached the
 * system it talks to (a dropped connection, a timeout): nobody knows whether
 * it had its effect. A tool that is not `idempotent` is then put to a person
 * again, as after a crash; an idempotent one becomes an error result the
 * model reads.
 *
 * @example
 * execute: async (input, ctx) => {
 *   try { return await remote.call(input, { signal: ctx.signal }); }
 *   catch (error) { if (isConnectionLost(error)) throw new OutcomeUnknownError('the github connector disconnected mid-call', { cause: error }); throw error; }
 * }
 */
export class OutcomeUnknownError extends CountersignError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('outcome_unknown', message, { ...options, fault: 'environment' });
  }
}

/**
 * A tool ran past its `timeoutMs`: its signal fired and the run stopped waiting for it. An idempotent tool's call
 * becomes an error result the model reads (the message); any other is put to a person again, as after a crash,
 * since it may or may not have taken effect.
 *
 * @example
 * if (error instanceof ToolTimeoutError) console.log(error.toolName, error.timeoutMs);
 */
export class ToolTimeoutError extends OutcomeUnknownError {
  readonly toolName: string;
  readonly timeoutMs: number;

  constructor(toolName: string, timeoutMs: number) {
    super(`${toolName} timed out after ${timeoutMs} ms`);
    this.toolName = toolName;
    this.timeoutMs = timeoutMs;
  }
}

/**
 * A connector (an MCP server) could not be reached: the first connection
 * failed, or a call waited for a reconnect that did not come in time. The
 * call was not sent, so nothing happened on the other side.
 *
 * @example
 * try { await connection.callTool('create_issue', { title: 'x' }); }
 * catch (error) { if (error instanceof ConnectorUnavailableError) console.log(error.connector, error.status); }
 */
export class ConnectorUnavailableError extends CountersignError {
  readonly connector: string;
  readonly status: 'connecting' | 'disconnected' | 'failed';

  constructor(connector: string, status: ConnectorUnavailableError['status'], message: string, options: { cause?: unknown } = {}) {
    super('connector_unavailable', message, { ...options, fault: 'environment' });
    this.connector = connector;
    this.status = status;
  }
}
