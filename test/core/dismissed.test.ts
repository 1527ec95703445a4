// A request closed without a decision (the dialog dismissed): a decision source of its own, distinct from a denial and
// from expiry, signed like the others; the call does not run, the model reads that nobody decided, the run goes on.
import { describe, expect, it } from 'vitest';
import { ConfigError, DecisionConflictError, deserialize, serialize, withApprovalResponse } from 'countersign';
import { decisionSignatureOf } from '../../src/decisions/decision-signature.js';
import { harness, json, startPaused } from '../http/harness.js';
import { agentCalling, newExecutions, recordingTool } from '../support/policy-harness.js';
import { thrown } from '../support/test-kit.js';

const decisionSecret = 'test-decision-secret-0123456789';

async function paused() {
  const executions = newExecutions();
  const agent = agentCalling([[{ name: 'deploy', args: { env: 'prod' } }]], {
    tools: [recordingTool('deploy', { needsApproval: true }, executions)],
    decisionSecret,
  });
  const snap = await agent.execute({ input: 'deploy' });
  const request = snap.pendingApprovals[0]!;
  return {
    agent,
    snap,
    request,
    executions,
    dismiss: {
      approvalId: request.approvalId,
      approved: false,
      dismissed: true,
      approvedBy: 'alice',
      signature: request.signature!,
    },
  };
}

describe("a dismissed request (source 'dismissed')", () => {
  it('is recorded as dismissed, not as a denial or an expiry; the call does not run and the model reads that nobody decided', async () => {
    const { agent, snap, executions, dismiss } = await paused();
    const decided = withApprovalResponse(snap, dismiss, { agent });
    expect(decided.audit.at(-1)).toMatchObject({ decision: 'denied', source: 'dismissed', by: 'alice' });
    const done = await agent.execute(decided);
    expect(done.status).toBe('completed');
    expect(executions.count('deploy')).toBe(0);
    const result = JSON.parse(done.messages.find((message) => message.role === 'tool')!.content);
    expect(result).toMatchObject({ status: 'denied', reason: 'dismissed' });
    expect(result.message).toMatch(
      /^Nobody decided on this call: the request was closed without an approval or a denial, so it did not run\./,
    );
  });

  it('is signed over its source: the entry verifies, and turned into a human denial in storage it no longer does', async () => {
    const { agent, snap, dismiss } = await paused();
    const entry = withApprovalResponse(snap, dismiss, { agent }).audit.at(-1)!;
    expect(decisionSignatureOf(decisionSecret, snap, entry)).toBe('v2');
    expect(decisionSignatureOf(decisionSecret, snap, { ...entry, source: 'human' })).toBeUndefined();
  });

  it('survives serialize and deserialize', async () => {
    const { agent, snap, dismiss } = await paused();
    const decided = withApprovalResponse(snap, dismiss, { agent });
    expect(deserialize(serialize(decided)).audit.at(-1)!.source).toBe('dismissed');
  });

  it('a repeat is the same outcome; a later denial or approval is a conflict', async () => {
    const { agent, snap, request, dismiss } = await paused();
    const decided = withApprovalResponse(snap, dismiss, { agent });
    expect(withApprovalResponse(decided, dismiss, { agent })).toBe(decided);
    const denial = { approvalId: request.approvalId, approved: false, signature: request.signature! };
    expect(thrown(() => withApprovalResponse(decided, denial, { agent }))).toBeInstanceOf(DecisionConflictError);
  });

  it('goes only with approved: false, and no edit or scope', async () => {
    const { agent, snap, dismiss } = await paused();
    for (const response of [
      { ...dismiss, approved: true },
      { ...dismiss, args: { env: 'dev' } },
      { ...dismiss, scope: 'run' as const },
    ]) {
      const error = thrown(() => withApprovalResponse(snap, response, { agent }));
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toMatch(/send \{ approvalId, approved: false, dismissed: true \}/);
    }
  });

  it('is accepted over HTTP where decisions are', async () => {
    const h = harness();
    const { runId, approvalId } = await startPaused(h);
    const res = await h.app.request(
      `/runs/${runId}/approvals/${approvalId}`,
      json({ approved: false, dismissed: true, approvedBy: 'alice' }),
    );
    expect(res.status).toBe(200);
    const body = (await res.json()) as { status: string; run: { audit: { source: string }[] } };
    expect(body.status).toBe('completed');
    expect(body.run.audit.at(-1)!.source).toBe('dismissed');
    expect(h.executed).toEqual([]);
  });
});
