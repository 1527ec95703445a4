import type { ConnectorState } from './connector-statuses.js';
import type { Agent } from '../agent/agent-types.js';
import type { RunEvent } from '../run/run-events.js';
import type { ApprovalLinkService } from '../links/link-service.js';
import type { ApprovalLinkTokens, LinkClaim } from '../links/approval-links.js';
import type { ExecuteInput } from '../loop/execute-input.js';
import type { OnceStore } from '../ports/once-store.js';
import type { GrantState } from '../ports/grant-store.js';
import type { ListGrantsOptions } from './runtime-grants.js';
import type { ResumeQueue } from '../ports/resume-queue.js';
import type {
  CommitWrite,
  ListPendingOptions,
  PendingApprovalEntry,
  PendingPage,
  SnapshotStore,
} from '../ports/snapshot-store.js';
import type { ApprovalResponse, RunStatus } from '../run/types.js';
import type { Answer } from '../run/question.js';
import type { AgentSnapshot } from '../run/agent-snapshot.js';
import type { NewApprovalRequest } from '../decisions/new-approval-request.js';
import type { AnnounceReport } from './announce-pending.js';
import type { z } from 'zod';
import type { ApprovalAsk, InputAsk } from '../requests/approval-ask.js';
import type { Telemetry } from '../ports/telemetry.js';
import type { RequestHandle } from '../requests/request-handle.js';
import type { ReceiptKeySet } from './receipts/receipt-keys.js';
import type { PersonTokens } from './person-tokens/person-tokens.js';

/** How `respond` (or `start`) carries on after recording a decision (or a new run). */
export type RespondMode =
  /** Record, then resume the run here and return once it pauses or ends (default). */
  | 'inline'
  /** Record only; resume later with `runtime.resume(runId)`. */
  | 'record'
  /** Record and put a resume job on the worker queue (checked before anything is recorded). */
  | 'enqueue';

/**
 * Options of `runtime.start`.
 *
 * @example
 * const options: StartOptions = { mode: 'enqueue', idempotencyKey: request.headers.get('idempotency-key') ?? undefined };
 * await runtime.start('files', { input: 'remove /tmp/x' }, options);
 */
export interface StartOptions {
  readonly mode?: RespondMode;
  /**
   * Makes a start without a run id idempotent: every start with this key names the same run (its id derived from
   * the key), so a retry after a failed or lost answer gets the run the first attempt made, never a second one. The
   * same start again returns that run (carried on if nothing is at it); another start with the key throws
   * `RunExistsError`. Not together with `input.runId`, which does the same by itself.
   */
  readonly idempotencyKey?: string;
}

/** A page of a reviewer's inbox. */
export interface InboxPage {
  readonly reviewer: string;
  readonly expiresAt: number;
  readonly items: readonly (PendingApprovalEntry & {
    /** False when the request names approvers and the reviewer is not one of them. */
    readonly mayDecide: boolean;
    /** The one-click tokens of this approval, minted for the reviewer. */
    readonly tokens: ApprovalLinkTokens;
  })[];
  readonly cursor?: string;
}

export interface RespondResult {
  /** The run after the decision (and after the resume, in `inline` mode). */
  readonly snapshot: AgentSnapshot;
  readonly status: RunStatus;
  /** True when an identical decision was already recorded; nothing was done again. */
  readonly duplicate: boolean;
  /** True when the decision's commit also set the key of a `replaceIf` or `putIfAbsent` of `RespondOptions.writes` (in the same write). */
  readonly replaced?: boolean;
  /** What the key of a `putIfAbsent` of `RespondOptions.writes` already held: nothing was written, and `snapshot` is the run as found. */
  readonly held?: string;
  /**
   * On a request several people must approve: whether this response recorded a vote (false for a repeat of one's own
   * vote), the approvals so far, how many the quorum needs, and how many more (0 once it is settled).
   */
  readonly vote?: {
    readonly recorded: boolean;
    readonly approvals: number;
    readonly required: number;
    readonly remaining: number;
  };
}

/**
 * Options of `respond`.
 *
 * @example
 * const options: RespondOptions = { mode: 'enqueue' };
 * await runtime.respond(runId, { approvalId, approved: true, approvedBy: 'alice' }, options);
 */
