import type { ApprovalResponse, RunStatus } from '../run/types.js';
import type { GrantState } from '../ports/grant-store.js';
import type { ListPendingOptions, PendingPage } from '../ports/snapshot-store.js';
import type { RunView } from '../http/run-view.js';
import type { RespondMode } from '../runtime/runtime.js';

/** A run as the CLI shows it: the approval app's view, with its turns where the CLI holds the runtime itself. */
export type ShownRun = RunView & { readonly turns?: number; readonly maxTurns?: number };

/** A decision the CLI made, and what became of the run. */
export interface Decided {
  readonly status: RunStatus;
  /** True when an identical decision was already recorded. */
  readonly duplicate: boolean;
  readonly vote?: {
    readonly recorded: boolean;
    readonly approvals: number;
    readonly required: number;
    readonly remaining: number;
  };
  readonly run: RunView;
  /** Where the decided call runs (or that it does not), in the reviewer's words. */
  readonly where: string;
  /** True when the decision was only recorded because the run's tools live in another process, which carries it out. */
  readonly elsewhere: boolean;
}

/**
 * A dismissal: the request closed without a decision (recorded with source `dismissed`, the call does not run). What
 * `countersign dismiss` and review's `d` send, with who and which approval added.
 */
export const DISMISSAL = { approved: false, dismissed: true } as const satisfies Pick<
  ApprovalResponse,
  'approved' | 'dismissed'
>;

/**
 * What the CLI's commands read and decide through: a runtime loaded in the CLI's own process (`--runtime`), or a
 * running approval app over HTTP (`--url`, `--token`). Both answer in the approval app's terms (`RunView`).
 */
export interface Approvals {
  pending(options: ListPendingOptions): Promise<PendingPage>;
  get(runId: string): Promise<ShownRun>;
  respond(runId: string, response: ApprovalResponse, mode: RespondMode | undefined): Promise<Decided>;
  grants(options: { readonly sessionId?: string; readonly agent?: string }): Promise<readonly GrantState[]>;
  revokeGrant(grantId: string): Promise<boolean>;
  clearSession(sessionId: string): Promise<number>;
  cancel(runId: string, reason: string): Promise<ShownRun>;
}
