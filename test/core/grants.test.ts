// Session and agent grants: a decision that covers later calls of other runs, within its bounds, only for calls its
// granter may decide, revocable at once, and refused when forged in storage.
import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  createMemoryGrantStore,
  createMemoryStore,
  createRuntime,
  GrantSignatureError,
  withApprovalResponse,
  type AgentSnapshot,
  type Grant,
  type Model,
} from 'countersign';
import { decisionSecret, grantAgent } from '../support/grant-harness.js';
import { newExecutions, recordingTool } from '../support/policy-harness.js';
import { testAgent, testClock, thrown } from '../support/test-kit.js';
import { grantStoreContract } from '../support/grant-store-contract.js';

const deploy = (env: string) => [{ name: 'deploy', args: { env } }];

describe('scope: session', () => {
  it('approves the tool for later runs of the same session, not of another session, and records each use', async () => {
    const { run, decide, executions } = grantAgent({ decisionSecret });
    const first = await decide(await run(deploy('prod'), 'chat-1'), {
      approved: true,
      approvedBy: 'alice',
      scope: 'session',
    });
    expect(first.status).toBe('completed');
    const decision = first.audit.find((entry) => entry.source === 'human')!;
    expect(decision).toMatchObject({ scope: 'session', by: 'alice' });

    const second = await run(deploy('prod'), 'chat-1');
    expect(second.status).toBe('completed');
    const use = second.audit.at(-1)!;
    expect(use).toMatchObject({
      source: 'grant',
      decision: 'approved',
      by: 'alice',
      grantId: expect.stringMatching(/^grt_/),
    });
    expect(use.signature).toBeDefined();

    const other = await run(deploy('prod'), 'chat-2');
    expect(other.status).toBe('awaitingApproval');
    const none = await run(deploy('prod'));
    expect(none.status).toBe('awaitingApproval');
    expect(executions.count('deploy')).toBe(2);
  });

  it('denies for the session: later matching calls are denied automatically with source grant', async () => {
    const { run, decide, executions } = grantAgent({ decisionSecret });
    await decide(await run(deploy('prod'), 'chat-1'), {
      approved: false,
      approvedBy: 'alice',
      reason: 'not today',
      scope: 'session',
    });
    const later = await run(deploy('prod'), 'chat-1');
    expect(later.status).toBe('completed');
    expect(later.audit.at(-1)).toMatchObject({ source: 'grant', decision: 'denied', by: 'alice' });
    expect(executions.count('deploy')).toBe(0);
  });

  it('never covers a call that needs several approvers (one granter is not a quorum); a denial still applies', async () => {
    const twoPeople = {
      id: 'prod-two-people',
      tool: 'deploy',
      when: (args: { env: string }) => args.env === 'prod',
      action: 'ask',
      approvals: { required: 2 },
    } as const;
    const { run, decide, executions } = grantAgent({ decisionSecret, policy: { rules: [twoPeople] } });
    await decide(await run(deploy('staging'), 'chat-1'), { approved: true, approvedBy: 'alice', scope: 'session' });
    expect((await run(deploy('staging'), 'chat-1')).status).toBe('completed');
    const prod = await run(deploy('prod'), 'chat-1');
    expect(prod.status).toBe('awaitingApproval');
    expect(prod.pendingApprovals[0]).toMatchObject({ ruleId: 'prod-two-people', quorum: { required: 2 } });
    expect(executions.count('deploy')).toBe(2);

    await decide(await run(deploy('qa'), 'chat-2'), { approved: false, approvedBy: 'alice', scope: 'session' });
    expect((await run(deploy('prod'), 'chat-2')).audit.at(-1)).toMatchObject({ source: 'grant', decision: 'denied' });
    expect(executions.count('deploy')).toBe(2);
  });

  it('refuses scope session on a run without a session, naming the fix', async () => {
    const { agent, run } = grantAgent({ decisionSecret });
    const paused = await run(deploy('prod'));
    const request = paused.pendingApprovals[0]!;
    const error = thrown(() =>
      withApprovalResponse(
        paused,
        { approvalId: request.approvalId, approved: true, scope: 'session', signature: request.signature! },
        { agent },
      ),
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/sessionId/);
  });

  it('covers only arguments matching argsMatch (glob or exact value)', async () => {
    const { run, decide } = grantAgent({ decisionSecret });
    await decide(await run(deploy('staging-1'), 'chat-1'), {
      approved: true,
      approvedBy: 'alice',
      scope: 'session',
      grant: { argsMatch: { env: 'staging-*' } },
    });
    expect((await run(deploy('staging-2'), 'chat-1')).status).toBe('completed');
    expect((await run(deploy('prod'), 'chat-1')).status).toBe('awaitingApproval');
    expect((await run([{ name: 'deploy', args: { other: 'staging-3' } }], 'chat-1')).status).toBe('awaitingApproval');
  });

  it('refuses a function as argsMatch, pointing to policy rules with when', async () => {
    const { agent, run } = grantAgent({ decisionSecret });
    const paused = await run(deploy('prod'), 'chat-1');
    const request = paused.pendingApprovals[0]!;
    const response = {
      approvalId: request.approvalId,
      approved: true,
      scope: 'session',
      signature: request.signature!,
      grant: { argsMatch: (() => true) as never },
    } as const;
    const error = thrown(() => withApprovalResponse(paused, response, { agent }));
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/policy rule with `when`/);
  });

  it('validates bounds: ttlMs positive, uses a whole number of at least 1', async () => {
    const { agent, run } = grantAgent({ decisionSecret });
    const paused = await run(deploy('prod'), 'chat-1');
    const request = paused.pendingApprovals[0]!;
    for (const grant of [{ ttlMs: 0 }, { uses: 0 }, { uses: 1.5 }]) {
      const error = thrown(() =>
        withApprovalResponse(
          paused,
          { approvalId: request.approvalId, approved: true, scope: 'session', signature: request.signature!, grant },
          { agent },
        ),
      );
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toMatch(/grant\.(ttlMs|uses)/);
    }
  });

  it('also decides the siblings of the same turn it covers', async () => {
    const { run, decide, executions } = grantAgent({ decisionSecret });
    const paused = await run([...deploy('a'), ...deploy('b'), ...deploy('c')], 'chat-1');
    expect(paused.pendingApprovals).toHaveLength(3);
    const done = await decide(paused, { approved: true, approvedBy: 'alice', scope: 'session', grant: { uses: 2 } });
    // The two siblings spend the two uses (the decided call is not one): the turn runs, and the grant is spent.
    expect(done.status).toBe('completed');
    expect(done.audit.filter((entry) => entry.source === 'grant')).toHaveLength(2);
    expect(executions.count('deploy')).toBe(3);
    expect((await run(deploy('d'), 'chat-1')).status).toBe('awaitingApproval');
  });
});

