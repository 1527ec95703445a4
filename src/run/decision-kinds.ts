// Which decisions a person may make on a call (`decisions` on a tool or a policy rule): the kinds, their check at the
// boundary, the list a call is offered (the tool's, tightened by its rule's), and the wider approval a run offers.
import { z } from 'zod';
import type { DecisionKind } from './types.js';

/** Every kind, in the order surfaces list them. */
export const DECISION_KINDS = [
  'approve',
  'edit',
  'deny',
  'run',
  'session',
  'agent',
] as const satisfies readonly DecisionKind[];

const KIND_LIST = DECISION_KINDS.map((kind) => `'${kind}'`).join(', ');

/** `decisions` on a tool, a rule or a stored rule: known kinds, at least one. */
export const decisionsSchema = z
  .array(z.enum(DECISION_KINDS, { error: `must be one of ${KIND_LIST}` }))
  .min(
    1,
    "is empty, so nobody could decide the call; name at least one kind (e.g. ['approve', 'deny']), or leave decisions out to offer every kind",
  );

/** True when `kind` is among `decisions`; every kind is when there is no list. */
export function offers(decisions: readonly DecisionKind[] | undefined, kind: DecisionKind): boolean {
  return decisions === undefined || decisions.includes(kind);
}

/**
 * The kinds a call is offered: those every list names (a rule can only tighten its tool's), in `DECISION_KINDS`
 * order; undefined when that is every kind. Lists that share no kind leave only dismissal.
 */
export function offeredDecisions(
  ...lists: readonly (readonly DecisionKind[] | undefined)[]
): readonly DecisionKind[] | undefined {
  const offered = DECISION_KINDS.filter((kind) => lists.every((list) => offers(list, kind)));
  return offered.length === DECISION_KINDS.length ? undefined : offered;
}

/** The kinds of a tool that is not grantable: each call decided on its own, no wider scope. */
const ONCE_KINDS = ['approve', 'edit', 'deny'] as const satisfies readonly DecisionKind[];

/** The kinds a tool offers: its `decisions`, and no wider scope than once when it is not grantable (`grantable: false`). */
export function toolDecisions(tool: {
  readonly decisions?: readonly DecisionKind[];
  readonly grantable?: boolean;
}): readonly DecisionKind[] | undefined {
  return offeredDecisions(tool.decisions, tool.grantable === false ? ONCE_KINDS : undefined);
}

/**
 * The scope of the wider approval a run offers beside "approve once": its session, for a run in one that may be
 * approved for it, else the run, when that is offered; undefined when neither is.
 */
export function widerScopeOf(
  decisions: readonly DecisionKind[] | undefined,
  sessionId: string | undefined,
): 'run' | 'session' | undefined {
  if (sessionId !== undefined && offers(decisions, 'session')) return 'session';
  return offers(decisions, 'run') ? 'run' : undefined;
}
