import { describe, expect, it } from 'vitest';
import { AgentNotFoundError, ConfigError, ToolNotFoundError, createAgent, deserialize, serialize, withApprovalResponse } from 'countersign';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';
import { newLedger, pathTool } from '../support/core-harness.js';

const model = () => createScriptedModel((request) => (request.messages.at(-1)?.role === 'tool' ? textTurn('done') : toolCallTurn('delete_file', { path: '/a' })));

describe('finding the agent and its tools again', () => {
  it('withApprovalResponse finds the agent by the snapshot name; an unknown name is an AgentNotFoundError', async () => {
    const agent = createAgent({ name: 'agents-test-known', model: model(), tools: [pathTool('delete_file', newLedger())] });
    const paused = await agent.execute({ input: 'go' });
    const doc = JSON.parse(serialize(paused));
    doc.head.json.agentName = 'agents-test-never-created';
    const orphan = deserialize(JSON.stringify(doc));
    let error: unknown;
    try {
      withApprovalResponse(orphan, { approvalId: orphan.pendingApprovals[0]!.approvalId, approved: true });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(AgentNotFoundError);
    expect(error).toMatchObject({ code: 'agent_not_found', agentName: 'agents-test-never-created' });
    // Passing the agent explicitly is checked against the snapshot too.
    expect(() => withApprovalResponse(orphan, { approvalId: orphan.pendingApprovals[0]!.approvalId, approved: true }, { agent })).toThrow(ConfigError);
  });

  it('execute refuses a snapshot of another agent with a ConfigError', async () => {
    const owner = createAgent({ name: 'agents-test-owner', model: model(), tools: [pathTool('delete_file', newLedger())] });
    const other = createAgent({ name: 'agents-test-other', model: model(), tools: [pathTool('delete_file', newLedger())] });
    const paused = await owner.execute({ input: 'go' });
    await expect(other.execute(paused)).rejects.toThrow(/belongs to agent agents-test-owner/);
  });

  it('resuming an approved call of a tool the agent no longer has is a ToolNotFoundError; nothing runs', async () => {
    const ledger = newLedger();
    const before = createAgent({ name: 'agents-test-redeployed', model: model(), tools: [pathTool('delete_file', ledger)] });
    const paused = await before.execute({ input: 'go' });
    const approved = withApprovalResponse(paused, { approvalId: paused.pendingApprovals[0]!.approvalId, approved: true });
    // A new deployment registers the same agent without the tool.
    const after = createAgent({ name: 'agents-test-redeployed', model: model(), tools: [pathTool('move_file', ledger)] });
    await expect(after.execute(approved)).rejects.toMatchObject({ name: 'ToolNotFoundError', code: 'tool_not_found', toolName: 'delete_file' });
    await expect(after.execute(approved)).rejects.toBeInstanceOf(ToolNotFoundError);
    expect(() => withApprovalResponse(paused, { approvalId: paused.pendingApprovals[0]!.approvalId, approved: true, args: { path: '/b' } })).toThrow(ToolNotFoundError);
    expect(ledger.count()).toBe(0);
  });
});
