// Reminders and escalations of a waiting request, as pure functions of the request and the sweeper's clock: when
// the next one is due, the request after the due ones were made (its history extended and signed), and who may
// decide it now.
import { canonicalJson, hmac, safeEqual } from '../run/digest.js';
import { SIGNATURE_V2 } from '../decisions/decision-signature.js';
import { type RunIdentity, signedIdentity } from '../run/run-identity.js';
import type { Agent } from '../agent/agent-types.js';
import type { AgentEvent } from '../machine/agent-machine.js';
import { stepAll } from '../machine/step.js';
import { liftedRequests } from '../run/child-requests.js';
import type { ApprovalRequest, RequestHistory } from '../run/types.js';
import type { AgentSnapshot } from '../run/agent-snapshot.js';

const EMPTY: RequestHistory = { reminders: 0, escalations: [] };

/**
 * The HMAC over a request's history: the run, the request's own signature (so a history cannot be moved to
 * another request) and every field of the history.
 */
export function signHistory(
  secret: string,
  request: ApprovalRequest,
  history: RequestHistory,
  run: RunIdentity,
): string {
  const { signature: _signature, ...fields } = history;
  return `${SIGNATURE_V2}${hmac(secret, ['countersign.history.v1', canonicalJson({ ...signedIdentity(run), approvalId: request.approvalId, request: request.signature ?? '', history: fields })])}`;
}

/** True when the request's history is absent, or signed by `secret` for this run (always true without a secret). */
export function historyVerifies(secret: string | undefined, request: ApprovalRequest, run: RunIdentity): boolean {
  if (secret === undefined || request.history === undefined) return true;
  return (
    request.history.signature !== undefined &&
    safeEqual(request.history.signature, signHistory(secret, request, request.history, run))
  );
}

/** When the request's next reminder is due; undefined when it has no `remindAfterMs`. */
function nextReminderAt(request: ApprovalRequest): number | undefined {
  if (request.remindAfterMs === undefined) return undefined;
  return (request.history?.lastRemindedAt ?? request.requestedAt) + request.remindAfterMs;
}

/** When the request's next escalation step is due; undefined when every step was made (or there are none). */
function nextEscalationAt(request: ApprovalRequest): number | undefined {
  const step = request.escalate?.[request.history?.escalations.length ?? 0];
  return step === undefined ? undefined : request.requestedAt + step.afterMs;
}

/** When the next reminder or escalation of `request` is due; undefined when none will ever be. */
export function nextNudgeAt(request: ApprovalRequest): number | undefined {
  const reminder = nextReminderAt(request);
  const escalation = nextEscalationAt(request);
  if (reminder === undefined) return escalation;
  return escalation === undefined ? reminder : Math.min(reminder, escalation);
}

/** When the soonest nudge of any of the run's pending requests is due; undefined when none is, or the run is not waiting. */
export function runNextNudgeAt(snapshot: Pick<AgentSnapshot, 'status' | 'pendingApprovals'>): number | undefined {
  if (snapshot.status !== 'awaitingApproval') return undefined;
  let soonest: number | undefined;
  for (const request of snapshot.pendingApprovals) {
    const at = nextNudgeAt(request);
    if (at !== undefined && (soonest === undefined || at < soonest)) soonest = at;
  }
  return soonest;
}

/**
 * `request` with the nudges due at `now` made: one reminder however many intervals passed (the next is
 * `remindAfterMs` after this one), and every escalation step whose time has come, in order; the history signed with
 * `secret`. Undefined when nothing is due, or when the request's stored history does not verify (a forged one is
 * never extended and signed as if it were the sweeper's own).
 */
