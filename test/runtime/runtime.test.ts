import { describe, expect, it } from 'vitest';
import {
  AgentNotFoundError,
  ApprovalExpiredError,
  ConfigError,
  createMemoryOnceStore,
  createMemoryStore,
  createRuntime,
  deserialize,
  serialize,
  isLinkedRuntime,
  DecisionConflictError,
  LinkTokenError,
  RunNotFoundError,
  StoreUnavailableError,
  UnknownApprovalError,
  type RunEvent,
} from 'countersign';
import { countingAgent } from '../support/runtime-harness.js';
import { testClock } from '../support/test-kit.js';
import { linkUrls } from '../support/link-urls.js';

describe('createRuntime', () => {
  it('refuses a configuration it cannot run, naming the problem', () => {
    const { agent } = countingAgent();
    expect(() => createRuntime({ agents: [agent], requests: [] as never })).toThrow(/requests must be an object/);
    expect(() => createRuntime({ agents: [agent, agent] })).toThrow(/two agents are named/);
    expect(() => createRuntime({ agents: [agent], links: { secret: 'short' } })).toThrow(ConfigError);
    expect(() => createRuntime({ agents: [agent], store: {} as never })).toThrow(/store must implement SnapshotStore/);
  });

  it('mints tokens, not URLs: links take a secret, and a base URL is refused by name (the app owns its routes)', () => {
    const { agent } = countingAgent();
    expect(() =>
      createRuntime({
        agents: [agent],
        // @ts-expect-error baseUrl is no runtime option: build URLs with approvalLinkUrl(baseUrl, token)
        links: { secret: 'link-secret-0123456789abcdef', baseUrl: 'https://approvals.example.com' },
      }),
    ).toThrow(
      expect.objectContaining({
        code: 'unknown_option',
        message: expect.stringMatching(/links has an unknown option baseUrl/),
      }),
    );
  });

  it("keeps once-only facts in the store's OnceStore, one given, or memory; a shared store without one is refused", async () => {
    const { agent } = countingAgent();
    const store = createMemoryStore();
    expect(createRuntime({ agents: [agent], store }).once).toBe(store.once);
    const given = createMemoryOnceStore();
    expect(createRuntime({ agents: [agent], store, once: given }).once).toBe(given);
    const { once: _dropped, ...bare } = store;
    const shared = { ...bare, shared: true };
    expect(() => createRuntime({ agents: [agent], store: shared })).toThrow(
      expect.objectContaining({
        code: 'missing_option',
        message: expect.stringMatching(/createRuntime\(\{ once \}\)/),
      }),
    );
    expect(createRuntime({ agents: [agent], store: shared, once: given }).once).toBe(given);
    expect(() => createRuntime({ agents: [agent], once: {} as never })).toThrow(/once must implement OnceStore/);
  });

  it("keeps a once-only value until its TTL runs out, by the store's clock", async () => {
    const clock = testClock(1_000);
    const once = createMemoryOnceStore({ clock });
    expect(await once.putIfAbsent('k', 'a', 100)).toBeUndefined();
    clock.advance(99);
    expect(await once.putIfAbsent('k', 'b', 100)).toBe('a');
    clock.advance(1);
    expect(await once.get('k')).toBeUndefined();
    expect(await once.putIfAbsent('k', 'b', 100)).toBeUndefined();
    await expect(once.putIfAbsent('k', 'c', 0)).rejects.toMatchObject({ code: 'invalid_config' });
  });

  it('starts a run of a named agent, stores it, and refuses unknown agents and runs', async () => {
    const { agent } = countingAgent();
    const runtime = createRuntime({ agents: [agent] });
    const paused = await runtime.start(agent.name, { input: 'pay acct-0' });
    expect(paused.status).toBe('awaitingApproval');
    expect(await runtime.get(paused.runId)).toEqual(paused);
    await expect(runtime.start('nobody', { input: 'x' })).rejects.toBeInstanceOf(AgentNotFoundError);
    await expect(runtime.get('run_missing')).rejects.toMatchObject({ name: 'RunNotFoundError', runId: 'run_missing' });
    await expect(runtime.respond('run_missing', { approvalId: 'a', approved: true })).rejects.toBeInstanceOf(
      RunNotFoundError,
    );
  });

  it('records a decision once, resumes, and answers an identical repeat without doing anything again', async () => {
    const counting = countingAgent();
    const runtime = createRuntime({ agents: [counting.agent] });
    const paused = await runtime.start(counting.agent.name, { input: 'pay' });
    const approvalId = paused.pendingApprovals[0]!.approvalId;
    const first = await runtime.respond(paused.runId, { approvalId, approved: true, approvedBy: 'alice' });
    expect(first).toMatchObject({ status: 'completed', duplicate: false });
    const modelCalls = counting.modelCalls();
    const repeat = await runtime.respond(paused.runId, { approvalId, approved: true, approvedBy: 'alice' });
    expect(repeat).toMatchObject({ status: 'completed', duplicate: true });
    expect(repeat.snapshot).toEqual(first.snapshot);
    expect(counting.executions).toEqual([`${paused.runId}:${paused.pendingApprovals[0]!.toolCallId}`]);
    expect(counting.modelCalls()).toBe(modelCalls);
  });

  it('refuses a write the store cannot make in its commit (a job, on the memory store), before anything is recorded', async () => {
    const counting = countingAgent();
    const runtime = createRuntime({ agents: [counting.agent] });
    const paused = await runtime.start(counting.agent.name, { input: 'pay' });
    const decision = { approvalId: paused.pendingApprovals[0]!.approvalId, approved: true, approvedBy: 'alice' };
    const queued: string[] = [];
    const writes = () =>
      [{ kind: 'enqueue', queue: { enqueue: async (runId: string) => void queued.push(runId) } }] as const;
    expect(runtime.store.appliesAtomically?.(writes()[0])).toBe(false);
    await expect(runtime.respond(paused.runId, decision, { writes })).rejects.toThrow(
      expect.objectContaining({
        name: 'UnsupportedCommitWriteError',
        code: 'unsupported_write',
        kind: 'enqueue',
        runId: paused.runId,
      }),
    );
    expect(await runtime.get(paused.runId)).toEqual(paused);
    expect(queued).toEqual([]);
  });

  it('refuses a conflicting decision with the decision that won', async () => {
    const clock = testClock();
    const counting = countingAgent({ clock });
    const runtime = createRuntime({ agents: [counting.agent], clock });
    const paused = await runtime.start(counting.agent.name, { input: 'pay' });
    const approvalId = paused.pendingApprovals[0]!.approvalId;
    await runtime.respond(paused.runId, { approvalId, approved: false, approvedBy: 'bob', reason: 'no' });
    const conflict = runtime.respond(paused.runId, { approvalId, approved: true, approvedBy: 'alice' });
    await expect(conflict).rejects.toBeInstanceOf(DecisionConflictError);
    await expect(conflict).rejects.toMatchObject({
      approvalId,
      winner: { decision: 'denied', by: 'bob', at: clock() },
    });
    expect(counting.executions).toEqual([]);
  });

  it('runs the tool exactly once when 20 callers decide the same approval at once', async () => {
    const counting = countingAgent();
    const runtime = createRuntime({ agents: [counting.agent] });
    const paused = await runtime.start(counting.agent.name, { input: 'pay' });
    const approvalId = paused.pendingApprovals[0]!.approvalId;
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, index) =>
        runtime.respond(
          paused.runId,
          index % 4 === 3
            ? { approvalId, approved: false, approvedBy: `p${index}` }
            : { approvalId, approved: true, approvedBy: `p${index}` },
        ),
      ),
    );
    const winners = results.filter((result) => result.status === 'fulfilled' && !result.value.duplicate);
    expect(winners).toHaveLength(1);
    const stored = await runtime.get(paused.runId);
    const won = stored.audit.find((entry) => entry.approvalId === approvalId)!;
    for (const result of results) {
      if (result.status === 'rejected')
        expect(result.reason).toMatchObject({
          name: 'DecisionConflictError',
          winner: { decision: won.decision, by: won.by },
        });
    }
    expect(counting.executions).toHaveLength(won.decision === 'approved' ? 1 : 0);
    expect(stored.status).toBe('completed');
  });

  it('keeps waiting until every pending request is decided, then resumes once', async () => {
    const counting = countingAgent({ calls: 3 });
    const runtime = createRuntime({ agents: [counting.agent] });
    const paused = await runtime.start(counting.agent.name, { input: 'pay three' });
    const [a, b, c] = paused.pendingApprovals;
    expect(
      (await runtime.respond(paused.runId, { approvalId: a!.approvalId, approved: true, approvedBy: 'x' })).status,
    ).toBe('awaitingApproval');
    expect(
      (await runtime.respond(paused.runId, { approvalId: b!.approvalId, approved: false, approvedBy: 'x' })).status,
    ).toBe('awaitingApproval');
    expect(counting.executions).toEqual([]);
    const done = await runtime.respond(paused.runId, { approvalId: c!.approvalId, approved: true, approvedBy: 'x' });
    expect(done.status).toBe('completed');
    expect(counting.executions.sort()).toEqual(
      [`${paused.runId}:${a!.toolCallId}`, `${paused.runId}:${c!.toolCallId}`].sort(),
    );
  });

  it("records only in 'record' mode and resumes on resume(); 'enqueue' hands the run to the queue", async () => {
    const counting = countingAgent();
    const queued: string[] = [];
    const runtime = createRuntime({
      agents: [counting.agent],
      queue: { enqueue: async (runId) => void queued.push(runId) },
    });
    const one = await runtime.start(counting.agent.name, { input: 'pay' });
    const recorded = await runtime.respond(
      one.runId,
      { approvalId: one.pendingApprovals[0]!.approvalId, approved: true },
      { mode: 'record' },
    );
    expect(recorded.status).toBe('running');
    expect(counting.executions).toEqual([]);
    expect((await runtime.resume(one.runId)).status).toBe('completed');
    expect((await runtime.resume(one.runId)).status).toBe('completed');
    expect(counting.executions).toHaveLength(1);

    const two = await runtime.start(counting.agent.name, { input: 'pay' });
    const enqueued = await runtime.respond(
      two.runId,
      { approvalId: two.pendingApprovals[0]!.approvalId, approved: true },
      { mode: 'enqueue' },
    );
    expect(enqueued.status).toBe('running');
    expect(queued).toEqual([two.runId]);

    const withoutQueue = createRuntime({ agents: [counting.agent] });
    const three = await withoutQueue.start(counting.agent.name, { input: 'pay' });
    await expect(
      withoutQueue.respond(
        three.runId,
        { approvalId: three.pendingApprovals[0]!.approvalId, approved: true },
        { mode: 'enqueue' },
      ),
    ).rejects.toThrow(/needs a queue/);
    await expect(
      withoutQueue.respond(three.runId, { approvalId: 'x', approved: true }, { mode: 'later' as never }),
    ).rejects.toThrow(ConfigError);
  });

  it('cancels a stored run once; deciding it afterwards is refused', async () => {
    const counting = countingAgent();
    const runtime = createRuntime({ agents: [counting.agent] });
    const paused = await runtime.start(counting.agent.name, { input: 'pay' });
    const cancelled = await runtime.cancel(paused.runId, 'changed my mind');
    expect(cancelled).toMatchObject({ status: 'cancelled', stopReason: 'cancelled' });
    expect(await runtime.cancel(paused.runId)).toEqual(cancelled);
    await expect(
      runtime.respond(paused.runId, { approvalId: paused.pendingApprovals[0]!.approvalId, approved: true }),
    ).rejects.toMatchObject({
      name: 'RunNotAwaitingApprovalError',
    });
    expect(counting.executions).toEqual([]);
  });

  it('lists pending approvals across runs and validates the page options', async () => {
    const counting = countingAgent();
    const runtime = createRuntime({ agents: [counting.agent] });
    const runs = [
      await runtime.start(counting.agent.name, { input: 'a' }),
      await runtime.start(counting.agent.name, { input: 'b' }),
    ];
    const page = await runtime.pending({ agent: counting.agent.name });
    expect(page.items.map((item) => item.runId).sort()).toEqual(runs.map((run) => run.runId).sort());
    await expect(runtime.pending({ limit: 0 })).rejects.toThrow(/limit/);
  });
});

