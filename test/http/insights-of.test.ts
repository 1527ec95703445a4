// The numbers of GET /insights and the console's insights page, from decided requests alone.
import { describe, expect, it } from 'vitest';
import { type DecidedRequest, insightsOf, percentile } from '../../src/http/insights-of.js';

const WINDOW = { since: 1_000, until: 100_000 };
let next = 0;
/** A request of `delete_file` asked at 10,000 and decided `wait` ms later by a person, unless `over` says otherwise (undefined: absent). */
const decided = (
  over: { [K in keyof DecidedRequest]?: DecidedRequest[K] | undefined } & { wait?: number } = {},
): DecidedRequest => {
  const { wait = 1_000, ...rest } = over;
  next++;
  const entry = {
    runId: `run_${next}`,
    approvalId: `apr_${next}`,
    toolCallId: `call_${next}`,
    toolName: 'delete_file',
    decision: 'approved',
    source: 'human',
    by: 'alice',
    requestedAt: 10_000,
    at: 10_000 + wait,
    ...rest,
  };
  return Object.fromEntries(Object.entries(entry).filter(([, value]) => value !== undefined)) as DecidedRequest;
};

describe('insightsOf', () => {
  it('answers no data with empty tables and the window', () => {
    expect(insightsOf([], WINDOW)).toEqual({ ...WINDOW, count: 0, tools: [], approvers: [] });
  });

  it('gives no approval rate and no time to decide when every request expired, and counts them for whom they named', () => {
    const expired = { source: 'expiry', decision: 'denied', by: undefined } as const;
    const insights = insightsOf(
      [decided({ ...expired, approvers: ['alice', 'bob'] }), decided(expired), decided({ ...expired, at: 20_000 })],
      WINDOW,
    );
    expect(insights.tools).toEqual([
      {
        tool: 'delete_file',
        requests: 3,
        approved: 0,
        denied: 0,
        expired: 3,
        dismissed: 0,
        approvalRate: null,
        timeToDecideMs: null,
      },
    ]);
    expect(insights.approvers.map((row) => [row.approver, row.expired])).toEqual([
      [null, 2],
      ['alice', 1],
      ['bob', 1],
    ]);
  });

  it('counts one approver across tools, with denials and dismissals apart from expiry', () => {
    const insights = insightsOf(
      [
        decided({ wait: 1_000 }),
        decided({ wait: 3_000, toolName: 'send_email' }),
        decided({ wait: 5_000, decision: 'denied' }),
        decided({ wait: 7_000, decision: 'denied', source: 'dismissed' }),
      ],
      WINDOW,
    );
    expect(insights.count).toBe(4);
    expect(insights.approvers).toEqual([
      {
        approver: 'alice',
        requests: 4,
        approved: 2,
        denied: 1,
        expired: 0,
        dismissed: 1,
        approvalRate: 2 / 3,
        timeToDecideMs: { median: 3_000, p90: 7_000, measured: 4 },
      },
    ]);
    expect(insights.tools.map((row) => [row.tool, row.requests, row.approvalRate])).toEqual([
      ['delete_file', 3, 0.5],
      ['send_email', 1, 1],
    ]);
  });

  it('leaves out calls nobody was asked about, decisions outside the window, and a request announced twice', () => {
    const twice = decided();
    const insights = insightsOf(
      [
        twice,
        { ...twice },
        decided({ approvalId: undefined, source: 'rule', by: undefined }),
        decided({ at: 500 }),
        decided({ at: 100_001 }),
      ],
      WINDOW,
    );
    expect(insights.count).toBe(1);
    expect(insights.tools[0]!.requests).toBe(1);
  });

  it('counts each vote of a quorum request for its voter, and the request once for its tool', () => {
    const insights = insightsOf(
      [
        decided({
          by: 'bob',
          at: 16_000,
          votes: [
            { by: 'alice', approved: true, at: 12_000 },
            { by: 'bob', approved: true, at: 16_000 },
          ],
        }),
      ],
      WINDOW,
    );
    expect(insights.tools[0]).toMatchObject({ requests: 1, approved: 1, timeToDecideMs: { median: 6_000 } });
    expect(insights.approvers.map((row) => [row.approver, row.approved, row.timeToDecideMs?.median])).toEqual([
      ['alice', 1, 2_000],
      ['bob', 1, 6_000],
    ]);
  });

  it('measures only a person’s decisions with a known request time', () => {
    const insights = insightsOf(
      [decided({ wait: 2_000 }), decided({ requestedAt: undefined }), decided({ source: 'grant', wait: 9_000 })],
      WINDOW,
    );
    expect(insights.tools[0]!.timeToDecideMs).toEqual({ median: 2_000, p90: 2_000, measured: 1 });
    expect(insights.tools[0]!.approved).toBe(3);
  });

  it('takes the nearest-rank percentile: a value that occurred', () => {
    const ten = Array.from({ length: 10 }, (_, index) => (index + 1) * 10);
    expect(percentile(ten, 50)).toBe(50);
    expect(percentile(ten, 90)).toBe(90);
    expect(percentile(ten, 100)).toBe(100);
    expect(percentile([7], 50)).toBe(7);
    expect(percentile([7], 90)).toBe(7);
    expect(percentile([1, 2, 3, 4], 50)).toBe(2);
    expect(percentile([1, 2, 3, 4], 90)).toBe(4);
    expect(percentile([1, 2, 3], 0)).toBe(1);
  });
});