export interface RespondOptions {
  readonly mode?: RespondMode;
  /**
   * Writes the decision's commit also makes, in the same atomic step (one round trip for all), computed from the run
   * as it would be committed; a decision with nothing to commit (a duplicate) makes none. Each must be one the store
   * `appliesAtomically`, or the commit is refused with `UnsupportedCommitWriteError` before anything is recorded.
   * A `putIfAbsent` whose key is held stops the commit (the result says `held`); a `replaceIf` made says `replaced`.
   * Used by the HTTP app to claim or settle a webhook-id with its answer in the decision's own write.
   */
  readonly writes?: (next: AgentSnapshot) => readonly CommitWrite[];
}

/**
 * Options of `runtime.decide` (and `decideWithLink`): where the run goes on once the decision is recorded.
 *
 * @example
 * const options: RuntimeDecideOptions = { mode: 'inline', waitMs: 5_000, onLateError: (error, runId) => log.error({ error, runId }) };
 * await runtime.decide(runId, { approvalId, approved: true, approvedBy: 'alice' }, options);
 */
export interface RuntimeDecideOptions {
  /**
   * `'inline'` (default): recorded, then the run goes on here for up to `waitMs`; `'enqueue'`: recorded with a job
   * for a worker in the same write where the store can; `'record'`: recorded only, for the process that follows the run.
   */
  readonly mode?: RespondMode;
  /** How long the run goes on here before the outcome says it is still going (inline only). Default 10,000 ms. */
  readonly waitMs?: number;
  /** A run that went on here past `waitMs` and failed later. Default: the runtime's `onError` (operation `resume`). */
  readonly onLateError?: (error: unknown, runId: string) => void;
  /** Writes the decision's commit also makes atomically: see `RespondOptions.writes`. */
  readonly writes?: RespondOptions['writes'];
}

/**
 * What `runtime.decide` did, beside what was recorded (`RespondResult`): `outcome` is
 * - `'current'`: `snapshot` is the run as it stands now: waiting for more decisions or votes, ended, a repeat's
 *   run, or the run after it went on here and paused or ended within `waitMs`;
 * - `'continuing'`: the decision made the run ready and it is still going: `here` (past `waitMs`, unwatched), on a
 *   `worker` (queued), or `elsewhere` (mode `'record'`: the process that follows the run carries it on);
 * - `'held'`: a `putIfAbsent` write found its key held: nothing was recorded (`held` is what the key holds).
 *
 * @example
 * const result: DecideResult = await runtime.decide(runId, response, { mode: 'inline', waitMs: 2_000 });
 * if (result.outcome === 'continuing') console.log(`still running ${result.where}`);
 * else console.log(result.status, result.duplicate, result.vote?.remaining);
 */
export type DecideResult = RespondResult & DecideOutcome;

/** How a decided run stands: see `DecideResult`. */
export type DecideOutcome =
  | { readonly outcome: 'current' }
  | { readonly outcome: 'continuing'; readonly where: 'here' | 'worker' | 'elsewhere' }
  | { readonly outcome: 'held'; readonly held: string };

/** What `respondWithLink` answers: the outcome, and which run and approval the (opaque) token named. */
export interface LinkRespondResult extends RespondResult {
  readonly runId: string;
  readonly approvalId: string;
}

/**
 * Agents plus a store: starts runs, records decisions exactly once, resumes
 * runs, expires and recovers them.
 */
