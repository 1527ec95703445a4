// Runs carry a session: validated at the start, kept by every step and through the codec, announced with each
// approval request, and bound by the run's signatures so a request or decision cannot be moved to another session.
import { describe, expect, it } from 'vitest';
import {
  ApprovalSignatureError,
  ConfigError,
  deserialize,
  serialize,
  withApprovalResponse,
  type RunEvent,
} from 'countersign';
import { decisionSignatureOf } from '../../src/decisions/decision-signature.js';
import { agentCalling, newExecutions, recordingTool } from '../support/policy-harness.js';
import { thrown } from '../support/test-kit.js';

const decisionSecret = 'test-decision-secret-0123456789';

function sessionAgent(events: RunEvent[] = []) {
  const executions = newExecutions();
  const agent = agentCalling([[{ name: 'deploy', args: { env: 'prod' } }]], {
    tools: [recordingTool('deploy', { needsApproval: true }, executions)],
    decisionSecret,
    onEvent: (event) => void events.push(event),
  });
  return { agent, executions };
}

describe('a run with a session', () => {
  it('keeps its session through every step to the end and announces it (and who asked) with each approval request', async () => {
    const events: RunEvent[] = [];
    const { agent, executions } = sessionAgent(events);
    const paused = await agent.execute({ input: 'deploy', sessionId: 'chat-42', requestedBy: 'cy' });
    expect(paused.sessionId).toBe('chat-42');
    expect(events.find((event) => event.type === 'approval-requested')).toMatchObject({
      sessionId: 'chat-42',
      requestedBy: 'cy',
      runId: paused.runId,
    });
    const request = paused.pendingApprovals[0]!;
    const decided = withApprovalResponse(
      paused,
      { approvalId: request.approvalId, approved: true, approvedBy: 'alice', signature: request.signature! },
      { agent },
    );
    const done = await agent.execute(decided);
    expect(done.status).toBe('completed');
    expect(done.sessionId).toBe('chat-42');
    expect(executions.count('deploy')).toBe(1);
  });

  it('round-trips through serialize and deserialize, and a run without one has none', async () => {
    const { agent } = sessionAgent();
    const paused = await agent.execute({ input: 'deploy', sessionId: 'chat-42' });
    expect(deserialize(serialize(paused))).toEqual(paused);
    const plain = await agent.execute({ input: 'deploy' });
    expect('sessionId' in deserialize(serialize(plain))).toBe(false);
  });

  it('refuses a session id that is not 1 to 128 safe characters, naming the field and the fix', async () => {
    const { agent } = sessionAgent();
    for (const sessionId of ['', 'has space', 'x'.repeat(129), 'a/b']) {
      const error = await agent.execute({ input: 'deploy', sessionId }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toMatch(/sessionId/);
      expect((error as Error).message).toMatch(/use 1 to 128 letters, digits/);
    }
  });

  it('binds the session in the request signature: a run moved to another session in storage cannot be approved', async () => {
    const { agent, executions } = sessionAgent();
    const paused = await agent.execute({ input: 'deploy', sessionId: 'chat-42' });
    const request = paused.pendingApprovals[0]!;
    const moved = deserialize(serialize(paused).replace('"sessionId":"chat-42"', '"sessionId":"chat-99"'));
    expect(moved.sessionId).toBe('chat-99');
    const refused = thrown(() =>
      withApprovalResponse(
        moved,
        { approvalId: request.approvalId, approved: true, approvedBy: 'alice', signature: request.signature! },
        { agent },
      ),
    );
    expect(refused).toBeInstanceOf(ApprovalSignatureError);
    const dropped = deserialize(serialize(paused).replace(',"sessionId":"chat-42"', ''));
    expect(dropped.sessionId).toBeUndefined();
    expect(
      thrown(() =>
        withApprovalResponse(
          dropped,
          { approvalId: request.approvalId, approved: true, signature: request.signature! },
          { agent },
        ),
      ),
    ).toBeInstanceOf(ApprovalSignatureError);
    expect(executions.count('deploy')).toBe(0);
  });

  it('binds the session in the decision signature: a decision verifies for its own session only', async () => {
    const { agent } = sessionAgent();
    const paused = await agent.execute({ input: 'deploy', sessionId: 'chat-42' });
    const request = paused.pendingApprovals[0]!;
    const entry = withApprovalResponse(
      paused,
      { approvalId: request.approvalId, approved: true, approvedBy: 'alice', signature: request.signature! },
      { agent },
    ).audit.at(-1)!;
    expect(decisionSignatureOf(decisionSecret, paused, entry)).toBe('v2');
    expect(decisionSignatureOf(decisionSecret, { runId: paused.runId, sessionId: 'chat-99' }, entry)).toBeUndefined();
    expect(decisionSignatureOf(decisionSecret, { runId: paused.runId }, entry)).toBeUndefined();
  });
});