describe('scope: agent', () => {
  it('requires grant.ttlMs', async () => {
    const { agent, run } = grantAgent({ decisionSecret });
    const paused = await run(deploy('prod'));
    const request = paused.pendingApprovals[0]!;
    const error = thrown(() =>
      withApprovalResponse(
        paused,
        { approvalId: request.approvalId, approved: true, scope: 'agent', signature: request.signature! },
        { agent },
      ),
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/ttlMs/);
  });

  it('covers every run of the agent until ttlMs passes on the agent clock', async () => {
    const clock = testClock();
    const { run, decide } = grantAgent({ decisionSecret, clock });
    await decide(await run(deploy('prod')), {
      approved: true,
      approvedBy: 'lead',
      scope: 'agent',
      grant: { ttlMs: 15 * 60_000 },
    });
    expect((await run(deploy('prod'), 'any-session')).status).toBe('completed');
    clock.advance(15 * 60_000 - 1);
    expect((await run(deploy('prod'))).status).toBe('completed');
    clock.advance(1);
    expect((await run(deploy('prod'))).status).toBe('awaitingApproval');
  });
});

describe('grant bounds and approvers', () => {
  it('covers at most `uses` calls', async () => {
    const { run, decide } = grantAgent({ decisionSecret });
    await decide(await run(deploy('x'), 'chat-1'), {
      approved: true,
      approvedBy: 'alice',
      scope: 'session',
      grant: { uses: 3 },
    });
    const statuses = [];
    for (let index = 0; index < 4; index += 1) statuses.push((await run(deploy('x'), 'chat-1')).status);
    // `uses` counts the calls the grant decides, not the one it was given for.
    expect(statuses).toEqual(['completed', 'completed', 'completed', 'awaitingApproval']);
  });

  it('a call evaluated again after a crash spends no second use: its use is keyed by run and call id', async () => {
    // A model that answers a turn the same way each time (same call id), as a replayed turn does.
    const executions = newExecutions();
    const model: Model = {
      async generate({ messages }) {
        if (messages.at(-1)?.role === 'tool') return { message: { role: 'assistant', content: 'done' } };
        return {
          message: {
            role: 'assistant',
            content: '',
            toolCalls: [{ id: 'call_same', name: 'deploy', args: { env: 'x' } }],
          },
        };
      },
    };
    const agent = testAgent({
      model,
      tools: [recordingTool('deploy', { needsApproval: true }, executions)],
      decisionSecret,
    });
    const first = await agent.execute({ input: 'deploy', sessionId: 'chat-1' });
    const request = first.pendingApprovals[0]!;
    const response = {
      approvalId: request.approvalId,
      approved: true,
      approvedBy: 'alice',
      scope: 'session',
      grant: { uses: 1 },
      signature: request.signature!,
    } as const;
    await agent.execute(withApprovalResponse(first, response, { agent }));
    // The process dies after the call was evaluated (its use spent), before the tool ran: recovery starts again from
    // the turn's last checkpoint and evaluates the same call again.
    const checkpoints: AgentSnapshot[] = [];
    const crash = new Error('process died');
    const checkpoint = async (snapshot: AgentSnapshot) => {
      if (snapshot.state === 'executingTools') throw crash;
      checkpoints.push(snapshot);
    };
    await expect(agent.execute({ input: 'deploy', sessionId: 'chat-1' }, { checkpoint })).rejects.toBe(crash);
    const recovered = await agent.execute(checkpoints.at(-1)!);
    expect(recovered.status).toBe('completed');
    expect(recovered.audit.at(-1)).toMatchObject({ source: 'grant', by: 'alice' });
    expect(executions.count('deploy')).toBe(2);
    // The one use is spent: another run's call is asked.
    expect((await agent.execute({ input: 'deploy', sessionId: 'chat-1' })).status).toBe('awaitingApproval');
  });

  it('never covers a call whose rule names approvers the granter is not among', async () => {
    const { run, decide } = grantAgent({
      decisionSecret,
      policy: {
        rules: [
          {
            id: 'prod-needs-ops',
            tool: 'deploy',
            when: (args: { env?: string }) => args.env === 'prod',
            action: 'ask',
            approvers: ['ops'],
          },
        ],
      },
    });
    await decide(await run(deploy('dev'), 'chat-1'), { approved: true, approvedBy: 'alice', scope: 'session' });
    expect((await run(deploy('dev'), 'chat-1')).status).toBe('completed');
    expect((await run(deploy('prod'), 'chat-1')).status).toBe('awaitingApproval');
  });
});

