import type { AuditEntry, Vote } from '../index.js';
import { decisionOutcome, type DecisionOutcome } from '../kit/index.js';

/** A decided request as insights read it: its audit entry, its run, and when it was asked, where known. */
export type DecidedRequest = Pick<
  AuditEntry,
  'approvalId' | 'toolCallId' | 'toolName' | 'decision' | 'source' | 'at' | 'by' | 'approvers' | 'votes'
> & { readonly runId: string; readonly requestedAt?: number };

/** How long people took, in ms, over the requests a person decided and whose `requestedAt` is known (`measured`). */
export interface TimeToDecide {
  readonly median: number;
  readonly p90: number;
  readonly measured: number;
}

/** The counts of one tool or one approver. */
export interface InsightsCounts {
  readonly requests: number;
  readonly approved: number;
  readonly denied: number;
  readonly expired: number;
  readonly dismissed: number;
  /** `approved / (approved + denied)`; null when nobody approved or denied (all expired or dismissed). */
  readonly approvalRate: number | null;
  /** Null when no decision of a person has a known request time. */
  readonly timeToDecideMs: TimeToDecide | null;
}

/** What `GET /insights` answers, less where its numbers come from. */
export interface Insights {
  /** Epoch ms, inclusive: the window's start. */
  readonly since: number;
  /** Epoch ms, inclusive: the window's end (now). */
  readonly until: number;
  /** Decided requests in the window. */
  readonly count: number;
  /** Most requests first. */
  readonly tools: readonly (InsightsCounts & { readonly tool: string })[];
  /**
   * Most requests first: the requests each person decided (on a quorum request, each voter's vote), and those that
   * named them (`approvers`) and expired. An expired request that named nobody counts under `approver: null`.
   */
  readonly approvers: readonly (InsightsCounts & { readonly approver: string | null })[];
}

/** Where the numbers come from and what that covers, with the insights (`GET /insights`'s answer). */
export interface InsightsAnswer extends Insights {
  /** The decisions this app saw on its event feed, kept in memory (the store has no index of decisions across runs). */
  readonly source: 'history';
  /** Epoch ms when the history began listening: nothing decided before it is counted. */
  readonly listeningSince: number;
  /** How many decisions the history keeps, and whether it has let older ones go (then the window starts later than `since`). */
  readonly limit: number;
  readonly dropped: boolean;
}

/** The nearest-rank percentile (a value that occurred) of ascending `sorted`, which is not empty. */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function countsOf(entries: readonly DecidedRequest[]): InsightsCounts {
  const tally: Record<DecisionOutcome, number> = { approved: 0, denied: 0, expired: 0, dismissed: 0 };
  const waits: number[] = [];
  for (const entry of entries) {
    tally[decisionOutcome(entry)]++;
    // A person's decision only: an expiry's wait is the request's time to live, not anyone's time to decide.
    if ((entry.source === 'human' || entry.source === 'dismissed') && entry.requestedAt !== undefined)
      waits.push(Math.max(0, entry.at - entry.requestedAt));
  }
  waits.sort((a, b) => a - b);
  const decided = tally.approved + tally.denied;
  return {
    requests: entries.length,
    ...tally,
    approvalRate: decided === 0 ? null : tally.approved / decided,
    timeToDecideMs:
      waits.length === 0 ? null : { median: percentile(waits, 50), p90: percentile(waits, 90), measured: waits.length },
  };
}

function grouped<K>(entries: readonly DecidedRequest[], keysOf: (entry: DecidedRequest) => readonly K[]) {
  const groups = new Map<K, DecidedRequest[]>();
  for (const entry of entries) {
    for (const key of keysOf(entry)) {
      const members = groups.get(key);
      if (members === undefined) groups.set(key, [entry]);
      else members.push(entry);
    }
  }
  return [...groups].map(([key, members]) => ({ key, counts: countsOf(members) }));
}

/** One vote of a quorum request as its voter's answer, at the vote's time. */
function voteAnswer({ by: _last, ...entry }: DecidedRequest, vote: Vote): DecidedRequest {
  return {
    ...entry,
    decision: vote.approved ? 'approved' : 'denied',
    source: 'human',
    at: vote.at,
    ...(vote.by === undefined ? {} : { by: vote.by }),
  };
}

const byRequests = <T extends InsightsCounts>(rows: T[], name: (row: T) => string): T[] =>
  rows.sort((a, b) => b.requests - a.requests || name(a).localeCompare(name(b)));

/**
 * Insights over the requests people were asked about (entries with an `approvalId`; what a rule, run memory or a
 * grant decided without asking is left out) decided between `since` and `until`: per tool and per approver, the
 * outcomes, the approval rate and the time to decide (median and p90, nearest rank). A request announced twice
 * counts once.
 *
 * @example
 * const insights = insightsOf(history.search({ since }), { since, until: Date.now() });
 * insights.tools[0]?.approvalRate; // 0.97
 */
export function insightsOf(
  entries: readonly DecidedRequest[],
  window: { readonly since: number; readonly until: number },
): Insights {
  const seen = new Set<string>();
  const kept = entries.filter((entry) => {
    if (entry.approvalId === undefined || entry.at < window.since || entry.at > window.until) return false;
    const key = JSON.stringify([entry.runId, entry.approvalId]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  // On a quorum request each voter answered (`by` is only the last one's): each vote counts for its voter.
  const answers = kept.flatMap((entry) =>
    entry.votes === undefined || entry.votes.length === 0
      ? [entry]
      : entry.votes.map((vote) => voteAnswer(entry, vote)),
  );
  const approverKeys = (entry: DecidedRequest): readonly (string | null)[] =>
    entry.by !== undefined
      ? [entry.by]
      : entry.approvers !== undefined && entry.approvers.length > 0
        ? entry.approvers
        : [null];
  return {
    since: window.since,
    until: window.until,
    count: kept.length,
    tools: byRequests(
      grouped(kept, (entry) => [entry.toolName]).map(({ key, counts }) => ({ tool: key, ...counts })),
      (row) => row.tool,
    ),
    approvers: byRequests(
      grouped(answers, approverKeys).map(({ key, counts }) => ({ approver: key, ...counts })),
      (row) => row.approver ?? '',
    ),
  };
}