describe('expiry sweeps', () => {
  it('denies each expired request exactly once, even with several sweepers, and the run finishes', async () => {
    const clock = testClock();
    const counting = countingAgent({ clock, approvalTtlMs: 60_000 });
    const store = createMemoryStore({ clock });
    const sweepers = [
      createRuntime({ agents: [counting.agent], store, clock }),
      createRuntime({ agents: [counting.agent], store, clock }),
    ];
    const paused = await Promise.all(
      Array.from({ length: 5 }, () => sweepers[0]!.start(counting.agent.name, { input: 'pay' })),
    );
    expect((await sweepers[0]!.sweepExpired()).expired).toBe(0);
    clock.advance(60_000);
    const results = await Promise.all([
      sweepers[0]!.sweepExpired(),
      sweepers[1]!.sweepExpired(),
      sweepers[0]!.sweepExpired(),
    ]);
    expect(results.reduce((sum, result) => sum + result.expired, 0)).toBe(5);
    for (const run of paused) {
      const stored = await sweepers[1]!.get(run.runId);
      expect(stored.status).toBe('completed');
      expect(stored.audit.filter((entry) => entry.source === 'expiry')).toHaveLength(1);
    }
    expect(counting.executions).toEqual([]);
  });
});

describe('recover', () => {
  it('asks a person again about a non-idempotent call whose process died, and never runs it twice silently', async () => {
    const clock = testClock();
    const store = createMemoryStore({ clock });
    const dying = countingAgent({ clock, leaseMs: 30_000, name: 'recover-plain', during: () => new Promise(() => {}) });
    const first = createRuntime({ agents: [dying.agent], store, clock });
    const paused = await first.start(dying.agent.name, { input: 'pay' });
    // The decision commits, the tool starts, and this "process" never comes back.
    void first.respond(paused.runId, {
      approvalId: paused.pendingApprovals[0]!.approvalId,
      approved: true,
      approvedBy: 'alice',
    });
    await waitFor(async () => (await store.load(paused.runId))!.toolCalls[0]?.status === 'executing');

    const healthy = countingAgent({ clock, name: 'recover-plain' });
    const second = createRuntime({ agents: [healthy.agent], store, clock });
    expect(await second.recover()).toEqual({ resumed: 0, askedAgain: 0, failed: 0 });
    clock.advance(30_001);
    expect(await second.recover()).toEqual({ resumed: 0, askedAgain: 1, failed: 0 });
    const asked = await second.get(paused.runId);
    expect(asked.status).toBe('awaitingApproval');
    expect(asked.pendingApprovals[0]).toMatchObject({
      outcomeUnknown: true,
      toolCallId: paused.pendingApprovals[0]!.toolCallId,
    });
    expect(healthy.executions).toEqual([]);
    const done = await second.respond(paused.runId, {
      approvalId: asked.pendingApprovals[0]!.approvalId,
      approved: true,
      approvedBy: 'alice',
    });
    expect(done.status).toBe('completed');
    expect(healthy.executions).toEqual([`${paused.runId}:${paused.pendingApprovals[0]!.toolCallId}`]);
  });

  it('a retried delivery carries on a run nothing resumes, but not one whose call holds a lease', async () => {
    const clock = testClock();
    const store = createMemoryStore({ clock });
    const counting = countingAgent({ clock });
    const runtime = createRuntime({ agents: [counting.agent], store, clock, staleAfterMs: 10_000 });
    const paused = await runtime.start(counting.agent.name, { input: 'pay' });
    const decision = { approvalId: paused.pendingApprovals[0]!.approvalId, approved: true, approvedBy: 'alice' };
    // The first responder recorded the decision and died before resuming (or its answer was a 503 after the write).
    await runtime.respond(paused.runId, decision, { mode: 'record' });
    const retried = await runtime.respond(paused.runId, decision);
    expect(retried).toMatchObject({ duplicate: true, status: 'completed' });
    expect(counting.executions).toHaveLength(1);

    const held = countingAgent({ clock, leaseMs: 30_000, name: 'held-call', during: () => new Promise(() => {}) });
    const busy = createRuntime({ agents: [held.agent], store, clock });
    const running = await busy.start(held.agent.name, { input: 'pay' });
    const heldDecision = { approvalId: running.pendingApprovals[0]!.approvalId, approved: true, approvedBy: 'alice' };
    void busy.respond(running.runId, heldDecision);
    await waitFor(async () => (await store.load(running.runId))!.toolCalls[0]?.status === 'executing');
    const repeat = await createRuntime({ agents: [held.agent], store, clock }).respond(running.runId, heldDecision);
    expect(repeat).toMatchObject({ duplicate: true, status: 'running' });
  });

  it('runs an idempotent call again with the same idempotency key', async () => {
    const clock = testClock();
    const store = createMemoryStore({ clock });
    const dying = countingAgent({
      clock,
      leaseMs: 30_000,
      idempotent: true,
      name: 'recover-idem',
      during: () => new Promise(() => {}),
    });
    const first = createRuntime({ agents: [dying.agent], store, clock });
    const paused = await first.start(dying.agent.name, { input: 'pay' });
    void first.respond(paused.runId, { approvalId: paused.pendingApprovals[0]!.approvalId, approved: true });
    await waitFor(async () => (await store.load(paused.runId))!.toolCalls[0]?.status === 'executing');

    const healthy = countingAgent({ clock, idempotent: true, name: 'recover-idem' });
    const second = createRuntime({ agents: [healthy.agent], store, clock });
    clock.advance(30_001);
    expect(await second.recover()).toEqual({ resumed: 1, askedAgain: 0, failed: 0 });
    expect((await second.get(paused.runId)).status).toBe('completed');
    expect(healthy.executions).toEqual([`${paused.runId}:${paused.pendingApprovals[0]!.toolCallId}`]);
  });

  it('resumes a run whose decision was committed but whose process died before resuming', async () => {
    const clock = testClock();
    const store = createMemoryStore({ clock });
    const counting = countingAgent({ clock });
    const runtime = createRuntime({ agents: [counting.agent], store, clock, staleAfterMs: 10_000 });
    const paused = await runtime.start(counting.agent.name, { input: 'pay' });
    await runtime.respond(
      paused.runId,
      { approvalId: paused.pendingApprovals[0]!.approvalId, approved: true },
      { mode: 'record' },
    );
    expect(await runtime.recover()).toEqual({ resumed: 0, askedAgain: 0, failed: 0 });
    clock.advance(10_001);
    expect(await runtime.recover()).toEqual({ resumed: 1, askedAgain: 0, failed: 0 });
    expect(counting.executions).toHaveLength(1);
  });
});

