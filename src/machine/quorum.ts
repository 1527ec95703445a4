// Several approvers: the `approvals` setting of a rule or tool, resolved into the quorum a request carries, and the
// rules a vote is counted by (who may vote, how many approvals are still possible, what a vote's signature covers).
import { z } from 'zod';
import { ApprovalSignatureError } from '../errors.js';
import type { Agent } from './agent.js';
import type { Approvers } from './define-tool.js';
import { canonicalJson, hmac, safeEqual } from './digest.js';
import { functionSchema } from './function-schema.js';
import type { CompiledRule } from './policy.js';
import { type RunIdentity, signedIdentity } from './run-identity.js';
import type { AgentSnapshot, ApprovalRequest, Quorum, Vote } from './types.js';

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
  required: z.number({ error: 'must be a number' }).int('must be a whole number').min(1, 'must be at least 1').max(20, 'must be at most 20'),
  distinctPeople: z.boolean().optional(),
  excludeRequester: z.boolean().optional(),
  anyDenyDenies: z.boolean().optional(),
};

const voterList = z.array(z.string().min(1, 'names an empty voter')).min(1, 'names nobody; list the voters or leave from out');

/** `approvals` on a rule or tool: `from` a list or a predicate. */
export const quorumOptionsSchema = z
  .strictObject({ ...quorumFields, from: z.union([voterList, functionSchema('must be a list of ids or a predicate (by) => boolean')]).optional() })
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
export function quorumOptionsOf(rule: CompiledRule | undefined, tool: { readonly approvals?: QuorumOptions | undefined }): QuorumOptions | undefined {
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

/** The `from` predicate of the rule (or else the tool) a request's quorum came from; a list travels in the request itself. */
function fromPredicate(agent: Agent, request: ApprovalRequest): ((by: string | undefined) => boolean) | undefined {
  const options = agent.settings.rules.find(request.ruleId)?.rule.approvals ?? agent.tools.get(request.toolName)?.approvals;
  return typeof options?.from === 'function' ? options.from : undefined;
}

/** Why `by` may not vote on a quorum request, or undefined when they may (their earlier votes aside). */
export function voteRefusal(agent: Agent, run: RunIdentity, request: ApprovalRequest & { readonly quorum: Quorum }, by: string | undefined): string | undefined {
  const quorum = request.quorum;
  if (by === undefined && (quorum.distinctPeople || quorum.excludeRequester || quorum.from !== undefined)) {
    return 'a vote on this request must say who cast it (approvedBy), so votes can be told apart';
  }
  if (quorum.excludeRequester && by !== undefined && by === run.requestedBy) return `${by} asked for this run and may not approve their own request`;
  if (quorum.from !== undefined && (by === undefined || !quorum.from.includes(by))) return `only ${quorum.from.join(', ')} may vote`;
  const predicate = fromPredicate(agent, request);
  if (predicate) {
    try {
      if (!predicate(by)) return `${by ?? 'an anonymous voter'} is not among those the approvals name`;
    } catch {
      // A check that cannot decide must not let anyone vote.
      return 'the check of who may vote threw';
    }
  }
  return undefined;
}

/** The HMAC that binds a vote to its run and approval: a vote written into storage, or changed there, does not verify. */
export function signVote(secret: string, run: RunIdentity, approvalId: string, vote: Omit<Vote, 'signature'> & { readonly signature?: string }): string {
  const { signature: _signature, ...fields } = vote;
  return hmac(secret, ['countersign.vote.v1', canonicalJson({ ...signedIdentity(run), approvalId, vote: fields })]);
}

/** With a decision secret, every vote on the request must carry its own valid signature; throws `ApprovalSignatureError`. */
export function verifyVotes(secret: string | undefined, run: RunIdentity, request: ApprovalRequest): void {
  if (secret === undefined) return;
  for (const vote of request.votes ?? []) {
    if (vote.signature === undefined || !safeEqual(vote.signature, signVote(secret, run, request.approvalId, vote))) {
      throw new ApprovalSignatureError(
        request.approvalId,
        `the vote recorded for ${vote.by ?? 'an anonymous voter'} does not match its signature; the snapshot was altered. Nothing was counted and nothing was run.`,
      );
    }
  }
}

/**
 * Where a quorum request stands: approvals so far, how many are needed, and who may still vote (when `from` is a list).
 *
 * @example
 * const tally: VoteTally = { approvals: 1, denials: 0, required: 2, remaining: 1, mayStillVote: ['bo', 'cy'] };
 */
export interface VoteTally {
  readonly approvals: number;
  readonly denials: number;
  readonly required: number;
  /** How many more approvals are needed. */
  readonly remaining: number;
  /** The listed voters who have not voted yet (without the requester, when excluded); undefined when anyone may vote. */
  readonly mayStillVote?: readonly string[];
}

/** The tally of `votes` under `quorum`, for a run asked for by `requestedBy` (`voteProgress` reads it off a run). */
export function tallyVotes(quorum: Quorum, votes: readonly Vote[], requestedBy: string | undefined): VoteTally {
  const approvals = votes.filter((vote) => vote.approved).length;
  const voted = new Set(votes.map((vote) => vote.by));
  const mayStillVote = quorum.from?.filter((id) => !(quorum.distinctPeople && voted.has(id)) && !(quorum.excludeRequester && id === requestedBy));
  return {
    approvals,
    denials: votes.length - approvals,
    required: quorum.required,
    remaining: Math.max(0, quorum.required - approvals),
    ...(mayStillVote === undefined ? {} : { mayStillVote }),
  };
}

/** True when the approvals still possible cannot reach the quorum: only a finite list of distinct voters can run out. */
export function quorumOutOfReach(quorum: Quorum, tally: VoteTally): boolean {
  return quorum.distinctPeople && tally.mayStillVote !== undefined && tally.approvals + tally.mayStillVote.length < quorum.required;
}

/**
 * Where the votes on a quorum request of the run stand, pending or settled (then `votes` are the ones its decision
 * recorded); undefined for a request one person decides.
 *
 * @example
 * const progress = voteProgress(snap, approvalId);
 * if (progress && progress.remaining > 0) console.log(`${progress.remaining} more approval(s) needed`);
 */
export function voteProgress(snapshot: AgentSnapshot, approvalId: string): (VoteTally & { readonly votes: readonly Vote[] }) | undefined {
  const pending = snapshot.pendingApprovals.find((request) => request.approvalId === approvalId);
  if (pending?.quorum !== undefined) {
    const votes = pending.votes ?? [];
    return { ...tallyVotes(pending.quorum, votes, snapshot.requestedBy), votes };
  }
  const entry = snapshot.audit.find((item) => item.approvalId === approvalId);
  if (entry?.votes === undefined) return undefined;
  const approvals = entry.votes.filter((vote) => vote.approved).length;
  return { approvals, denials: entry.votes.length - approvals, required: approvals, remaining: 0, votes: entry.votes };
}