describe('the runtime side of a grant store', () => {
  it('revocation is immediate', async () => {
    const grantStore = createMemoryGrantStore();
    const { run, decide } = grantAgent({ decisionSecret, grantStore });
    await decide(await run(deploy('x'), 'chat-1'), { approved: true, approvedBy: 'alice', scope: 'session' });
    const [grant] = await grantStore.list({ sessionId: 'chat-1', now: Date.now() });
    expect(grant).toMatchObject({
      scope: 'session',
      sessionId: 'chat-1',
      toolName: 'deploy',
      decision: 'approved',
      grantedBy: 'alice',
      used: 0,
    });
    expect(await grantStore.revoke(grant!.id)).toBe(true);
    expect((await run(deploy('x'), 'chat-1')).status).toBe('awaitingApproval');
    expect(await grantStore.revoke(grant!.id)).toBe(false);
  });

  it('a grant forged in storage is refused with a decisionSecret, and reported', async () => {
    const grantStore = createMemoryGrantStore();
    const { agent } = grantAgent({ decisionSecret, grantStore });
    const forged: Grant = {
      id: 'grt_0123456789abcdef',
      scope: 'agent',
      agentName: agent.name,
      toolName: 'deploy',
      decision: 'approved',
      grantedBy: 'alice',
      grantedAt: Date.now(),
      expiresAt: Date.now() + 60_000,
      approvalId: 'apr_x',
      runId: 'run_x',
      signature: 'v1.00',
    };
    await grantStore.put(forged);
    const errors: unknown[] = [];
    const paused = await agent.execute(
      { input: JSON.stringify(deploy('x')) },
      { onError: (error) => void errors.push(error) },
    );
    expect(paused.status).toBe('awaitingApproval');
    expect(errors[0]).toBeInstanceOf(GrantSignatureError);
  });
});

