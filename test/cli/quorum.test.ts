// The CLI on a request several people must approve: `show`, `pending` and the review card show the votes so far;
// `approve` prints that the vote was recorded and how many more are needed, not "approved", until the quorum is met.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from 'countersign';
import { formatCard } from '../../src/cli/review/card.js';
import { paintFor } from '../../src/cli/review/paint.js';
import { countingAgent } from '../support/runtime-harness.js';
import { runCliCaptured } from '../support/cli-run.js';

async function cli(runtime: Runtime, argv: string[], input = '') {
  const { code, out } = await runCliCaptured(argv, { runtime, input, env: { COUNTERSIGN_RUNTIME: './runtime.js' } });
  return { code, out };
}

describe('CLI on a quorum request', () => {
  it('approve records a vote and says how many more are needed; show, pending and the card show the votes', async () => {
    const counting = countingAgent({ approvals: { required: 2, from: ['ana', 'bo', 'cy'] } });
    const runtime = createRuntime({ agents: [counting.agent] });
    const paused = await runtime.start(counting.agent.name, { input: 'pay', requestedBy: 'cy' });
    const approvalId = paused.pendingApprovals[0]!.approvalId;

    const first = await cli(runtime, ['approve', paused.runId, approvalId, '--by', 'ana']);
    expect(first).toEqual({
      code: 0,
      out: 'vote recorded: 1 of 2 approvals, 1 more approval needed; run is awaitingApproval\n',
    });
    const again = await cli(runtime, ['approve', paused.runId, approvalId, '--by', 'ana']);
    expect(again.out).toBe(
      'vote already recorded: 1 of 2 approvals, 1 more approval needed; run is awaitingApproval\n',
    );
    expect(counting.executions).toEqual([]);

    const line = 'Needs 2 approvals: 1 so far (ana), 1 more needed; may still vote: bo';
    expect((await cli(runtime, ['show', paused.runId])).out).toContain(line);
    const page = await runtime.pending();
    expect(formatCard(page.items[0]!, { index: 1, total: 1 }, Date.now(), paintFor(new PassThrough(), {}))).toContain(
      line,
    );
    expect((await cli(runtime, ['pending'])).out).toContain(line);

    const settled = await cli(runtime, ['approve', paused.runId, approvalId, '--by', 'bo']);
    expect(settled.out).toBe('approved; run is completed\n');
    expect(counting.executions).toHaveLength(1);
  });

  it('review offers no d and no s on a quorum request: a dismissal is not a vote, and a vote is once', async () => {
    const counting = countingAgent({ approvals: { required: 2, from: ['ana', 'bo', 'cy'] } });
    const runtime = createRuntime({ agents: [counting.agent] });
    const paused = await runtime.start(counting.agent.name, { input: 'pay', requestedBy: 'cy' });
    const review = await cli(runtime, ['review', '--by', 'ana'], 'd\nq\n');
    expect(review.out).toContain('n deny · e edit');
    expect(review.out).toContain('d is not a key here; answer y, n, e, v, j or q');
    expect(review.out).toContain('0 decided');
    expect((await runtime.get(paused.runId)).status).toBe('awaitingApproval');
  });
});