export interface Runtime {
  readonly store: SnapshotStore;
  /** Where webhook ids, spent links and chat button ids are kept once (`RuntimeOptions.once`). */
  readonly once: OnceStore;
  /** Where traces and metrics go (`RuntimeOptions.telemetry`); absent when the runtime was made without. */
  readonly telemetry?: Telemetry;
  /** Where mode `'enqueue'` puts resume jobs; absent when the runtime was made without one. */
  readonly queue?: ResumeQueue;
  /** The public keys decision receipts are checked with (`RuntimeOptions.receipts`); absent without receipts. */
  readonly receiptKeys?: ReceiptKeySet;
  /** Personal API tokens: issue, check, list, revoke (`RuntimeOptions.personTokens`); absent without a token store. */
  readonly personTokens?: PersonTokens;
  agent(name: string): Agent;
  /**
   * Starts a run: records it first, then runs it here until it pauses or ends (`'inline'`, default), stops there
   * (`'record'`: resume with `runtime.resume(runId)`), or queues it for a worker (`'enqueue'`). Idempotent by run
   * id (`input.runId`, or `options.idempotencyKey`): the same start again returns the run the first made, carried
   * on if nothing is at it; a different start for a taken id throws `RunExistsError`.
   */
  start(agentName: string, input: ExecuteInput, options?: StartOptions): Promise<AgentSnapshot>;
  /** Throws `RunNotFoundError` for an unknown run. */
  get(runId: string): Promise<AgentSnapshot>;
  respond(runId: string, response: ApprovalResponse, options?: RespondOptions): Promise<RespondResult>;
  /**
   * Adds a request to a run waiting for people, from outside the model's turn (`withApprovalRequest` with the run's
   * agent, committed with the store's compare-and-set, announced like any new request). A resend of the same call
   * (same `toolCallId`, tool and arguments, still pending or decided) returns the run and adds nothing; refusals are
   * `withApprovalRequest`'s.
   */
  addRequest(runId: string, request: NewApprovalRequest): Promise<AgentSnapshot>;
  /**
   * Asks a person about an action of a caller outside the agent loop (a script, a workflow step, a coding agent's
   * hook): a request that goes through the request policy (`RuntimeOptions.requests`: rules may allow or deny it at
   * once), grants, quorum, reminders, channels, links, console and audit like a call from an agent's run. It is listed
   * by `pending()` and decided by `respond`/`decide` like any other, on any surface. Resolves, once the request is
   * recorded (and announced, when it asks), to a handle to wait for the decision. With `key`, a retried ask returns
   * the same request; another ask with the key throws `RunExistsError`.
   *
   * @example
   * const handle = await runtime.requestApproval({ tool: 'deploy', args: { service: 'billing' }, key: 'deploy-48' });
   * const state = await handle.wait({ timeoutMs: 15 * 60_000 });
   * if (state.status === 'approved') await deploy(state.args);
   */
  requestApproval(ask: ApprovalAsk): Promise<RequestHandle>;
  /**
   * Asks a person a question with a typed answer (`InputAsk`): a request like `requestApproval`'s whose approval
   * carries the answer (`ApprovalResponse.answer`, checked against the form where it arrives and where it is
   * recorded); `handle.wait()` resolves with it, parsed by `ask.answer`. A denial declines to answer. No rule or grant
   * answers a question; a rule may still deny it.
   *
   * @example
   * const handle = await runtime.requestInput({
   *   question: 'Which region should the new cluster run in?',
   *   answer: z.object({ region: z.enum(['eu-west-1', 'us-east-1']), note: z.string().optional() }),
   * });
   * const state = await handle.wait();
   * if (state.status === 'approved') createCluster(state.answer!.region);
   */
  requestInput<A extends z.ZodObject>(ask: InputAsk<A>): Promise<RequestHandle<z.output<A>>>;
  /** The handle of a request made with `requestApproval`, by its id, in any process on the store. */
  approvalRequest(id: string): RequestHandle;
  /**
   * Announces again every request still waiting in the store, each once across every process (see
   * `RuntimeOptions.announcePendingOnStart`, which calls it when the runtime is made); a call while a pass is under
   * way returns that pass. Failures go to `onError` (operation `announce`).
   */
  announcePending(): Promise<AnnounceReport>;
  /**
   * Records a decision, then carries the run on as `options.mode` says: here for up to `waitMs` (`'inline'`,
   * default), on a worker (`'enqueue'`), or in the process that follows the run (`'record'`). The one decision
   * path of every surface (HTTP, console, links, chat buttons): the decision is recorded before anything else, a
   * failure to record is thrown, and the outcome says how the run stands.
   *
   * @example
   * const result = await runtime.decide(runId, { approvalId, approved: true, approvedBy: 'alice' }, { waitMs: 5_000 });
   * if (result.outcome === 'continuing') return { status: 202, runId };
   * return { status: 200, run: result.snapshot, duplicate: result.duplicate };
   */
  decide(runId: string, response: ApprovalResponse, options?: RuntimeDecideOptions): Promise<DecideResult>;
  /** Resumes a run whose decisions are all recorded; returns it unchanged if it is not ready. */
  resume(runId: string): Promise<AgentSnapshot>;
  pending(options?: ListPendingOptions): Promise<PendingPage>;
  cancel(runId: string, reason?: string): Promise<AgentSnapshot>;
  /**
   * Applies `onExpire` to every expired request, then sends the reminders and escalations that are due
   * (`remindAfterMs`, `escalate`); each exactly once even with several sweepers (the commit that lands first makes
   * it, and only that commit's events are published). `runs` and `expired` count expiries, `reminded` and
   * `escalated` the nudges made.
   * A run that fails to go on is reported to `onError` (operation `sweep`) and counted in `failed`; the sweep goes on.
   */
  sweepExpired(now?: number): Promise<{
    readonly runs: number;
    readonly expired: number;
    readonly reminded: number;
    readonly escalated: number;
    readonly failed: number;
  }>;
  /**
   * Finishes or hands back to a person every run a dead process left behind.
   * A run whose resume throws is reported to `onError` (operation `recover`) and counted in `failed`; the pass goes on.
   */
  recover(): Promise<{ readonly resumed: number; readonly askedAgain: number; readonly failed: number }>;
  /**
   * Events of the commits this runtime makes, as they land, and the `model-delta` events of the streaming models
   * it runs, as they come (best-effort: a delta is no state, so it is not stored and not replayed to a listener
   * that subscribes later). Returns a function that unsubscribes.
   */
  subscribe(listener: (event: RunEvent) => void): () => void;
  /**
   * The live grants (not revoked, expired or used up) of the runtime's agents, from their grant stores: of one
   * session, one agent, or all.
   */
  grants(options?: ListGrantsOptions): Promise<readonly GrantState[]>;
  /** Revokes a grant at once: the next call it would have covered is asked about again. False when no live grant has that id. */
  revokeGrant(grantId: string): Promise<boolean>;
  /** Revokes every grant of a session (approvals and denials); returns how many. */
  clearSession(sessionId: string): Promise<number>;
  /** The connectors this runtime's agents use (tools with a `connectorStatus`, such as MCP tools) and their status now. */
  connectors(): readonly ConnectorState[];
}