describe("mode 'enqueue'", () => {
  it('without a queue is refused before anything is recorded', async () => {
    const counting = countingAgent();
    const runtime = createRuntime({ agents: [counting.agent] });
    const paused = await runtime.start(counting.agent.name, { input: 'pay' });
    const decision = { approvalId: paused.pendingApprovals[0]!.approvalId, approved: true };
    await expect(runtime.respond(paused.runId, decision, { mode: 'enqueue' })).rejects.toThrow(
      /mode 'enqueue' needs a queue.*Nothing was recorded/,
    );
    expect(await runtime.get(paused.runId)).toEqual(paused);
    await expect(
      runtime.start(counting.agent.name, { input: 'pay', runId: 'never-made' }, { mode: 'enqueue' }),
    ).rejects.toBeInstanceOf(ConfigError);
    await expect(runtime.get('never-made')).rejects.toBeInstanceOf(RunNotFoundError);
  });

  it('a retry of a decision whose job could not be queued queues it', async () => {
    const counting = countingAgent();
    const queued: string[] = [];
    let failNext = true;
    const queue = {
      enqueue: async (runId: string) => {
        if (failNext) {
          failNext = false;
          throw new StoreUnavailableError('Redis could not queue the resume.');
        }
        queued.push(runId);
      },
    };
    const runtime = createRuntime({ agents: [counting.agent], queue });
    const paused = await runtime.start(counting.agent.name, { input: 'pay' });
    const decision = { approvalId: paused.pendingApprovals[0]!.approvalId, approved: true, approvedBy: 'alice' };
    await expect(runtime.respond(paused.runId, decision, { mode: 'enqueue' })).rejects.toBeInstanceOf(
      StoreUnavailableError,
    );
    expect((await runtime.get(paused.runId)).status).toBe('running');
    expect(queued).toEqual([]);
    const retry = await runtime.respond(paused.runId, decision, { mode: 'enqueue' });
    expect(retry).toMatchObject({ duplicate: true, status: 'running' });
    expect(queued).toEqual([paused.runId]);
    expect((await runtime.resume(paused.runId)).status).toBe('completed');
    expect(counting.executions).toHaveLength(1);
  });
});