describe('the memory grant store', () => {
  grantStoreContract(() => createMemoryGrantStore());
});

describe('docs/decisions.md: Sessions and grants', () => {
  it('runs the example: a bounded session grant covers later runs of chat-42, is listed, revoked, and the session cleared', async () => {
    const { agent, executions } = grantAgent({ decisionSecret, name: 'ops' });
    const runtime = createRuntime({ agents: [agent], store: createMemoryStore() });
    const input = (env: string) => JSON.stringify([{ name: 'deploy', args: { env } }]);
    const paused = await runtime.start('ops', { input: input('staging-1'), sessionId: 'chat-42' });
    const request = paused.pendingApprovals[0]!;
    await runtime.respond(paused.runId, {
      approvalId: request.approvalId,
      approved: true,
      approvedBy: 'alice',
      scope: 'session',
      grant: { ttlMs: 15 * 60_000, uses: 3, argsMatch: { env: 'staging-*' } },
      signature: request.signature!,
    });
    expect((await runtime.start('ops', { input: input('staging-2'), sessionId: 'chat-42' })).status).toBe('completed');
    expect((await runtime.start('ops', { input: input('prod'), sessionId: 'chat-42' })).status).toBe(
      'awaitingApproval',
    );
    const [grant] = await runtime.grants({ sessionId: 'chat-42' });
    expect(grant).toMatchObject({ id: expect.stringMatching(/^grt_/), grantedBy: 'alice', used: 1, uses: 3 });
    expect(await runtime.revokeGrant(grant!.id)).toBe(true);
    expect((await runtime.start('ops', { input: input('staging-3'), sessionId: 'chat-42' })).status).toBe(
      'awaitingApproval',
    );
    expect(await runtime.clearSession('chat-42')).toBe(0);
    expect(executions.count('deploy')).toBe(2);
  });

  it('clearSession revokes the approvals and denials of the session', async () => {
    const { agent, run, decide } = grantAgent({ decisionSecret });
    const runtime = createRuntime({ agents: [agent], store: createMemoryStore() });
    await decide(await run(deploy('a'), 'chat-7'), { approved: true, approvedBy: 'alice', scope: 'session' });
    await decide(await run([{ name: 'read', args: {} }], 'chat-7'), {
      approved: false,
      approvedBy: 'alice',
      scope: 'session',
    });
    expect(await runtime.grants({ sessionId: 'chat-7' })).toHaveLength(2);
    expect(await runtime.clearSession('chat-7')).toBe(2);
    expect(await runtime.grants({ agent: agent.name })).toEqual([]);
    expect((await run(deploy('a'), 'chat-7')).status).toBe('awaitingApproval');
  });
});
