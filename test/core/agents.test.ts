import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ConfigError,
  InvalidEditError,
  ToolNotFoundError,
  approveAll,
  cancel,
  createAgent,
  defineTool,
  denyAll,
  withApprovalResponse,
  type AgentSnapshot,
  type RuleStore,
  type StoredRule,
} from 'countersign';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';
import { newLedger, pathTool } from '../support/core-harness.js';

const model = (path = '/a') =>
  createScriptedModel((request) =>
    request.messages.at(-1)?.role === 'tool' ? textTurn('done') : toolCallTurn('delete_file', { path }),
  );

/** A rule store that always lists `rules` (fixed ids and times, as two apps reading one rules table would see). */
function fixedRules(...rules: StoredRule[]): RuleStore {
  const refuse = async (): Promise<never> => {
    throw new Error('read-only');
  };
  return { list: async () => rules, add: refuse, setEnabled: refuse, setShadow: refuse, remove: refuse };
}

/** A promise with its resolver. */
function signal() {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

describe('the agent a decision belongs to', () => {
  it('is required by cancel, and by the decision functions only where the agent knows more: a signed run names the fix', async () => {
    const agent = createAgent({
      name: 'agents-test-required',
      model: model(),
      tools: [pathTool('delete_file', newLedger())],
    });
    const paused = await agent.execute({ input: 'go' });
    const approvalId = paused.pendingApprovals[0]!.approvalId;
    const missing = { name: 'ConfigError', code: 'missing_option', message: expect.stringContaining('{ agent }') };
    const untyped = undefined as never;
    expect(() => cancel(paused, 'stop', untyped)).toThrow(expect.objectContaining(missing));
    // The request carries what deciding it needs: the design card's two-argument form.
    expect(withApprovalResponse(paused, { approvalId, approved: true }).status).toBe('running');
    expect(approveAll(paused, 'alice').status).toBe('running');
    expect(denyAll(paused, 'alice', 'no').status).toBe('running');
    const signedAgent = createAgent({
      name: 'agents-test-signed',
      model: model(),
      tools: [pathTool('delete_file', newLedger())],
      decisionSecret: 'test-decision-secret-0123456789',
    });
    const signed = await signedAgent.execute({ input: 'go' });
    expect(() => approveAll(signed, 'alice', untyped)).toThrow(expect.objectContaining(missing));
    expect(() => denyAll(signed, 'alice', 'no', {} as never)).toThrow(expect.objectContaining(missing));
    expect(paused.status).toBe('awaitingApproval');
  });

  it("must be the run's own agent: another agent is a ConfigError", async () => {
    const owner = createAgent({
      name: 'agents-test-owner',
      model: model(),
      tools: [pathTool('delete_file', newLedger())],
    });
    const other = createAgent({
      name: 'agents-test-other',
      model: model(),
      tools: [pathTool('delete_file', newLedger())],
    });
    const paused = await owner.execute({ input: 'go' });
    const approvalId = paused.pendingApprovals[0]!.approvalId;
    expect(() => withApprovalResponse(paused, { approvalId, approved: true }, { agent: other })).toThrow(ConfigError);
    expect(() => withApprovalResponse(paused, { approvalId, approved: true }, { agent: other })).toThrow(
      /belongs to agent agents-test-owner/,
    );
    expect(() => cancel(paused, 'stop', { agent: other })).toThrow(/belongs to agent agents-test-owner/);
    await expect(other.execute(paused)).rejects.toThrow(/belongs to agent agents-test-owner/);
  });

  it('resuming an approved call of a tool the agent no longer has is a ToolNotFoundError; nothing runs', async () => {
    const ledger = newLedger();
    const before = createAgent({
      name: 'agents-test-redeployed',
      model: model(),
      tools: [pathTool('delete_file', ledger)],
    });
    const paused = await before.execute({ input: 'go' });
    const approved = withApprovalResponse(
      paused,
      { approvalId: paused.pendingApprovals[0]!.approvalId, approved: true },
      { agent: before },
    );
    // A new deployment has the same agent without the tool.
    const after = createAgent({
      name: 'agents-test-redeployed',
      model: model(),
      tools: [pathTool('move_file', ledger)],
    });
    await expect(after.execute(approved)).rejects.toMatchObject({
      name: 'ToolNotFoundError',
      code: 'tool_not_found',
      toolName: 'delete_file',
    });
    await expect(after.execute(approved)).rejects.toBeInstanceOf(ToolNotFoundError);
    expect(() =>
      withApprovalResponse(
        paused,
        { approvalId: paused.pendingApprovals[0]!.approvalId, approved: true, args: { path: '/b' } },
        { agent: after },
      ),
    ).toThrow(ToolNotFoundError);
    expect(ledger.count()).toBe(0);
  });
});

describe('two agents with one name in one process (two apps)', () => {
  it('each decides its own snapshots with its own tools, whichever was created last', async () => {
    const ledgerA = newLedger();
    const executedB: unknown[] = [];
    const appA = createAgent({
      name: 'agents-test-shared',
      model: model('/tmp/a'),
      tools: [pathTool('delete_file', ledgerA)],
    });
    // App B's delete_file only takes paths under /tmp/.
    const appB = createAgent({
      name: 'agents-test-shared',
      model: model('/tmp/a'),
      tools: [
        defineTool({
          name: 'delete_file',
          description: 'Deletes a file under /tmp',
          input: z.object({ path: z.string().startsWith('/tmp/') }),
          needsApproval: true,
          execute: (input) => void executedB.push(input),
        }),
      ],
    });
    const pausedA = await appA.execute({ input: 'go' });
    const pausedB = await appB.execute({ input: 'go' });
    const edit = (snapshot: typeof pausedA) => ({
      approvalId: snapshot.pendingApprovals[0]!.approvalId,
      approved: true,
      args: { path: '/srv/edited' },
    });

    // The edit fits A's tool, not B's: each snapshot is checked against its own agent's tool.
    const doneA = await appA.execute(withApprovalResponse(pausedA, edit(pausedA), { agent: appA }));
    expect(() => withApprovalResponse(pausedB, edit(pausedB), { agent: appB })).toThrow(InvalidEditError);
    expect(doneA.status).toBe('completed');
    expect(ledgerA.executions.map((item) => item.input)).toEqual([{ path: '/srv/edited' }]);
    expect(executedB).toEqual([]);
  });

  it('each reads its own stored rules, even when both lists carry the same rule ids and times', async () => {
    const rule = (action: 'allow' | 'deny'): StoredRule => ({
      id: 'rule_1',
      createdAt: 1,
      enabled: true,
      tool: 'delete_file',
      action,
    });
    const ledgerA = newLedger();
    const ledgerB = newLedger();
    const appA = createAgent({
      name: 'agents-test-rules',
      model: model(),
      tools: [pathTool('delete_file', ledgerA)],
      ruleStore: fixedRules(rule('allow')),
    });
    const appB = createAgent({
      name: 'agents-test-rules',
      model: model(),
      tools: [pathTool('delete_file', ledgerB)],
      ruleStore: fixedRules(rule('deny')),
    });
    const doneA = await appA.execute({ input: 'go' });
    const doneB = await appB.execute({ input: 'go' });
    expect(doneA.audit.map((entry) => [entry.source, entry.decision])).toEqual([['rule', 'approved']]);
    expect(doneB.audit.map((entry) => [entry.source, entry.decision])).toEqual([['rule', 'denied']]);
    expect([ledgerA.count(), ledgerB.count()]).toEqual([1, 0]);
  });

  it('cancelling a run of one aborts only its own execution, not the same run id executing in the other', async () => {
    const runId = 'run_agents-test-same-id';
    const startedA = signal();
    const startedB = signal();
    const releaseB = signal();
    const abortedA: unknown[] = [];
    const abortedB: unknown[] = [];
    const waitingTool = (started: { resolve: () => void }, aborted: unknown[], release?: Promise<void>) =>
      pathTool('delete_file', newLedger(), {
        execute: (_input, ctx) =>
          new Promise((resolve) => {
            ctx.signal.addEventListener('abort', () => {
              aborted.push(ctx.signal.reason);
              resolve('stopped');
            });
            void release?.then(() => resolve('deleted'));
            started.resolve();
          }),
      });
    const appA = createAgent({
      name: 'agents-test-cancel',
      model: model(),
      tools: [waitingTool(startedA, abortedA)],
      policy: { default: 'allow' },
    });
    const appB = createAgent({
      name: 'agents-test-cancel',
      model: model(),
      tools: [waitingTool(startedB, abortedB, releaseB.promise)],
      policy: { default: 'allow' },
    });
    const snapshotsA: AgentSnapshot[] = [];
    const runningA = appA.execute(
      { input: 'go', runId },
      { checkpoint: async (snapshot) => void snapshotsA.push(snapshot) },
    );
    const runningB = appB.execute({ input: 'go', runId });
    await Promise.all([startedA.promise, startedB.promise]);

    cancel(snapshotsA.at(-1)!, 'app A stopped it', { agent: appA });
    releaseB.resolve();
    const [doneA, doneB] = await Promise.all([runningA, runningB]);

    expect(abortedA).toEqual(['app A stopped it']);
    expect(abortedB).toEqual([]);
    expect(doneA.status).toBe('cancelled');
    expect(doneB.status).toBe('completed');
  });
});
