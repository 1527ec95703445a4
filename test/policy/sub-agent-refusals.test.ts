// What countersign refuses around sub-agents (agentAsTool), as docs/threat-model.md states it: a forged path, a
// sub-agent run moved to another delegate call, a decision for the delegate call itself, a sub-agent whose own rules
// try to loosen the parent's, and a grant reused under another chain of agents.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  agentAsTool,
  ApprovalSignatureError,
  type AgentSnapshot,
  createAgent,
  createMemoryGrantStore,
  defineTool,
  type ToolCallRecord,
  UnknownApprovalError,
  withApprovalResponse,
} from 'countersign';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';

const SECRET = 'sub-agent-refusals-secret-0123456789';

function chain(
  options: { readonly childAllows?: boolean; readonly parentAsks?: boolean; readonly delegations?: number } = {},
) {
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
  const grantStore = createMemoryGrantStore();
  const deployer = createAgent({
    name: 'deployer',
    model: createScriptedModel(({ messages }) =>
      messages.at(-1)?.role === 'tool' ? textTurn('shipped') : toolCallTurn('deploy', { version: '1.4' }),
    ),
    tools: [deploy],
    grantStore,
    ...(options.childAllows
      ? { policy: { rules: [{ id: 'ship-freely', tool: 'deploy', action: 'allow' as const }] } }
      : {}),
  });
  const lead = createAgent({
    name: 'lead',
    model: createScriptedModel(({ messages }) =>
      messages.at(-1)?.role === 'tool'
        ? textTurn('done')
        : toolCallTurn(
            Array.from({ length: options.delegations ?? 1 }, (_, index) => ({
              name: 'deployer',
              args: { task: `ship ${index}` },
            })),
          ),
    ),
    tools: [agentAsTool(deployer)],
    decisionSecret: SECRET,
    grantStore,
    ...(options.parentAsks
      ? { policy: { rules: [{ id: 'deploys', tool: 'deploy', action: 'ask' as const, approvers: ['ana'] }] } }
      : {}),
  });
  return { ran, deployer, lead, grantStore };
}

const approve = (paused: AgentSnapshot, index = 0) => {
  const request = paused.pendingApprovals[index]!;
  return { approvalId: request.approvalId, approved: true, approvedBy: 'ana', signature: request.signature! };
};

describe('what a sub-agent chain refuses', () => {
  it('a forged path: one naming a delegate call that keeps no sub-agent run is refused, and the decision is checked in the sub-agent run against its own signed request', async () => {
    const { lead, ran } = chain();
    const paused = await lead.execute({ input: 'go' });
    const request = paused.pendingApprovals[0]!;
    const elsewhere = { ...request, path: [{ ...request.path![0]!, toolCallId: 'call_elsewhere' }] };
    expect(() =>
      withApprovalResponse({ ...paused, pendingApprovals: [elsewhere] }, approve(paused), { agent: lead }),
    ).toThrow(/its path names delegate call call_elsewhere, which has no sub-agent run/);
    // The parent's copy only says where to go: a signature that is not the sub-agent's request's is refused there.
    expect(() =>
      withApprovalResponse(paused, { ...approve(paused), signature: `v2.${'0'.repeat(64)}` }, { agent: lead }),
    ).toThrow(ApprovalSignatureError);
    expect(ran).toEqual([]);
  });

  it('a sub-agent run moved to another delegate call is refused, whether its record or its own parent call is changed', async () => {
    const { lead, ran } = chain({ delegations: 2 });
    const paused = await lead.execute({ input: 'go' });
    expect(paused.pendingApprovals).toHaveLength(2);
    const [a, b] = paused.toolCalls as [ToolCallRecord, ToolCallRecord];
    const swapped = {
      ...paused,
      toolCalls: [
        { ...a, child: b.child },
        { ...b, child: a.child },
      ],
    } as AgentSnapshot;
    expect(() => withApprovalResponse(swapped, approve(paused), { agent: lead })).toThrow(
      /belongs to another place in the chain; the snapshot was altered\. Nothing was decided\./,
    );
    // Its parent call rewritten to match the record it was moved to: its requests were signed for the other call.
    const second = paused.pendingApprovals[1]!;
    const moved = {
      ...paused,
      toolCalls: [{ ...a, child: { ...b.child!, parentToolCallId: a.toolCallId } }, b],
      pendingApprovals: [
        paused.pendingApprovals[0]!,
        { ...second, path: [{ ...second.path![0]!, toolCallId: a.toolCallId }] },
      ],
    } as AgentSnapshot;
    expect(() => withApprovalResponse(moved, approve(paused, 1), { agent: lead })).toThrow(ApprovalSignatureError);
    expect(ran).toEqual([]);
  });

  it('a decision for the delegate call itself is refused: it is never a request, only its sub-agent’s calls are', async () => {
    const { lead, ran } = chain();
    const paused = await lead.execute({ input: 'go' });
    const delegate = paused.toolCalls[0]!;
    expect(delegate.approvalId).toBeUndefined();
    expect(() =>
      withApprovalResponse(
        paused,
        { approvalId: delegate.toolCallId, approved: true, approvedBy: 'ana' },
        { agent: lead },
      ),
    ).toThrow(UnknownApprovalError);
    expect(ran).toEqual([]);
  });

  it('a sub-agent whose own rules allow a call the parent’s rules ask about is asked, of the parent’s approvers', async () => {
    const alone = chain({ childAllows: true });
    expect((await alone.lead.execute({ input: 'go' })).status).toBe('completed');
    const { lead, ran } = chain({ childAllows: true, parentAsks: true });
    const paused = await lead.execute({ input: 'go' });
    expect(paused.status).toBe('awaitingApproval');
    expect(paused.pendingApprovals[0]).toMatchObject({
      toolName: 'deploy',
      ruleId: 'lead:deploys',
      approvers: ['ana'],
    });
    expect(ran).toEqual([]);
  });

  it('a grant given under one chain covers that chain only: not the sub-agent on its own, nor under another parent', async () => {
    const { lead, deployer, grantStore, ran } = chain();
    const paused = await lead.execute({ input: 'go' });
    const granted = withApprovalResponse(
      paused,
      { ...approve(paused), scope: 'agent', grant: { ttlMs: 60_000 } },
      { agent: lead },
    );
    expect((await lead.execute(granted)).status).toBe('completed');
    expect((await lead.execute({ input: 'again' })).status).toBe('completed');
    expect(ran).toEqual(['1.4', '1.4']);
    expect((await deployer.execute({ input: 'go' })).status).toBe('awaitingApproval');
    const other = createAgent({
      name: 'other',
      model: createScriptedModel(({ messages }) =>
        messages.at(-1)?.role === 'tool' ? textTurn('done') : toolCallTurn('deployer', { task: 'ship' }),
      ),
      tools: [agentAsTool(deployer)],
      decisionSecret: SECRET,
      grantStore,
    });
    expect((await other.execute({ input: 'go' })).status).toBe('awaitingApproval');
    expect(ran).toEqual(['1.4', '1.4']);
  });
});