export function nudgedRequest(
  request: ApprovalRequest,
  now: number,
  run: RunIdentity,
  secret: string | undefined,
): ApprovalRequest | undefined {
  if (!historyVerifies(secret, request, run)) return undefined;
  const before = request.history ?? EMPTY;
  const reminderAt = nextReminderAt(request);
  const remind = reminderAt !== undefined && reminderAt <= now;
  const escalations = [...before.escalations];
  for (
    let step = request.escalate?.[escalations.length];
    step !== undefined && request.requestedAt + step.afterMs <= now;
    step = request.escalate?.[escalations.length]
  ) {
    escalations.push({ at: now, to: step.to });
  }
  if (!remind && escalations.length === before.escalations.length) return undefined;
  const history: RequestHistory = {
    reminders: before.reminders + (remind ? 1 : 0),
    ...(remind
      ? { lastRemindedAt: now }
      : before.lastRemindedAt === undefined
        ? {}
        : { lastRemindedAt: before.lastRemindedAt }),
    escalations,
  };
  return {
    ...request,
    history: secret === undefined ? history : { ...history, signature: signHistory(secret, request, history, run) },
  };
}

/** The request's history as its audit entry keeps it (without the signature, which the entry's own covers), spread into the entry; `{}` when it has none. */
export function historyOf(request: Pick<ApprovalRequest, 'history'>): {
  readonly history?: Omit<RequestHistory, 'signature'>;
} {
  if (request.history === undefined) return {};
  const { signature: _signature, ...history } = request.history;
  return { history };
}

/**
 * The run's pending requests with the nudges due at `now` made (only those that changed), and how many reminders
 * and escalations that is: what the sweeper commits with a `NUDGED` step.
 */
export function nudgedRequests(
  snapshot: AgentSnapshot,
  now: number,
  secret: string | undefined,
): { readonly requests: readonly ApprovalRequest[]; readonly reminded: number; readonly escalated: number } {
  const requests: ApprovalRequest[] = [];
  let reminded = 0;
  let escalated = 0;
  if (snapshot.status !== 'awaitingApproval') return { requests, reminded, escalated };
  for (const request of snapshot.pendingApprovals) {
    // A sub-agent's request (listed with its path) is nudged in the sub-agent's own run: see nudgeEvents.
    if (request.path !== undefined) continue;
    const nudged = nudgedRequest(request, now, snapshot, secret);
    if (nudged === undefined) continue;
    requests.push(nudged);
    reminded += nudged.history!.reminders - (request.history?.reminders ?? 0);
    escalated += nudged.history!.escalations.length - (request.history?.escalations.length ?? 0);
  }
  return { requests, reminded, escalated };
}

/**
 * The steps that make the nudges due at `now` in a run and in the sub-agent runs its delegate calls wait on
 * (`agentAsTool`), each in its own run and signed with its own agent's secret, and how many reminders and escalations
 * that is. Empty when nothing is due.
 * @internal the runtime's sweep commits these.
 */
export function nudgeEvents(
  agent: Agent,
  snapshot: AgentSnapshot,
  now: number,
): { readonly events: readonly AgentEvent[]; readonly reminded: number; readonly escalated: number } {
  const events: AgentEvent[] = [];
  let reminded = 0;
  let escalated = 0;
  if (snapshot.status !== 'awaitingApproval') return { events, reminded, escalated };
  for (const record of snapshot.toolCalls) {
    const child = record.child as AgentSnapshot | undefined;
    const childAgent = child === undefined ? undefined : agent.settings.childAgent(record.toolName);
    if (child === undefined || childAgent === undefined) continue;
    const own = nudgeEvents(childAgent, child, now);
    if (own.events.length === 0) continue;
    const after = stepAll(child, own.events);
    events.push({
      type: 'CHILD_UPDATED',
      at: now,
      toolCallId: record.toolCallId,
      child: after,
      requests: liftedRequests(record, after),
    });
    reminded += own.reminded;
    escalated += own.escalated;
  }
  const nudged = nudgedRequests(snapshot, now, agent.settings.decisionSecret);
  if (nudged.requests.length > 0) events.push({ type: 'NUDGED', at: now, requests: nudged.requests });
  return { events, reminded: reminded + nudged.reminded, escalated: escalated + nudged.escalated };
}
