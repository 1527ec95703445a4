// How the votes on a quorum call count: each person once (names compared as people), each vote signed as a link of
// a chain (it binds its place and the vote before it), so a vote copied, moved or taken out of the middle in storage
// breaks the chain instead of counting again.
import { SNAPSHOT_ALTERED_OR_OTHER_SECRET } from './signature-mismatch.js';
import { ApprovalSignatureError } from '../../errors.js';
import { canonicalJson, hmac, safeEqual } from '../../run/digest.js';
import { type RunIdentity, signedIdentity } from '../../run/run-identity.js';
import type { Quorum, Vote } from '../../run/types.js';
import { listsPerson, personKey } from './person-name.js';

/** Marks a vote signed as a link of the chain; a vote without it was signed alone (before the chain), and only counts ahead of the chain. */
const CHAINED = 'v2.';

/** The HMAC of the vote at `index`, bound to its run, approval, place and the signature of the vote before it. */
function chainedVoteMac(
  secret: string,
  run: RunIdentity,
  approvalId: string,
  index: number,
  previous: string,
  vote: Vote,
): string {
  const { signature: _signature, ...fields } = vote;
  return `${CHAINED}${hmac(secret, ['countersign.vote.v2', canonicalJson({ ...signedIdentity(run), approvalId, index, previous, vote: fields })])}`;
}

/** The HMAC a vote was signed with before votes were chained: bound to its run and approval only. */
function singleVoteMac(secret: string, run: RunIdentity, approvalId: string, vote: Vote): string {
  const { signature: _signature, ...fields } = vote;
  return hmac(secret, ['countersign.vote.v1', canonicalJson({ ...signedIdentity(run), approvalId, vote: fields })]);
}

/** `vote` appended to `votes`, signed as the next link of their chain when there is a secret. */
export function appendVote(
  secret: string | undefined,
  run: RunIdentity,
  approvalId: string,
  votes: readonly Vote[],
  vote: Vote,
): readonly Vote[] {
  if (secret === undefined) return [...votes, vote];
  const previous = votes.at(-1)?.signature ?? '';
  return [...votes, { ...vote, signature: chainedVoteMac(secret, run, approvalId, votes.length, previous, vote) }];
}

/** Why the votes do not verify with `secret` (a link missing, forged, copied or moved), or undefined when every one does. */
export function voteChainProblem(
  secret: string,
  run: RunIdentity,
  approvalId: string,
  votes: readonly Vote[],
): string | undefined {
  let chained = false;
  for (const [index, vote] of votes.entries()) {
    const who = vote.by ?? 'an anonymous voter';
    const signature = vote.signature ?? '';
    if (signature.startsWith(CHAINED)) {
      chained = true;
      if (
        !safeEqual(signature, chainedVoteMac(secret, run, approvalId, index, votes[index - 1]?.signature ?? '', vote))
      ) {
        return `the vote recorded for ${who} does not match its signature or its place among the votes (vote ${index + 1})`;
      }
    } else if (chained || signature === '' || !safeEqual(signature, singleVoteMac(secret, run, approvalId, vote))) {
      return `the vote recorded for ${who} does not match its signature (vote ${index + 1})`;
    }
  }
  return undefined;
}

/** With a decision secret, every vote on the request must verify as a link of its chain; throws `ApprovalSignatureError`. */
export function verifyVotes(
  secret: string | undefined,
  run: RunIdentity,
  approvalId: string,
  votes: readonly Vote[],
): void {
  if (secret === undefined) return;
  const problem = voteChainProblem(secret, run, approvalId, votes);
  if (problem !== undefined) {
    throw new ApprovalSignatureError(
      approvalId,
      `${problem}; ${SNAPSHOT_ALTERED_OR_OTHER_SECRET}. Nothing was counted and nothing was run.`,
    );
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

/** How many of `votes` say `approved`: with `distinctPeople`, each person once however often their vote appears. */
function countOf(quorum: Quorum, votes: readonly Vote[], approved: boolean): number {
  const matching = votes.filter((vote) => vote.approved === approved);
  if (!quorum.distinctPeople) return matching.length;
  return new Set(matching.map((vote) => (vote.by === undefined ? '' : personKey(vote.by)))).size;
}

/** The tally of `votes` under `quorum`, for a run asked for by `requestedBy` (`voteProgress` reads it off a run). */
export function tallyVotes(quorum: Quorum, votes: readonly Vote[], requestedBy: string | undefined): VoteTally {
  const approvals = countOf(quorum, votes, true);
  const voters = votes.flatMap((vote) => (vote.by === undefined ? [] : [vote.by]));
  const mayStillVote = quorum.from?.filter(
    (id) =>
      !(quorum.distinctPeople && listsPerson(voters, id)) &&
      !(quorum.excludeRequester && requestedBy !== undefined && listsPerson([requestedBy], id)),
  );
  return {
    approvals,
    denials: countOf(quorum, votes, false),
    required: quorum.required,
    remaining: Math.max(0, quorum.required - approvals),
    ...(mayStillVote === undefined ? {} : { mayStillVote }),
  };
}

/** True when the approvals still possible cannot reach the quorum: only a finite list of distinct voters can run out. */
export function quorumOutOfReach(quorum: Quorum, tally: VoteTally): boolean {
  return (
    quorum.distinctPeople &&
    tally.mayStillVote !== undefined &&
    tally.approvals + tally.mayStillVote.length < quorum.required
  );
}
