// tool-finished: how a call a person approved ended, announced so a channel can update the message that asked.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, defineTool, withApprovalResponse, type RunEvent } from 'countersign';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';

function agentWith(execute: (input: { path: string }) => Promise<unknown>, events: RunEvent[]) {
  const tool = defineTool({
    name: 'delete_file',
    description: 'Delete a file',
    input: z.object({ path: z.string() }),
    needsApproval: true,
    execute,
  });
  const read = defineTool({
    name: 'read_file',
    description: 'Read a file',
    input: z.object({ path: z.string() }),
    needsApproval: false,
    execute: async () => 'text',
  });
  const model = createScriptedModel(({ messages }) =>
    messages.at(-1)?.role === 'tool'
      ? textTurn('done')
      : toolCallTurn([
          { name: 'read_file', args: { path: '/a' } },
          { name: 'delete_file', args: { path: '/a' } },
        ]),
  );
  return createAgent({ name: 'files', model, tools: [tool, read], onEvent: (event) => void events.push(event) });
}

describe('tool-finished', () => {
  it('announces an approved call that succeeded, with the start of its result, and none for calls nobody was asked about', async () => {
    const events: RunEvent[] = [];
    const agent = agentWith(async ({ path }) => ({ deleted: path, note: 'x'.repeat(5000) }), events);
    const paused = await agent.execute({ input: 'go' });
    const approvalId = paused.pendingApprovals[0]!.approvalId;
    await agent.execute(withApprovalResponse(paused, { approvalId, approved: true, approvedBy: 'alice' }, { agent }));
    const finished = events.filter((event) => event.type === 'tool-finished');
    expect(finished).toHaveLength(1);
    expect(finished[0]).toMatchObject({ approvalId, toolName: 'delete_file', status: 'succeeded' });
    expect(finished[0]!.type === 'tool-finished' && finished[0]!.result).toMatch(/^\{"deleted":"\/a"/);
    expect(finished[0]!.type === 'tool-finished' && finished[0]!.result.length).toBe(1000);
  });

  it('announces an approved call that threw as failed, and nothing for a denied one', async () => {
    const events: RunEvent[] = [];
    const agent = agentWith(async () => Promise.reject(new Error('disk is read-only')), events);
    const paused = await agent.execute({ input: 'go' });
    const approvalId = paused.pendingApprovals[0]!.approvalId;
    await agent.execute(withApprovalResponse(paused, { approvalId, approved: true }, { agent }));
    expect(events.filter((event) => event.type === 'tool-finished')).toEqual([
      expect.objectContaining({ approvalId, status: 'failed', result: expect.stringContaining('disk is read-only') }),
    ]);

    const denials: RunEvent[] = [];
    const denying = agentWith(async () => 'never', denials);
    const waiting = await denying.execute({ input: 'go' });
    await denying.execute(
      withApprovalResponse(
        waiting,
        { approvalId: waiting.pendingApprovals[0]!.approvalId, approved: false },
        { agent: denying },
      ),
    );
    expect(denials.filter((event) => event.type === 'tool-finished')).toEqual([]);
  });
});
