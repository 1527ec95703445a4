import { describe, expect, it } from 'vitest';
import { auditLog, withApprovalResponse, type RunEvent } from 'countersign';
import { agentCalling, newExecutions, recordingTool } from '../support/policy-harness.js';

describe('audit', () => {
  it('records every decision once, human or automatic, and announces each as approval-resolved', async () => {
    const events: RunEvent[] = [];
    const executions = newExecutions();
    const agent = agentCalling(
      [
        [
          { name: 'lookup', args: { q: 'x' } },
          { name: 'write', args: { path: '/a', body: 'v1' } },
          { name: 'drop', args: {} },
        ],
      ],
      {
        tools: [
          recordingTool('lookup', { needsApproval: false }, executions),
          recordingTool('write', {}, executions),
          recordingTool('drop', {}, executions),
        ],
        policy: { rules: [{ id: 'no-drop', tool: 'drop', action: 'deny', reason: 'never' }] },
        onEvent: (event) => events.push(event),
      },
    );
    const paused = await agent.execute({ input: 'go' });
    const request = paused.pendingApprovals[0]!;
    const edited = withApprovalResponse(
      paused,
      {
        approvalId: request.approvalId,
        approved: true,
        approvedBy: 'alice',
        args: { path: '/a', body: 'v2' },
        reason: 'fixed the body',
      },
      { agent },
    );
    const done = await agent.execute(edited);

    expect(executions.byTool.get('write')).toEqual([{ path: '/a', body: 'v2' }]);
    const log = auditLog(done);
    expect(log).toEqual([
      expect.objectContaining({ toolName: 'lookup', decision: 'approved', source: 'tool', scope: 'once' }),
      expect.objectContaining({ toolName: 'drop', decision: 'denied', source: 'rule', ruleId: 'no-drop' }),
      expect.objectContaining({
        toolName: 'write',
        decision: 'approved',
        source: 'human',
        by: 'alice',
        reason: 'fixed the body',
        approvalId: request.approvalId,
        argsDigest: request.argsDigest,
        editedArgsDigest: expect.stringMatching(/^[0-9a-f]{64}$/),
      }),
    ]);
    expect(log[2]!.editedArgsDigest).not.toBe(log[2]!.argsDigest);

    const resolved = events.filter((event) => event.type === 'approval-resolved');
    expect(resolved.map((event) => (event.type === 'approval-resolved' ? event.entry : undefined))).toEqual(log);
    expect(events.map((event) => event.type)).toEqual([
      'approval-resolved',
      'approval-resolved',
      'approval-requested',
      'approval-resolved',
      'tool-finished',
      'run-completed',
    ]);
  });

  it('a listener that throws does not stop the run', async () => {
    const agent = agentCalling([[{ name: 'lookup', args: {} }]], {
      tools: [recordingTool('lookup', { needsApproval: false })],
      onEvent: () => {
        throw new Error('listener broke');
      },
    });
    expect((await agent.execute({ input: 'go' })).status).toBe('completed');
  });
});
