import { describe, expect, it } from 'vitest';
import { agentAsTool, createAgent, defineTool, withApprovalResponse, serialize, deserialize } from 'countersign';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';
import { z } from 'zod';

describe('smoke', () => {
  it('pauses and resumes', async () => {
    const ran: string[] = [];
    const deploy = defineTool({
      name: 'deploy',
      description: 'Deploy',
      input: z.object({ version: z.string() }),
      needsApproval: true,
      execute: ({ version }) => {
        ran.push(version);
        return `deployed ${version}`;
      },
    });
    const childModel = createScriptedModel([toolCallTurn('deploy', { version: '1.4' }), textTurn('shipped 1.4')]);
    const deployer = createAgent({ name: 'deployer', model: childModel, tools: [deploy] });
    const parentModel = createScriptedModel([
      toolCallTurn('deployer', { task: 'ship 1.4' }),
      textTurn('done: shipped'),
    ]);
    const lead = createAgent({
      name: 'lead',
      model: parentModel,
      tools: [agentAsTool(deployer)],
      decisionSecret: 'x'.repeat(32),
    });
    const paused = await lead.execute({ input: 'ship it' });
    expect(paused.status).toBe('awaitingApproval');
    const request = paused.pendingApprovals[0]!;

    const again = deserialize(serialize(paused));
    const next = withApprovalResponse(
      again,
      { approvalId: request.approvalId, approved: true, approvedBy: 'ana', signature: request.signature },
      { agent: lead },
    );
    expect(next.status).toBe('running');
    const done = await lead.execute(next);
    expect(ran).toEqual(['1.4']);
    expect(done.status).toBe('completed');
    expect(done.output).toBe('done: shipped');

    const repeat = withApprovalResponse(
      done,
      { approvalId: request.approvalId, approved: true, approvedBy: 'ana', signature: request.signature },
      { agent: lead },
    );
    expect(repeat).toBe(done);
  });
});
