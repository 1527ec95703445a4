// What every surface (the link page and inbox, the console, the chat cards, email, the CLI) says about a request
// beside its arguments, written once: what the tool says about itself (its annotations, shown as its own claims),
// which sub-agent asked (the chain of agents down to it), the votes so far on a request several people must approve,
// and the warnings that are not about the arguments (a disconnected connector), shown on their own lines.
import { tallyVotes } from '../../decisions/authority/vote-count.js';
import { annotationBadges } from '../../run/tool-annotations.js';
import type { ApprovalRequest, ArgsWarning } from '../../run/types.js';
import type { Markup } from '../markup.js';

/** The signs a surface puts before the claims line and before a warning: emoji in chat and mail, plain text in a terminal. */
export interface NoteMarks {
  readonly claims: string;
  readonly warning: string;
}

const EMOJI_MARKS: NoteMarks = { claims: '🏷️ ', warning: '⚠️ ' };

/**
 * The line saying what the tool claims about itself: its title and its
 * badges (`annotationBadges`), a destructive one marked as a warning, and
 * that these are the tool's own hints; '' when the tool says nothing.
 *
 * @example
 * const plain: Markup = { escape: (text) => text, strong: (text) => text, code: (text) => text, who: (by) => by ?? 'someone' };
 * annotationLine({ annotations: { title: 'Delete repository', destructiveHint: true } }, plain);
 * // '🏷️ The tool says: Delete repository · ⚠️ destructive (its own hints, not verified)'
 */
export function annotationLine(
  request: Pick<ApprovalRequest, 'annotations'>,
  m: Markup,
  marks: NoteMarks = EMOJI_MARKS,
): string {
  const title = request.annotations?.title;
  const badges = annotationBadges(request.annotations).map((badge) =>
    badge === 'destructive' ? m.strong(`${marks.warning}destructive`) : badge,
  );
  const claims = [...(title === undefined || title === '' ? [] : [m.strong(m.escape(title))]), ...badges];
  return claims.length === 0 ? '' : `${marks.claims}The tool says: ${claims.join(' · ')} (its own hints, not verified)`;
}

/**
 * The line saying that a sub-agent asked (`agentAsTool`): the chain of agents from the run's own (`agentName`, the
 * agent of the run or event that lists the request) down to the sub-agent whose call this is, the delegate calls on
 * the way (`request.path`), and that the decision is on the inner call itself; '' for a run's own call.
 *
 * @example
 * const request = { toolName: 'deploy', path: [{ agentName: 'deployer', toolCallId: 'call_2', toolName: 'deployer' }] };
 * delegationLine(request, plain, 'lead');
 * // '↳ Asked by sub-agent deployer: lead › deployer (via delegate call deployer call_2). You decide its call deploy itself.'
 */
export function delegationLine(
  request: Pick<ApprovalRequest, 'toolName' | 'path'>,
  m: Markup,
  agentName: string,
  mark = '↳ ',
): string {
  const path = request.path ?? [];
  if (path.length === 0) return '';
  const agent = (name: string) => m.strong(m.escape(name));
  const chain = [agentName, ...path.map((step) => step.agentName)].map(agent).join(' › ');
  const calls = path.map((step) => `${m.escape(step.toolName)} ${m.code(m.escape(step.toolCallId))}`).join(' › ');
  return (
    `${mark}Asked by sub-agent ${agent(path.at(-1)!.agentName)}: ${chain} ` +
    `(via delegate call${path.length === 1 ? '' : 's'} ${calls}). You decide its call ${m.code(m.escape(request.toolName))} itself.`
  );
}

/**
 * The line saying where a quorum request stands: approvals needed, so far and by whom, and who may still vote
 * (when its approvals name a list; without the run's requester when known and excluded); '' for a request one
 * person decides.
 *
 * @example
 * votesLine({ quorum: { required: 2, from: ['ana', 'bo', 'cy'], distinctPeople: true, excludeRequester: true, anyDenyDenies: true }, votes: [{ by: 'ana', approved: true, at: 0 }] }, plain);
 * // '🗳️ Needs 2 approvals: 1 so far (ana), 1 more needed; may still vote: bo, cy'
 */
export function votesLine(
  request: Pick<ApprovalRequest, 'quorum' | 'votes'>,
  m: Markup,
  requestedBy?: string,
  mark = '🗳️ ',
): string {
  if (request.quorum === undefined) return '';
  const votes = request.votes ?? [];
  const tally = tallyVotes(request.quorum, votes, requestedBy);
  const approvers = votes.filter((vote) => vote.approved).map((vote) => m.who(vote.by));
  const deniers = votes.filter((vote) => !vote.approved).map((vote) => m.who(vote.by));
  return (
    `${mark}Needs ${tally.required} approvals: ${tally.approvals} so far${approvers.length === 0 ? '' : ` (${approvers.join(', ')})`}, ${tally.remaining} more needed` +
    (deniers.length === 0 ? '' : `; denied by ${deniers.join(', ')}`) +
    (tally.mayStillVote === undefined
      ? ''
      : `; may still vote: ${tally.mayStillVote.length === 0 ? 'nobody' : tally.mayStillVote.map((id) => m.escape(id)).join(', ')}`)
  );
}

/**
 * A request's warnings in two groups: about the request as a whole (a
 * disconnected connector), each shown on a line of its own, and about its
 * displayed arguments, shown as a list under "check the arguments".
 *
 * @example
 * const { request: aboutRequest, args } = partitionWarnings(request);
 */
export function partitionWarnings(request: Pick<ApprovalRequest, 'warnings'>): {
  readonly request: readonly ArgsWarning[];
  readonly args: readonly ArgsWarning[];
} {
  const aboutRequest = request.warnings.filter((warning) => warning.code === 'connector-disconnected');
  return { request: aboutRequest, args: request.warnings.filter((warning) => !aboutRequest.includes(warning)) };
}