describe("the runtime's clock decides expiry", () => {
  it("refuses an expired request whatever respondedAt the caller sends, and records the caller's time without trusting it", async () => {
    const clock = testClock();
    const counting = countingAgent({ clock, approvalTtlMs: 60_000 });
    const runtime = createRuntime({ agents: [counting.agent], clock });
    const expired = await runtime.start(counting.agent.name, { input: 'pay' });
    const request = expired.pendingApprovals[0]!;
    clock.advance(60_000);
    await expect(
      runtime.respond(expired.runId, {
        approvalId: request.approvalId,
        approved: true,
        respondedAt: request.requestedAt,
      }),
    ).rejects.toBeInstanceOf(ApprovalExpiredError);
    expect(counting.executions).toEqual([]);

    const fresh = await runtime.start(counting.agent.name, { input: 'pay' });
    const claimed = clock() + 3_600_000;
    const { snapshot } = await runtime.respond(fresh.runId, {
      approvalId: fresh.pendingApprovals[0]!.approvalId,
      approved: true,
      respondedAt: claimed,
    });
    expect(snapshot.audit.find((entry) => entry.source === 'human')).toMatchObject({ at: clock(), claimedAt: claimed });
  });
});

describe('housekeeping goes on past a run that cannot', () => {
  /** Runs of a known agent and of one this runtime no longer has (its resume throws AgentNotFoundError), the orphan first. */
  const runsOfTwoAgents = async (clock: ReturnType<typeof testClock>, decide: boolean) => {
    const store = createMemoryStore({ clock });
    const orphan = countingAgent({ clock, approvalTtlMs: 60_000 });
    const healthy = countingAgent({ clock, approvalTtlMs: 60_000 });
    const before = createRuntime({ agents: [orphan.agent, healthy.agent], store, clock, staleAfterMs: 10_000 });
    const runs = [
      await before.start(orphan.agent.name, { input: 'pay' }),
      await before.start(healthy.agent.name, { input: 'pay' }),
    ];
    if (decide)
      for (const run of runs)
        await before.respond(
          run.runId,
          { approvalId: run.pendingApprovals[0]!.approvalId, approved: true },
          { mode: 'record' },
        );
    const errors: { error: unknown; operation: string; runId?: string }[] = [];
    const after = createRuntime({
      agents: [healthy.agent],
      store,
      clock,
      staleAfterMs: 10_000,
      onError: (error, context) => errors.push({ error, ...context }),
    });
    return { runs, healthy, after, errors };
  };

  it('recover reports a run whose resume throws, counts it as failed, and still recovers the healthy ones', async () => {
    const clock = testClock();
    const { runs, healthy, after, errors } = await runsOfTwoAgents(clock, true);
    clock.advance(10_001);
    expect(await after.recover()).toEqual({ resumed: 1, askedAgain: 0, failed: 1 });
    expect((await after.get(runs[1]!.runId)).status).toBe('completed');
    expect(healthy.executions).toHaveLength(1);
    expect(errors).toEqual([{ error: expect.any(AgentNotFoundError), operation: 'recover', runId: runs[0]!.runId }]);
  });

  it('sweepExpired reports a run that cannot go on after its expiry, counts it as failed, and still sweeps the others', async () => {
    const clock = testClock();
    const { runs, after, errors } = await runsOfTwoAgents(clock, false);
    clock.advance(60_001);
    expect(await after.sweepExpired()).toEqual({ runs: 2, expired: 2, reminded: 0, escalated: 0, failed: 1 });
    expect((await after.get(runs[1]!.runId)).status).toBe('completed');
    expect(errors).toEqual([{ error: expect.any(AgentNotFoundError), operation: 'sweep', runId: runs[0]!.runId }]);
  });
});

