// respondWithLink({ approvedBy }): who used a link, unless the link names someone itself.
import { describe, expect, it } from 'vitest';
import { createRuntime } from 'countersign';
import { expectOpaque } from '../support/opaque-token.js';
import { countingAgent } from '../support/runtime-harness.js';
import { testClock } from '../support/test-kit.js';
import { linkUrls } from '../support/link-urls.js';

const secret = 'link-secret-0123456789abcdef';
const token = (url: string) => url.split('/links/')[1]!;

describe('respondWithLink approvedBy', () => {
  it("records the caller's approvedBy for a token minted without one, and the token's own when it has one", async () => {
    const clock = testClock();
    const counting = countingAgent({ clock, calls: 2 });
    const runtime = createRuntime({ agents: [counting.agent], clock, links: { secret } });
    const paused = await runtime.start(counting.agent.name, { input: 'pay' });
    const [first, second] = paused.pendingApprovals;

    const anonymous = await linkUrls(runtime, paused.runId, first!.approvalId);
    const named = await linkUrls(runtime, paused.runId, second!.approvalId, { approvedBy: 'alice@example.com' });
    await runtime.respondWithLink(token(anonymous.approve), { mode: 'record', approvedBy: 'slack:U123' });
    const result = await runtime.respondWithLink(token(named.deny), { mode: 'record', approvedBy: 'slack:U999' });

    expect(result.snapshot.audit.map((entry) => [entry.approvalId, entry.decision, entry.by])).toEqual([
      [first!.approvalId, 'approved', 'slack:U123'],
      [second!.approvalId, 'denied', 'alice@example.com'],
    ]);
  });

  it('seals the token: neither the person it names nor the run can be read from the URL; the runtime answers both', async () => {
    const counting = countingAgent();
    const runtime = createRuntime({ agents: [counting.agent], links: { secret } });
    const paused = await runtime.start(counting.agent.name, { input: 'pay' });
    const approvalId = paused.pendingApprovals[0]!.approvalId;
    const links = await linkUrls(runtime, paused.runId, approvalId, { approvedBy: 'alice@example.com' });
    for (const url of [links.approve, links.deny])
      expectOpaque(token(url), ['alice@example.com', 'alice', paused.runId, approvalId]);
    expect((await runtime.inspectLink(token(links.approve))).claim).toMatchObject({
      runId: paused.runId,
      approvalId,
      approvedBy: 'alice@example.com',
    });
    const result = await runtime.respondWithLink(token(links.approve), { mode: 'record' });
    expect(result).toMatchObject({ runId: paused.runId, approvalId, duplicate: false });
    await expect(runtime.respondWithLink(token(links.approve))).rejects.toMatchObject({
      reason: 'used',
      runId: paused.runId,
      approvalId,
    });
  });

  it('still records link:<decision> when nobody is named', async () => {
    const counting = countingAgent();
    const runtime = createRuntime({ agents: [counting.agent], links: { secret } });
    const paused = await runtime.start(counting.agent.name, { input: 'pay' });
    const links = await linkUrls(runtime, paused.runId, paused.pendingApprovals[0]!.approvalId);
    const result = await runtime.respondWithLink(token(links.approve), { mode: 'record' });
    expect(result.snapshot.audit[0]!.by).toBe('link:approve');
  });

  it("approves for the rest of the run with the approveForRun token, and records a denier's own reason with the deny token", async () => {
    const counting = countingAgent({ calls: 2 });
    const runtime = createRuntime({ agents: [counting.agent], links: { secret } });
    const paused = await runtime.start(counting.agent.name, { input: 'pay' });
    const [first, second] = paused.pendingApprovals;
    const forRun = await runtime.linkTokens(paused.runId, first!.approvalId, { approvedBy: 'alice@example.com' });
    expect((await runtime.inspectLink(forRun.approveForRun!)).claim).toMatchObject({
      decision: 'approve',
      scope: 'run',
    });
    const approved = await runtime.respondWithLink(forRun.approveForRun!, { mode: 'record' });
    // scope 'run' covers the sibling call of the same tool: nothing is left to ask.
    expect(approved.snapshot.audit.map((entry) => [entry.approvalId, entry.source, entry.scope, entry.by])).toEqual([
      [first!.approvalId, 'human', 'run', 'alice@example.com'],
      [second!.approvalId, 'memory', 'once', 'alice@example.com'],
    ]);
    expect(approved.snapshot.pendingApprovals).toEqual([]);

    const other = countingAgent();
    const denying = createRuntime({ agents: [other.agent], links: { secret } });
    const waiting = await denying.start(other.agent.name, { input: 'pay' });
    const tokens = await denying.linkTokens(waiting.runId, waiting.pendingApprovals[0]!.approvalId);
    await expect(denying.respondWithLink(tokens.deny!, { reason: '' })).rejects.toMatchObject({
      code: 'invalid_config',
    });
    const denied = await denying.respondWithLink(tokens.deny!, {
      mode: 'record',
      approvedBy: 'slack:U1',
      reason: 'wrong account',
    });
    expect(denied.snapshot.audit[0]).toMatchObject({ decision: 'denied', by: 'slack:U1', reason: 'wrong account' });
  });
});
