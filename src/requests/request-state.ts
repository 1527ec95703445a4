// Where a request from a caller outside the agent loop stands, read from its run: waiting for a person, or decided
// (approved with the arguments to use, denied, expired, dismissed), cancelled, or failed.
import type { AgentSnapshot } from '../run/agent-snapshot.js';
import { callOfId } from '../run/current-tool-calls.js';
import type { ApprovalRequest, AuditEntry, DecisionScope, DecisionSource } from '../run/types.js';
import type { Answer } from '../run/question.js';
import { decisionOutcome } from '../run/decision-outcome.js';
import type { CallAsk } from '../policy/call-ask.js';
import { oneCallOf } from './one-call-model.js';
import { REQUEST_CALL_ID } from './request-agent.js';

/**
 * Where a request stands (`handle.status()`, `handle.wait()`): `'pending'` while nobody has decided (then
 * `request` is what the person sees), else how it ended. `approved` is true only for `'approved'`, and then `args`
 * are the arguments to act on: the person's edit when they edited them.
 *
 * @example
 * const state: RequestState = await handle.wait({ timeoutMs: 60_000 });
 * if (state.status === 'approved') await deploy(state.args);
 * else if (state.status !== 'pending') console.log(`not deployed: ${state.status} ${state.reason ?? ''}`);
 */
export type RequestState<A = Answer> = PendingRequest | RequestOutcome<A>;

/** A request nobody has decided yet. */
export interface PendingRequest {
  readonly status: 'pending';
  readonly id: string;
  readonly approved: false;
  /** What the person is asked (absent for the moment between the request's start and its first commit). */
  readonly request?: ApprovalRequest;
}

/** How a request ended. */
export interface RequestOutcome<A = Answer> {
  readonly status: 'approved' | 'denied' | 'expired' | 'dismissed' | 'cancelled' | 'failed';
  readonly id: string;
  readonly approved: boolean;
  /** On an approval: the arguments to act on (the person's edit, if any). */
  readonly args?: { readonly [key: string]: unknown };
  /** On an answered question (`requestInput`): the person's answer. */
  readonly answer?: A;
  /** Who decided (a person, or whoever gave the grant or memory that did). */
  readonly by?: string;
  /** What decided: a person, a rule, a grant, expiry, a dismissal. Absent for a cancel or a failure. */
  readonly source?: DecisionSource;
  readonly reason?: string;
  /** When, by the runtime's clock. */
  readonly at: number;
  readonly scope?: DecisionScope;
  readonly approvalId?: string;
  readonly ruleId?: string;
  /** The decision's signature, as the audit keeps it, when the request policy has a `decisionSecret`. */
  readonly signature?: string;
}

/** The state of the request whose run is `snapshot`. */
export function requestStateOf(snapshot: AgentSnapshot): RequestState {
  const id = snapshot.runId;
  const entry = snapshot.audit.find((item) => item.toolCallId === REQUEST_CALL_ID);
  if (entry !== undefined) return decided(snapshot, entry);
  if (snapshot.status === 'cancelled')
    return { status: 'cancelled', id, approved: false, at: snapshot.updatedAt, ...reasonOf(snapshot) };
  if (snapshot.status === 'completed' || snapshot.status === 'failed')
    return { status: 'failed', id, approved: false, at: snapshot.updatedAt, ...reasonOf(snapshot) };
  const request = snapshot.pendingApprovals.find((item) => item.toolCallId === REQUEST_CALL_ID);
  return { status: 'pending', id, approved: false, ...(request === undefined ? {} : { request }) };
}

function reasonOf(snapshot: AgentSnapshot): { reason?: string } {
  const reason = snapshot.error?.message ?? toolMessage(snapshot)?.content;
  return reason === undefined || reason === '' ? {} : { reason };
}

function decided(snapshot: AgentSnapshot, entry: AuditEntry): RequestOutcome {
  const approved = entry.decision === 'approved';
  const status = decisionOutcome(entry);
  return {
    status,
    id: snapshot.runId,
    approved,
    ...(approved ? approvedTerms(snapshot) : {}),
    source: entry.source,
    at: entry.at,
    scope: entry.scope,
    ...(entry.by === undefined ? {} : { by: entry.by }),
    ...(entry.reason === undefined ? {} : { reason: entry.reason }),
    ...(entry.approvalId === undefined ? {} : { approvalId: entry.approvalId }),
    ...(entry.ruleId === undefined ? {} : { ruleId: entry.ruleId }),
    ...(entry.signature === undefined ? {} : { signature: entry.signature }),
  };
}

function toolMessage(snapshot: AgentSnapshot) {
  return snapshot.messages.find((message) => message.role === 'tool' && message.toolCallId === REQUEST_CALL_ID);
}

type Args = { readonly [key: string]: unknown };

/** Whether the request is a question (`requestInput`), as its run's input says. */
function isQuestion(snapshot: AgentSnapshot): boolean {
  return (oneCallOf(snapshot.messages) as { readonly ask?: CallAsk }).ask?.question !== undefined;
}

/** What an approval hands back: the arguments, and on a question the answer apart from them. */
function approvedTerms(snapshot: AgentSnapshot): { args: Args; answer?: Answer } {
  const args = approvedArgs(snapshot);
  if (!isQuestion(snapshot)) return { args };
  const { answer, ...rest } = args as Args & { answer: Answer };
  return { args: rest, answer };
}

/** The arguments an approved request was approved with: the person's edit while the call is in the turn, else the call's. */
function approvedArgs(snapshot: AgentSnapshot): Args {
  const record = snapshot.toolCalls.find((item) => item.toolCallId === REQUEST_CALL_ID);
  if (record?.editedArgs !== undefined) return record.editedArgs as Args;
  const handedBack = handedBackArgs(toolMessage(snapshot)?.content);
  if (handedBack !== undefined) return handedBack;
  return (callOfId(snapshot, REQUEST_CALL_ID)?.args ?? {}) as Args;
}

/** The arguments the request's call handed back (its result, `{ approved: true, args }`), if it ran. */
function handedBackArgs(content: string | undefined): Args | undefined {
  if (content === undefined) return undefined;
  try {
    const result = JSON.parse(content) as { args?: unknown };
    return typeof result.args === 'object' && result.args !== null ? (result.args as Args) : undefined;
  } catch {
    return undefined;
  }
}
