// respondWithLink({ approvedBy }): who used a link, unless the link names someone itself.
import { describe, expect, it } from 'vitest';
import { createRuntime } from 'countersign';
import { expectOpaque } from '../support/opaque-token.js';
import { countingAgent, manualClock } from '../support/runtime-harness.js';

const secret = 'link-secret-0123456789abcdef';
const token = (url: string) => url.split('/links/')[1]!;

describe('respondWithLink approvedBy', () => {
  it('records the caller\'s approvedBy for a token minted without one, and the token\'s own when it has one', async () => {
    const clock = manualClock();
    const counting = countingAgent({ clock, calls: 2 });
    const runtime = createRuntime({ agents: [counting.agent], clock, links: { secret, baseUrl: 'https://approvals.example.com' } });
    const paused = await runtime.start(counting.agent.name, { input: 'pay' });
    const [first, second] = paused.pendingApprovals;

    const anonymous = await runtime.approvalLinks(paused.runId, first!.approvalId);
    const named = await runtime.approvalLinks(paused.runId, second!.approvalId, { approvedBy: 'alice@example.com' });
    await runtime.respondWithLink(token(anonymous.approve), { mode: 'record', approvedBy: 'slack:U123' });
    const result = await runtime.respondWithLink(token(named.deny), { mode: 'record', approvedBy: 'slack:U999' });

    expect(result.snapshot.audit.map((entry) => [entry.approvalId, entry.decision, entry.by])).toEqual([
      [first!.approvalId, 'approved', 'slack:U123'],
      [second!.approvalId, 'denied', 'alice@example.com'],
    ]);
  });

  it('seals the token: neither the person it names nor the run can be read from the URL; the runtime answers both', async () => {
    const counting = countingAgent();
    const runtime = createRuntime({ agents: [counting.agent], links: { secret, baseUrl: 'https://approvals.example.com' } });
    const paused = await runtime.start(counting.agent.name, { input: 'pay' });
    const approvalId = paused.pendingApprovals[0]!.approvalId;
    const links = await runtime.approvalLinks(paused.runId, approvalId, { approvedBy: 'alice@example.com' });
    for (const url of [links.approve, links.deny]) expectOpaque(token(url), ['alice@example.com', 'alice', paused.runId, approvalId]);
    expect((await runtime.inspectLink(token(links.approve))).claim).toMatchObject({ runId: paused.runId, approvalId, approvedBy: 'alice@example.com' });
    const result = await runtime.respondWithLink(token(links.approve), { mode: 'record' });
    expect(result).toMatchObject({ runId: paused.runId, approvalId, duplicate: false });
    await expect(runtime.respondWithLink(token(links.approve))).rejects.toMatchObject({ reason: 'used', runId: paused.runId, approvalId });
  });

  it('still records link:<decision> when nobody is named', async () => {
    const counting = countingAgent();
    const runtime = createRuntime({ agents: [counting.agent], links: { secret, baseUrl: 'https://approvals.example.com' } });
    const paused = await runtime.start(counting.agent.name, { input: 'pay' });
    const links = await runtime.approvalLinks(paused.runId, paused.pendingApprovals[0]!.approvalId);
    const result = await runtime.respondWithLink(token(links.approve), { mode: 'record' });
    expect(result.snapshot.audit[0]!.by).toBe('link:approve');
  });
});
