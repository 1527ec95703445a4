import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  createAgent,
  defineTool,
  ConfigError,
  withApprovalResponse,
  approveAll,
  ApproverNotAllowedError,
} from 'countersign';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';
import { z } from 'zod';

describe("the design card's API as written (examples/design-card.ts)", () => {
  it('runs in a fresh process: withApprovalResponse(snapshot, response) with no agent, then execute completes the run', () => {
    const output = execFileSync(process.execPath, ['--import', 'tsx', 'examples/design-card.ts'], { encoding: 'utf8' });
    expect(output).toMatch(/^status: awaitingApproval, stopReason: awaiting_approval$/m);
    expect(output).toContain('pending: Delete /tmp/x?');
    expect(output).toMatch(/^status: completed$/m);
    expect(output).toMatch(/^removed: \/tmp\/x \(run_\S+:\S+\)$/m);
  });

  it("is the README's one example, word for word", () => {
    const file = readFileSync(new URL('../../examples/design-card.ts', import.meta.url), 'utf8');
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const code = file.slice(file.indexOf('import { z }')).trimEnd();
    expect(readme).toContain(`\`\`\`ts\n${code}\n\`\`\``);
  });
});

describe('withApprovalResponse without { agent }', () => {
  const tool = (options: Record<string, unknown> = {}) =>
    defineTool({
      name: 'deploy',
      description: 'Deploy',
      input: z.object({ env: z.string() }),
      needsApproval: true,
      execute: () => 'ok',
      ...options,
    });
  const paused = async (options: Record<string, unknown> = {}, config: Record<string, unknown> = {}) => {
    const agent = createAgent({
      name: 'deployer',
      model: createScriptedModel([toolCallTurn('deploy', { env: 'prod' }), textTurn('done')]),
      tools: [tool(options)],
      ...config,
    });
    const snap = await agent.execute({ input: 'deploy' });
    return { agent, snap, approvalId: snap.pendingApprovals[0]!.approvalId };
  };
  const refusal = (action: () => unknown) => {
    try {
      action();
    } catch (error) {
      return error as Error;
    }
    throw new Error('expected a refusal');
  };

  it('checks the approvers the request carries, as people are compared, and approveAll works the same', async () => {
    const { agent, snap, approvalId } = await paused({ approvers: ['Alice'] });
    expect(
      refusal(() => withApprovalResponse(snap, { approvalId, approved: true, approvedBy: 'mallory' })),
    ).toBeInstanceOf(ApproverNotAllowedError);
    const next = approveAll(snap, 'alice');
    expect((await agent.execute(next)).status).toBe('completed');
  });

  it('names the fix where only the agent knows: a signed request, an edit, a function that says who may decide', async () => {
    const signed = await paused({}, { decisionSecret: 'test-decision-secret-0123456789' });
    const signature = signed.snap.pendingApprovals[0]!.signature!;
    const missing = refusal(() =>
      withApprovalResponse(signed.snap, { approvalId: signed.approvalId, approved: true, signature }),
    );
    expect(missing).toBeInstanceOf(ConfigError);
    expect(missing.message).toMatch(
      /signed with agent deployer's decisionSecret.*pass the agent as the third argument: withApprovalResponse\(snapshot, response, \{ agent \}\)/,
    );
    const plain = await paused();
    expect(
      refusal(() =>
        withApprovalResponse(plain.snap, { approvalId: plain.approvalId, approved: true, args: { env: 'staging' } }),
      ).message,
    ).toMatch(/an edit is checked against the tool's input schema.*\{ agent \}/);
    const byFunction = await paused({ approvers: (by: string | undefined) => by === 'alice' });
    expect(byFunction.snap.pendingApprovals[0]!.approverFunction).toBe(true);
    expect(
      refusal(() =>
        withApprovalResponse(byFunction.snap, {
          approvalId: byFunction.approvalId,
          approved: true,
          approvedBy: 'mallory',
        }),
      ).message,
    ).toMatch(/a function of agent deployer's tool or rule says who may decide this call.*\{ agent \}/);
    // With the agent the function decides, and the gate agrees when the call runs.
    expect(
      refusal(() =>
        withApprovalResponse(
          byFunction.snap,
          { approvalId: byFunction.approvalId, approved: true, approvedBy: 'mallory' },
          { agent: byFunction.agent },
        ),
      ),
    ).toBeInstanceOf(ApproverNotAllowedError);
    const decided = withApprovalResponse(
      byFunction.snap,
      { approvalId: byFunction.approvalId, approved: true, approvedBy: 'alice' },
      { agent: byFunction.agent },
    );
    expect((await byFunction.agent.execute(decided)).status).toBe('completed');
  });
});