describe('one-click links', () => {
  const secret = 'link-secret-0123456789abcdef';

  it('decides with a link once; a reused, forged or foreign token is refused', async () => {
    const clock = testClock();
    const counting = countingAgent({ clock, calls: 2 });
    const runtime = createRuntime({ agents: [counting.agent], clock, links: { secret } });
    const paused = await runtime.start(counting.agent.name, { input: 'pay' });
    const [first, second] = paused.pendingApprovals;
    const links = await linkUrls(runtime, paused.runId, first!.approvalId, { approvedBy: 'alice@example.com' });
    expect(links.approve).toMatch(/^https:\/\/approvals\.example\.com\/links\/[\w-]+\.[\w-]+$/);
    const token = (url: string) => url.split('/links/')[1]!;

    await expect(
      runtime.respondWithLink(token(links.approve).replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'))),
    ).rejects.toMatchObject({ reason: 'bad_signature' });
    const result = await runtime.respondWithLink(token(links.approve));
    expect(result.status).toBe('awaitingApproval');
    expect(result.snapshot.audit.at(-1)).toMatchObject({
      approvalId: first!.approvalId,
      decision: 'approved',
      by: 'alice@example.com',
    });
    await expect(runtime.respondWithLink(token(links.approve))).rejects.toMatchObject({
      name: 'LinkTokenError',
      reason: 'used',
    });
    // The deny link of a decided approval cannot overturn it.
    await expect(runtime.respondWithLink(token(links.deny))).rejects.toBeInstanceOf(DecisionConflictError);

    const other = await linkUrls(runtime, paused.runId, second!.approvalId, { expiresIn: 1_000 });
    clock.advance(1_000);
    await expect(runtime.respondWithLink(token(other.deny))).rejects.toMatchObject({ reason: 'expired' });
    await expect(linkUrls(runtime, paused.runId, 'apr_nope')).rejects.toBeInstanceOf(UnknownApprovalError);
  });

  it('never outlives the approval it decides', async () => {
    const clock = testClock();
    const counting = countingAgent({ clock, approvalTtlMs: 5_000 });
    const runtime = createRuntime({ agents: [counting.agent], clock, links: { secret } });
    const paused = await runtime.start(counting.agent.name, { input: 'pay' });
    const links = await linkUrls(runtime, paused.runId, paused.pendingApprovals[0]!.approvalId, {
      expiresIn: 86_400_000,
    });
    expect(links.expiresAt).toBe(paused.pendingApprovals[0]!.expiresAt);
    const unlinked = createRuntime({ agents: [counting.agent] });
    expect(isLinkedRuntime(unlinked)).toBe(false);
    // @ts-expect-error a runtime made without links has no linkTokens: a type error, not a failure at the first approval
    expect(unlinked.linkTokens).toBeUndefined();
  });

  it('refuses tokens that are not tokens', async () => {
    const { agent } = countingAgent();
    const runtime = createRuntime({ agents: [agent], links: { secret } });
    await expect(runtime.respondWithLink('garbage')).rejects.toBeInstanceOf(LinkTokenError);
  });
});

describe('events', () => {
  it('announces each event after its commit, to subscribers and the notifier; a failing notifier does not stop the run', async () => {
    const counting = countingAgent();
    const store = createMemoryStore();
    const seen: { event: RunEvent; stored: string | undefined }[] = [];
    const errors: unknown[] = [];
    const runtime = createRuntime({
      agents: [counting.agent],
      store,
      notifier: { publish: async () => Promise.reject(new Error('webhook down')) },
      onError: (error) => errors.push(error),
    });
    runtime.subscribe((event) => {
      seen.push({ event, stored: undefined });
      void store.load(event.runId).then((run) => (seen.at(-1)!.stored = run?.status));
    });
    const paused = await runtime.start(counting.agent.name, { input: 'pay' });
    await runtime.respond(paused.runId, {
      approvalId: paused.pendingApprovals[0]!.approvalId,
      approved: true,
      approvedBy: 'a',
    });
    expect(seen.map((item) => item.event.type)).toEqual([
      'approval-requested',
      'approval-resolved',
      'tool-finished',
      'run-completed',
    ]);
    expect(seen[2]!.event).toMatchObject({
      type: 'tool-finished',
      approvalId: paused.pendingApprovals[0]!.approvalId,
      toolName: 'send_payment',
      status: 'succeeded',
      result: 'paid acct-0',
    });
    await waitFor(async () => errors.length === 4);
    expect((errors[0] as Error).message).toBe('webhook down');
    const requested = seen[0]!.event;
    expect(requested.type === 'approval-requested' && requested.request.approvalId).toBe(
      paused.pendingApprovals[0]!.approvalId,
    );
  });
});

describe('origin', () => {
  it('keeps where a run came from through storage and announces it with each approval request, so a channel asks there', async () => {
    const counting = countingAgent();
    const runtime = createRuntime({ agents: [counting.agent] });
    const seen: RunEvent[] = [];
    runtime.subscribe((event) => void seen.push(event));
    const origin = { channel: 'telegram', address: '-100123', thread: '7' };
    const paused = await runtime.start(counting.agent.name, { input: 'pay', origin });
    expect(deserialize(serialize(paused)).origin).toEqual(origin);
    expect(seen[0]).toMatchObject({ type: 'approval-requested', origin });
    await expect(
      runtime.start(counting.agent.name, { input: 'pay', origin: { channel: 'Telegram!', address: '1' } }),
    ).rejects.toThrow(/origin.channel must be a channel name/);
  });
});

describe('session', () => {
  it("starts runs in a session and lists that session's pending approvals; a bad session id is refused by name", async () => {
    const counting = countingAgent();
    const runtime = createRuntime({ agents: [counting.agent] });
    const first = await runtime.start(counting.agent.name, { input: 'pay', sessionId: 'chat-1' });
    const second = await runtime.start(counting.agent.name, { input: 'pay again', sessionId: 'chat-1' });
    await runtime.start(counting.agent.name, { input: 'pay', sessionId: 'chat-2' });
    await runtime.start(counting.agent.name, { input: 'pay' });
    const page = await runtime.pending({ sessionId: 'chat-1' });
    expect(page.items.map((item) => item.runId).sort()).toEqual([first.runId, second.runId].sort());
    expect(page.items.every((item) => item.sessionId === 'chat-1')).toBe(true);
    await expect(runtime.start(counting.agent.name, { input: 'pay', sessionId: 'chat 1' })).rejects.toThrow(
      /sessionId.*use 1 to 128 letters/,
    );
    await expect(runtime.pending({ sessionId: '' })).rejects.toThrow(ConfigError);
  });
});

async function waitFor(check: () => Promise<boolean>, attempts = 200): Promise<void> {
  for (let attempt = 0; attempt < attempts; attempt++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error('condition not reached');
}

describe('one-click links and an unavailable store', () => {
  it('keeps a link usable when recording its decision failed', async () => {
    const counting = countingAgent();
    const store = createMemoryStore();
    let down = false;
    const flaky: typeof store = {
      ...store,
      commit: (...args) =>
        down ? Promise.reject(new StoreUnavailableError('Redis is restarting.')) : store.commit(...args),
    };
    const runtime = createRuntime({
      agents: [counting.agent],
      store: flaky,
      links: { secret: 'link-secret-0123456789abcdef' },
    });
    const paused = await runtime.start(counting.agent.name, { input: 'pay' });
    const token = (await linkUrls(runtime, paused.runId, paused.pendingApprovals[0]!.approvalId)).approve.split(
      '/links/',
    )[1]!;
    down = true;
    await expect(runtime.respondWithLink(token)).rejects.toBeInstanceOf(StoreUnavailableError);
    down = false;
    expect((await runtime.respondWithLink(token)).status).toBe('completed');
    await expect(runtime.respondWithLink(token)).rejects.toMatchObject({ reason: 'used' });
    expect(counting.executions).toHaveLength(1);
  });
});
