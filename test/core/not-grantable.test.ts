// A tool marked `grantable: false` is decided by a person every time: its requests offer no wider scope than once, so
// no run memory or session grant covers its calls.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  createAgent,
  createMemoryGrantStore,
  DecisionNotOfferedError,
  withApprovalResponse,
  type AgentSnapshot,
} from 'countersign';
import { callingModel, decisionSecret } from '../support/grant-harness.js';
import { newExecutions, recordingTool } from '../support/policy-harness.js';

function agentWith(grantable: boolean) {
  const executions = newExecutions();
  const agent = createAgent({
    name: `not-grantable-${randomUUID().slice(0, 8)}`,
    model: callingModel(),
    tools: [recordingTool('deploy', { needsApproval: true, grantable }, executions)],
    grantStore: createMemoryGrantStore(),
    decisionSecret,
  });
  const calls = JSON.stringify([
    { name: 'deploy', args: { env: 'prod' } },
    { name: 'deploy', args: { env: 'prod' } },
  ]);
  const run = () => agent.execute({ input: calls, sessionId: 'chat-1' });
  const approve = async (paused: AgentSnapshot, scope: 'run' | 'session') => {
    const request = paused.pendingApprovals[0]!;
    const response = {
      approvalId: request.approvalId,
      approved: true,
      approvedBy: 'alice',
      scope,
      ...(request.signature === undefined ? {} : { signature: request.signature }),
    };
    return agent.execute(withApprovalResponse(paused, response, { agent }));
  };
  return { run, approve, executions };
}

describe('grantable: false', () => {
  it('offers only once-decisions, and refuses a run or session approval', async () => {
    const { run, approve } = agentWith(false);
    const paused = await run();
    expect(paused.pendingApprovals.map((request) => request.decisions)).toEqual([
      ['approve', 'edit', 'deny'],
      ['approve', 'edit', 'deny'],
    ]);
    await expect(approve(paused, 'run')).rejects.toThrow(DecisionNotOfferedError);
    await expect(approve(paused, 'session')).rejects.toThrow(DecisionNotOfferedError);
  });

  it('is covered as before when grantable', async () => {
    const { run, approve } = agentWith(true);
    const first = await approve(await run(), 'session');
    expect(first.status).toBe('completed');
    expect((await run()).status).toBe('completed');
  });
});
