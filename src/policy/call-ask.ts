// What a call's own ask adds to the policy's verdict, for a request made by a caller outside the agent loop
// (`runtime.requestApproval`): what the person reads, who decides, how many, how long. It may narrow what the policy
// says, never widen it.
import { listsPerson } from '../decisions/authority/person-name.js';
import type { Question } from '../run/question.js';
import type { Quorum } from '../run/types.js';
import { resolveQuorum } from './quorum.js';

/** The caller's own terms for a request: each narrows the policy's (fewer approvers, more approvals, less time). */
export interface CallAsk {
  readonly description?: string;
  readonly reason?: string;
  readonly approvers?: readonly string[];
  readonly approvals?: number;
  readonly expiresInMs?: number;
  /** The form of the answer, when the call is a question (`requestInput`). */
  readonly question?: Question;
}

/** The request's terms once the ask is applied, or why no person may decide it. */
export type AskedTerms =
  | {
      readonly description?: string;
      readonly reason?: string;
      readonly approvers?: readonly string[];
      readonly quorum?: Quorum;
      readonly expiresAt?: number;
      readonly question?: Question;
    }
  | { readonly refused: string };

/** The policy's terms for a call (approvers, quorum, reason, expiry at `now`) narrowed by the call's ask. */
export function askedTerms(
  ask: CallAsk | undefined,
  policy: { readonly approvers?: readonly string[]; readonly quorum?: Quorum; readonly reason?: string },
  expiry: { readonly ttlMs: number | undefined; readonly now: number },
  question: Question | undefined = ask?.question,
): AskedTerms {
  const approvers = narrowedApprovers(ask?.approvers, policy.approvers);
  if (approvers !== undefined && approvers.length === 0)
    return {
      refused: `none of the approvers asked for (${ask?.approvers?.join(', ')}) may decide this call; who may: ${policy.approvers?.join(', ')}`,
    };
  const quorum = raisedQuorum(ask?.approvals, policy.quorum);
  if (question !== undefined && quorum !== undefined)
    return { refused: `a question is answered by one person, and this one would need ${quorum.required} approvals` };
  const times = [expiry.ttlMs, ask?.expiresInMs].filter((ms): ms is number => ms !== undefined);
  const reason = ask?.reason ?? policy.reason;
  return {
    ...(ask?.description === undefined ? {} : { description: ask.description }),
    ...(reason === undefined ? {} : { reason }),
    ...(approvers === undefined ? {} : { approvers }),
    ...(quorum === undefined ? {} : { quorum }),
    ...(times.length === 0 ? {} : { expiresAt: expiry.now + Math.min(...times) }),
    ...(question === undefined ? {} : { question }),
  };
}

/** The asked approvers the policy's list admits (all of them when the policy names nobody). */
function narrowedApprovers(
  asked: readonly string[] | undefined,
  policy: readonly string[] | undefined,
): readonly string[] | undefined {
  if (asked === undefined) return policy;
  return policy === undefined ? asked : asked.filter((name) => listsPerson(policy, name));
}

/** The policy's quorum, with more approvals when the ask wants more (a quorum of its own when the policy had none). */
function raisedQuorum(approvals: number | undefined, quorum: Quorum | undefined): Quorum | undefined {
  if (approvals === undefined || approvals <= (quorum?.required ?? 1)) return quorum;
  return quorum === undefined ? resolveQuorum({ required: approvals }) : { ...quorum, required: approvals };
}
