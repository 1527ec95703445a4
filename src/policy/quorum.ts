// Several approvers: the `approvals` setting of a rule or tool, resolved into the quorum a request carries. Who may
// vote and how votes count is the authority's (authority/who-may-decide.ts, authority/vote-count.ts).
import { z } from 'zod';
import { tallyVotes, type VoteTally } from '../decisions/authority/vote-count.js';
import type { Approvers } from './approvers.js';
import { functionSchema } from '../run/function-schema.js';
import type { Quorum, Vote } from '../run/types.js';
import type { AgentSnapshot } from '../run/agent-snapshot.js';

/**
 * Several people must approve a call: on a policy rule or a tool (the rule's wins, as for `approvers`).
 *
 * @example
 * const rule: PolicyRule = { tool: 'transfer_funds', action: 'ask', approvals: { required: 2, from: ['ana', 'bo', 'cy'] } };
 */
export interface QuorumOptions {
  /** How many approvals the call needs (1 to 20). */
  readonly required: number;
  /** Who may vote: ids, or a predicate over the voter's id; anyone who may decide the call when left out. */
  readonly from?: Approvers;
  /** Each approval from a different person (default true). */
  readonly distinctPeople?: boolean;
  /** The run's `requestedBy` may not vote on its calls (default true). */
  readonly excludeRequester?: boolean;
  /** One deny denies the call at once (default true); when false, a deny is a vote and the call is denied only when the approvals still possible cannot reach `required`. */
  readonly anyDenyDenies?: boolean;
}

const quorumFields = {
  required: z
    .number({ error: 'must be a number' })
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(20, 'must be at most 20'),
  distinctPeople: z.boolean().optional(),
  excludeRequester: z.boolean().optional(),
  anyDenyDenies: z.boolean().optional(),
};

const voterList = z
  .array(z.string().min(1, 'names an empty voter'))
  .min(1, 'names nobody; list the voters or leave from out');

/** `approvals` on a rule or tool: `from` a list or a predicate. */
export const quorumOptionsSchema = z
  .strictObject({
    ...quorumFields,
    from: z.union([voterList, functionSchema('must be a list of ids or a predicate (by) => boolean')]).optional(),
  })
  .refine((value) => !Array.isArray(value.from) || value.from.length >= value.required, {
    message: 'names fewer voters in from than required approvals; the call could never run',
  });

/** `approvals` on a stored rule (JSON): `from` a list only. */
export const storedQuorumSchema = z
  .strictObject({ ...quorumFields, from: voterList.optional() })
  .refine((value) => value.from === undefined || value.from.length >= value.required, {
    message: 'names fewer voters in from than required approvals; the call could never run',
  });

/** The `approvals` a call is under: the rule's when it names them, else the tool's. */
export function quorumOptionsOf(
  rule: { readonly rule: { readonly approvals?: QuorumOptions | undefined } } | undefined,
  tool: { readonly approvals?: QuorumOptions | undefined },
): QuorumOptions | undefined {
  return rule?.rule.approvals ?? tool.approvals;
}

/** The quorum a request carries: the defaults filled in, `from` kept only when it is a list. */
export function resolveQuorum(options: QuorumOptions | undefined): Quorum | undefined {
  if (options === undefined) return undefined;
  return {
    required: options.required,
    ...(Array.isArray(options.from) ? { from: [...(options.from as readonly string[])] } : {}),
    distinctPeople: options.distinctPeople ?? true,
    excludeRequester: options.excludeRequester ?? true,
    anyDenyDenies: options.anyDenyDenies ?? true,
  };
}

/**
 * Where the votes on a quorum request of the run stand, pending or settled (then `votes` are the ones its decision
 * recorded); undefined for a request one person decides.
 *
 * @example
 * const progress = voteProgress(snap, approvalId);
 * if (progress && progress.remaining > 0) console.log(`${progress.remaining} more approval(s) needed`);
 */
export function voteProgress(
  snapshot: AgentSnapshot,
  approvalId: string,
): (VoteTally & { readonly votes: readonly Vote[] }) | undefined {
  const pending = snapshot.pendingApprovals.find((request) => request.approvalId === approvalId);
  if (pending?.quorum !== undefined) {
    const votes = pending.votes ?? [];
    return { ...tallyVotes(pending.quorum, votes, snapshot.requestedBy), votes };
  }
  const entry = snapshot.audit.find((item) => item.approvalId === approvalId);
  if (entry?.votes === undefined) return undefined;
  if (entry.quorum !== undefined)
    return { ...tallyVotes(entry.quorum, entry.votes, snapshot.requestedBy), votes: entry.votes };
  // Recorded before decisions kept their quorum: every approval counted toward it.
  const approvals = entry.votes.filter((vote) => vote.approved).length;
  return { approvals, denials: entry.votes.length - approvals, required: approvals, remaining: 0, votes: entry.votes };
}
