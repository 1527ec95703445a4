// With a decisionSecret, a run head altered directly in Redis (approvers
// stripped, expiry pushed back) and committed through the store cannot get a
// call approved: the decision is refused and nothing runs.
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, inject, it } from 'vitest';
import {
  ApprovalSignatureError,
  createRuntime,
  deserialize,
  type AgentSnapshot,
  type ApprovalRequest,
} from 'countersign';
import { createRedisStore } from 'countersign/redis';
import { agentCalling, newExecutions, recordingTool } from '../support/policy-harness.js';
import { connect, removePrefix, uniquePrefix } from './redis-harness.js';

const url = inject('redisUrl');

describe.skipIf(!url)('a run head altered in Redis', () => {
  const redis = connect(url!);
  const prefix = uniquePrefix();
  afterAll(async () => {
    await removePrefix(redis, prefix);
    redis.disconnect();
  });

  async function pausedTransfer() {
    const executions = newExecutions();
    let now = Date.UTC(2026, 0, 1);
    const agent = agentCalling([[{ name: 'transfer', args: { to: 'mallory', amount: 1_000_000 } }]], {
      tools: [recordingTool('transfer', { needsApproval: true }, executions)],
      decisionSecret: 'redis-decision-secret-0123456789',
      approvalTtlMs: 60_000,
      clock: () => now,
      policy: { rules: [{ id: 'cfo-only', tool: 'transfer', action: 'ask', approvers: ['cfo'] }] },
    });
    const store = createRedisStore({ redis, prefix });
    const runtime = createRuntime({ agents: [agent], store, clock: () => now });
    const paused = await runtime.start(agent.name, { input: 'pay' });
    /** Loads the head from Redis, changes the pending request, and commits it through the store. */
    const alterStored = async (change: (request: ApprovalRequest) => ApprovalRequest) => {
      const stored = (await store.load(paused.runId))!;
      const altered: AgentSnapshot = {
        ...stored,
        version: stored.version + 1,
        pendingApprovals: stored.pendingApprovals.map(change),
      };
      await store.commit(altered, stored.version);
      return (await store.load(paused.runId))!.pendingApprovals[0]!;
    };
    return { runtime, paused, executions, alterStored, later: (ms: number) => (now += ms) };
  }

  it('reads heads written in snapshot format 1 and 2 back as they were', async () => {
    const store = createRedisStore({ redis, prefix });
    for (const version of [1, 2]) {
      const snapshot = deserialize(
        readFileSync(new URL(`../fixtures/snapshots/v${version}.json`, import.meta.url), 'utf8'),
      );
      await store.create(snapshot);
      expect(await store.load(snapshot.runId)).toEqual(snapshot);
    }
  });

  it('refuses an approval by a non-approver after approvers were stripped from the stored head', async () => {
    const { runtime, paused, executions, alterStored } = await pausedTransfer();
    const request = await alterStored(({ approvers: _approvers, ...rest }) => rest);
    expect(request.approvers).toBeUndefined();
    await expect(
      runtime.respond(paused.runId, {
        approvalId: request.approvalId,
        approved: true,
        approvedBy: 'mallory',
        signature: request.signature!,
      }),
    ).rejects.toThrow(ApprovalSignatureError);
    expect(executions.count('transfer')).toBe(0);
    expect((await runtime.get(paused.runId)).pendingApprovals.map((item) => item.approvalId)).toEqual([
      request.approvalId,
    ]);
  });

  it('refuses an approval after the real expiry when expiresAt was pushed back in the stored head', async () => {
    const { runtime, paused, executions, alterStored, later } = await pausedTransfer();
    const request = await alterStored((item) => ({ ...item, expiresAt: item.expiresAt! + 86_400_000 }));
    later(120_000);
    await expect(
      runtime.respond(paused.runId, {
        approvalId: request.approvalId,
        approved: true,
        approvedBy: 'cfo',
        signature: request.signature!,
      }),
    ).rejects.toThrow(ApprovalSignatureError);
    expect(executions.count('transfer')).toBe(0);
    expect((await runtime.get(paused.runId)).status).toBe('awaitingApproval');
  });
});
