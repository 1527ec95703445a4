// `runtime.respond`: a decision recorded exactly once with the ledger's compare-and-set (a repeat finds it and
// answers as a duplicate), a grant it makes recorded, then the run carried on as the mode says.
import type { Agent } from '../agent/agent-types.js';
import type { ApprovalResponse } from '../run/types.js';
import type { AgentSnapshot } from '../run/agent-snapshot.js';
import { withApprovalResponse } from '../decisions/with-approval-response.js';
import { voteProgress } from '../policy/quorum.js';
import type { Carrier } from './carry-on.js';
import type { Ledger, OptionsFor } from './ledger.js';
import type { RespondOptions, RespondResult } from './runtime.js';

// Voters on one quorum request contend by design: with 20 at once a voter can lose 19 rounds before it lands.
const VOTE_RETRIES = 60;

export interface RespondSettings {
  readonly ledger: Ledger;
  readonly carrier: Carrier;
  readonly maxRetries: number;
  agentNamed(name: string): Agent;
  /** Records the grant a session or agent decision makes (after the commit, and on a repeat too). */
  recordDecision(next: AgentSnapshot, approvalId: string): Promise<unknown>;
}

export function respondOperation(settings: RespondSettings) {
  const { ledger, carrier, maxRetries } = settings;
  const { store } = ledger;

  const withDecision = (current: AgentSnapshot, response: ApprovalResponse): AgentSnapshot => {
    const agent = settings.agentNamed(current.agentName);
    return withApprovalResponse(current, response, { agent });
  };

  return async function respond(
    runId: string,
    response: ApprovalResponse,
    respondOptions: RespondOptions = {},
  ): Promise<RespondResult> {
    const mode = carrier.modeOf(respondOptions.mode, 'respond');
    const queue = carrier.queueFor(mode, 'respond');
    // A decision that makes the run ready asks the store to queue it in the same write, where it can (one round trip).
    const enqueue = queue === undefined ? undefined : ({ kind: 'enqueue', queue } as const);
    const queuesInCommit = enqueue !== undefined && store.appliesAtomically?.(enqueue) === true;
    let queued = false;
    const optionsFor: OptionsFor = (next) => {
      queued = queuesInCommit && next.status === 'running';
      const writes = [...(queued ? [enqueue!] : []), ...(respondOptions.writes?.(next) ?? [])];
      return writes.length === 0 ? undefined : { writes };
    };
    const { next, committed, receipt } = await ledger.update(
      runId,
      (current) => {
        const decided = withDecision(current, response);
        return decided === current ? { unchanged: undefined } : { next: decided, result: undefined };
      },
      optionsFor,
      // Voters on one request are expected to collide: each round of the compare-and-set lands one of them.
      (current) =>
        current.pendingApprovals.find((request) => request.approvalId === response.approvalId)?.quorum !== undefined
          ? Math.max(maxRetries, VOTE_RETRIES)
          : maxRetries,
    );
    const progress = voteProgress(next, response.approvalId);
    const vote =
      progress === undefined
        ? {}
        : {
            vote: {
              recorded: committed,
              approvals: progress.approvals,
              required: progress.required,
              remaining: progress.remaining,
            },
          };
    if (receipt.held !== undefined)
      return { snapshot: next, status: next.status, duplicate: false, held: receipt.held, ...vote };
    // After the commit, and on a repeat too (the first responder may have failed between the two): a session or agent
    // decision's grant covers calls from now on, even in mode 'record' where nothing resumes the run here.
    await settings.recordDecision(next, response.approvalId);
    const after = committed ? await carrier.carryOn(next, mode, queued) : await carrier.carryOnRepeat(next, mode);
    return {
      snapshot: after,
      status: after.status,
      duplicate: !committed,
      ...(receipt.replaced ? { replaced: true } : {}),
      ...vote,
    };
  };
}
