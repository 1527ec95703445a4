// runtime.decide, the one decision path of every surface: recorded first, then the run goes on as the mode says,
// and the outcome tells how it stands (current, continuing here / on a worker / elsewhere, held).
import { describe, expect, it } from 'vitest';
import { ConfigError, createMemoryStore, createRuntime, type RunEvent, type SnapshotStore } from 'countersign';
import { countingAgent } from '../support/runtime-harness.js';

/** A gate the tool waits at, opened by the test. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

const LINK_SECRET = 'link-secret-0123456789abcdef';

describe('runtime.decide', () => {
  it('inline: the run goes on here and the outcome is the run as it ended within waitMs', async () => {
    const counting = countingAgent();
    const runtime = createRuntime({ agents: [counting.agent] });
    const paused = await runtime.start(counting.agent.name, { input: 'pay' }, { mode: 'inline' });
    const decision = { approvalId: paused.pendingApprovals[0]!.approvalId, approved: true, approvedBy: 'alice' };
    const decided = await runtime.decide(paused.runId, decision, { waitMs: 10_000 });
    expect(decided).toMatchObject({ outcome: 'current', status: 'completed', duplicate: false });
    expect(counting.executions).toHaveLength(1);
    const again = await runtime.decide(paused.runId, decision);
    expect(again).toMatchObject({ outcome: 'current', status: 'completed', duplicate: true });
    expect(counting.executions).toHaveLength(1);
  });

  it('inline past waitMs: continuing here, and the run still ends once its tool returns', async () => {
    const tool = gate();
    const counting = countingAgent({ during: () => tool.opened });
    const runtime = createRuntime({ agents: [counting.agent] });
    const paused = await runtime.start(counting.agent.name, { input: 'pay' });
    const completed = new Promise<RunEvent>((resolve) =>
      runtime.subscribe((event) => event.type === 'run-completed' && resolve(event)),
    );
    const late: unknown[] = [];
    const decided = await runtime.decide(
      paused.runId,
      { approvalId: paused.pendingApprovals[0]!.approvalId, approved: true, approvedBy: 'alice' },
      { waitMs: 0, onLateError: (error) => late.push(error) },
    );
    expect(decided).toMatchObject({ outcome: 'continuing', where: 'here', status: 'running', duplicate: false });
    tool.open();
    expect(await completed).toMatchObject({ runId: paused.runId });
    expect((await runtime.get(paused.runId)).status).toBe('completed');
    expect(late).toEqual([]);
  });

  it('record: recorded only, continuing elsewhere (the process that follows the run); a repeat is the run as it stands', async () => {
    const counting = countingAgent();
    const runtime = createRuntime({ agents: [counting.agent] });
    const paused = await runtime.start(counting.agent.name, { input: 'pay' });
    const decision = { approvalId: paused.pendingApprovals[0]!.approvalId, approved: true, approvedBy: 'alice' };
    expect(await runtime.decide(paused.runId, decision, { mode: 'record' })).toMatchObject({
      outcome: 'continuing',
      where: 'elsewhere',
      status: 'running',
    });
    expect(await runtime.decide(paused.runId, decision, { mode: 'record' })).toMatchObject({
      outcome: 'current',
      status: 'running',
      duplicate: true,
    });
    expect(counting.executions).toEqual([]);
  });

  it('enqueue: recorded with a job for a worker; without a queue refused before anything is recorded', async () => {
    const counting = countingAgent();
    const queued: string[] = [];
    const runtime = createRuntime({
      agents: [counting.agent],
      queue: { enqueue: async (runId) => void queued.push(runId) },
    });
    const paused = await runtime.start(counting.agent.name, { input: 'pay' });
    const decision = { approvalId: paused.pendingApprovals[0]!.approvalId, approved: true, approvedBy: 'alice' };
    expect(await runtime.decide(paused.runId, decision, { mode: 'enqueue' })).toMatchObject({
      outcome: 'continuing',
      where: 'worker',
      status: 'running',
    });
    expect(queued).toEqual([paused.runId]);

    const bare = createRuntime({ agents: [counting.agent] });
    const other = await bare.start(counting.agent.name, { input: 'pay' });
    await expect(
      bare.decide(
        other.runId,
        { approvalId: other.pendingApprovals[0]!.approvalId, approved: true },
        { mode: 'enqueue' },
      ),
    ).rejects.toThrow(ConfigError);
    expect(await bare.get(other.runId)).toEqual(other);
  });

  it('a vote short of the quorum: the run as it stands, with the vote progress', async () => {
    const counting = countingAgent({ approvals: { required: 2 } });
    const runtime = createRuntime({ agents: [counting.agent] });
    const paused = await runtime.start(counting.agent.name, { input: 'pay' });
    const approvalId = paused.pendingApprovals[0]!.approvalId;
    const first = await runtime.decide(paused.runId, { approvalId, approved: true, approvedBy: 'ana' });
    expect(first).toMatchObject({
      outcome: 'current',
      status: 'awaitingApproval',
      vote: { recorded: true, approvals: 1, required: 2, remaining: 1 },
    });
    const second = await runtime.decide(paused.runId, { approvalId, approved: true, approvedBy: 'bo' });
    expect(second).toMatchObject({ outcome: 'current', status: 'completed', vote: { approvals: 2, remaining: 0 } });
  });

  it("held: a putIfAbsent write whose key is held stops the decision's commit, and nothing goes on", async () => {
    const counting = countingAgent();
    const memory = createMemoryStore();
    // A store that claims keys in its commits, and finds this one held.
    const store: SnapshotStore = {
      ...memory,
      appliesAtomically: (write) => write.kind === 'putIfAbsent',
      commit: async (next, version, events, options) =>
        options?.writes?.some((write) => write.kind === 'putIfAbsent')
          ? { replaced: false, held: 'theirs' }
          : memory.commit(next, version, events),
    };
    const runtime = createRuntime({ agents: [counting.agent], store });
    const paused = await runtime.start(counting.agent.name, { input: 'pay' });
    const decided = await runtime.decide(
      paused.runId,
      { approvalId: paused.pendingApprovals[0]!.approvalId, approved: true, approvedBy: 'alice' },
      { writes: () => [{ kind: 'putIfAbsent', key: 'webhook:msg_1', value: 'mine', ttlMs: 60_000 }] },
    );
    expect(decided).toMatchObject({ outcome: 'held', held: 'theirs', status: 'awaitingApproval' });
    expect(await runtime.get(paused.runId)).toEqual(paused);
    expect(counting.executions).toEqual([]);
  });

  it('refuses a bad waitMs or mode before anything is recorded', async () => {
    const counting = countingAgent();
    const runtime = createRuntime({ agents: [counting.agent] });
    const paused = await runtime.start(counting.agent.name, { input: 'pay' });
    const decision = { approvalId: paused.pendingApprovals[0]!.approvalId, approved: true, approvedBy: 'alice' };
    await expect(runtime.decide(paused.runId, decision, { waitMs: -1 })).rejects.toThrow(/decide: waitMs/);
    await expect(runtime.decide(paused.runId, decision, { mode: 'later' as never })).rejects.toThrow(ConfigError);
    expect(await runtime.get(paused.runId)).toEqual(paused);
  });

  it('decideWithLink: spends the token, records its decision and carries the run on the same way', async () => {
    const counting = countingAgent();
    const runtime = createRuntime({ agents: [counting.agent], links: { secret: LINK_SECRET } });
    const paused = await runtime.start(counting.agent.name, { input: 'pay' });
    const tokens = await runtime.linkTokens(paused.runId, paused.pendingApprovals[0]!.approvalId);
    const decided = await runtime.decideWithLink(tokens.approve!, { mode: 'record', approvedBy: 'slack:U1' });
    expect(decided).toMatchObject({ outcome: 'continuing', where: 'elsewhere', runId: paused.runId, duplicate: false });
    await expect(runtime.decideWithLink(tokens.approve!)).rejects.toThrow(/already used/);
    const next = await runtime.start(counting.agent.name, { input: 'pay' });
    const inline = await runtime.decideWithLink(
      (await runtime.linkTokens(next.runId, next.pendingApprovals[0]!.approvalId)).approve!,
      { waitMs: 10_000 },
    );
    expect(inline).toMatchObject({ outcome: 'current', status: 'completed', runId: next.runId, duplicate: false });
  });
});
