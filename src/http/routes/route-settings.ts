import type { MiddlewareHandler } from 'hono';
import type { Runtime, ResumeMode } from '../../index.js';
import type { AppEnv } from '../app-env.js';
import type { DecisionIdentity } from '../decided-as.js';

/**
 * What went wrong where, for `onError`.
 *
 * @example
 * createApprovalApp(runtime, {
 *   bearerToken,
 *   onError: (error, { operation, runId }) => logger.error({ err: error, operation, runId }, 'approval app'),
 * });
 */
export interface ApprovalAppErrorContext {
  /** `request` (an unexpected error answered with 500), `resume`/`start` (a run that went on after a 202 failed later), `events`, `webhook-dedupe`. */
  readonly operation: string;
  readonly runId?: string;
  readonly method?: string;
  readonly path?: string;
}

/** What every route module of the approval app is given: the runtime, how a recorded run goes on, its guards and where errors go. */
export interface RouteSettings {
  readonly runtime: Runtime;
  /** Where a decided (or started) run goes on: here before answering, on a worker through the runtime's queue, or in another process following it. */
  readonly resumeMode: ResumeMode;
  /** How long a recorded run goes on here before the answer is 202. */
  readonly resumeTimeoutMs: number;
  /** Guards of the routes that read: a bearer token, or a console session signed in with it. */
  readonly read: MiddlewareHandler<AppEnv>;
  /** Guards of the reads of what an inbox shows (the pending approvals and their events): `read`'s, or any console session. */
  readonly readPending: MiddlewareHandler<AppEnv>;
  /** Guards of the routes that write: a bearer token or a Standard Webhooks signature, the body read, the webhook-id claimed. */
  readonly write: readonly [MiddlewareHandler<AppEnv>, MiddlewareHandler<AppEnv>];
  /**
   * Guards of a single decision: `write`'s, except that where the decision is enqueued on a store that claims in its
   * commit (with the runtime's `once` its own), a signed delivery's webhook-id is claimed by the decision's commit.
   */
  readonly decide: readonly [MiddlewareHandler<AppEnv>, MiddlewareHandler<AppEnv>];
  /** True when `decide` leaves the webhook-id to the decision's commit (`delivery.claimWith`). */
  readonly claimedByCommit: boolean;
  /** Who decisions sent to the API are recorded as (personal tokens, the shared token). */
  readonly identity: DecisionIdentity;
  /** `onError`, never throwing. */
  readonly report: (error: unknown, context: ApprovalAppErrorContext) => void;
}