/**
 * A runtime made with `links`: it mints and spends one-click tokens. Chat and
 * email channels take one of these, so a runtime without links is a type
 * error where a channel is created, not a failure at the first approval.
 *
 * @example
 * const runtime: LinkedRuntime = createRuntime({ agents: [agent], store, links: { secret: process.env.LINK_SECRET! } });
 * const { approve, deny } = await runtime.linkTokens(runId, approvalId);
 */
export interface LinkedRuntime extends Runtime {
  /** Mints and verifies tokens without reading the store (`createApprovalLinks`). */
  readonly links: ApprovalLinkService;
  /**
   * The one-click tokens of a pending approval (approve, approve for the run, deny; each only when the request offers
   * it), valid until the earlier of `expiresIn` (default `links.expiresInMs`, 24 h) and the approval's own expiry.
   * Throws `UnknownApprovalError` when it is no longer pending. Build URLs with `approvalLinkUrl(baseUrl, token)`.
   */
  linkTokens(
    runId: string,
    approvalId: string,
    options?: { expiresIn?: number; approvedBy?: string },
  ): Promise<ApprovalLinkTokens>;
  /**
   * Spends a one-click link token once and records its decision; throws `LinkTokenError` when it is forged, expired or used.
   * `approvedBy` names who used it (e.g. `slack:U123`) when the token was minted without one; a token's own `approvedBy` wins.
   * `reason` is the denier's own words (a deny token only). `answer` answers a question (`request.question`) with its
   * approve token, checked against the form like `ApprovalResponse.answer`; the token is spent only once it is recorded.
   */
  respondWithLink(
    token: string,
    options?: { mode?: RespondMode; approvedBy?: string; reason?: string; answer?: Answer },
  ): Promise<LinkRespondResult>;
  /**
   * Spends a one-click link token and records its decision (as `respondWithLink`), then carries the run on as
   * `runtime.decide` does.
   *
   * @example
   * const result = await runtime.decideWithLink(token, { mode: 'inline', waitMs: 2_000, approvedBy: 'slack:U123' });
   * const carryingOn = result.outcome === 'continuing' && result.where !== 'worker';
   */
  decideWithLink(
    token: string,
    options?: Omit<RuntimeDecideOptions, 'writes'> & { approvedBy?: string; reason?: string; answer?: Answer },
  ): Promise<LinkRespondResult & DecideResult>;
  /** Checks a one-click link token without spending it and returns what it grants and the run it names (for a confirmation page); throws `LinkTokenError` when it is forged or expired. */
  inspectLink(token: string): Promise<{ readonly claim: LinkClaim; readonly snapshot: AgentSnapshot }>;
  /** A reviewer's inbox token (for `inboxUrl(baseUrl, token)`): every pending approval, decided as `reviewer`, until it expires (8 hours by default). */
  inboxToken(
    reviewer: string,
    options?: { expiresIn?: number },
  ): Promise<{ readonly token: string; readonly expiresAt: number }>;
  /** What an inbox token shows: a page of pending approvals, each with its tokens for the reviewer. Throws `LinkTokenError`. */
  reviewInbox(token: string, options?: ListPendingOptions): Promise<InboxPage>;
}
