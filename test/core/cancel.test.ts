import { describe, expect, it } from 'vitest';
import { StopReason, cancel, withApprovalResponse, type AgentSnapshot } from 'countersign';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';
import { newLedger, pathTool } from '../support/core-harness.js';
import { testAgent, testClock } from '../support/test-kit.js';

/** A promise with its resolver, to know when a tool or model call has started. */
function signal<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

/** A tool that waits until its AbortSignal fires and reports what it saw. */
function waitingTool(started: { resolve: () => void }, seen: { aborted?: boolean; reason?: unknown }) {
  const ledger = newLedger();
  return pathTool('long_job', ledger, {
    execute: (_input, ctx) =>
      new Promise((resolve) => {
        ctx.signal.addEventListener('abort', () => {
          seen.aborted = ctx.signal.aborted;
          seen.reason = ctx.signal.reason;
          resolve('stopped');
        });
        started.resolve();
      }),
  });
}

describe('cancel', () => {
  it('ends a paused run with stop reason cancelled and the reason in error', async () => {
    const clock = testClock();
    const agent = testAgent({
      model: createScriptedModel([toolCallTurn('long_job', { path: '/a' })]),
      tools: [pathTool('long_job', newLedger())],
      clock,
    });
    const paused = await agent.execute({ input: 'go' });
    const stopped = cancel(paused, 'user closed the chat', { agent, now: clock() + 5 });
    expect(stopped).toMatchObject({
      status: 'cancelled',
      state: 'cancelled',
      stopReason: StopReason.Cancelled,
      error: { code: 'cancelled', message: 'user closed the chat' },
      updatedAt: clock() + 5,
      version: paused.version + 1,
    });
    expect(paused.status).toBe('awaitingApproval');
    // A cancelled run stays cancelled: execute returns it as it is, cancel again changes nothing.
    expect(await agent.execute(stopped)).toBe(stopped);
    expect(cancel(stopped, 'again', { agent })).toBe(stopped);
  });

  it('a completed run is returned unchanged', async () => {
    const agent = testAgent({ model: createScriptedModel([textTurn('hi')]), tools: [] });
    const done = await agent.execute({ input: 'go' });
    expect(cancel(done, 'too late', { agent })).toBe(done);
  });

  it('a running tool sees its AbortSignal fire, and the execute in flight returns a cancelled snapshot', async () => {
    const started = signal();
    const seen: { aborted?: boolean; reason?: unknown } = {};
    const model = createScriptedModel([toolCallTurn('long_job', { path: '/a' }), textTurn('never reached')]);
    const agent = testAgent({ model, tools: [waitingTool(started, seen)] });
    const paused = await agent.execute({ input: 'go' });
    const approved = withApprovalResponse(
      paused,
      { approvalId: paused.pendingApprovals[0]!.approvalId, approved: true },
      { agent },
    );

    const running = agent.execute(approved);
    await started.promise;
    const stopped = cancel(approved, 'operator pressed stop', { agent });
    const finished = await running;

    expect(seen).toEqual({ aborted: true, reason: 'operator pressed stop' });
    expect(stopped.stopReason).toBe(StopReason.Cancelled);
    expect(finished).toMatchObject({
      status: 'cancelled',
      stopReason: StopReason.Cancelled,
      error: { code: 'cancelled', message: 'operator pressed stop' },
    });
    expect(model.calls).toHaveLength(1);
  });

  it('a tool that first looks at its signal after the cancel came sees it aborted, with the reason', async () => {
    const started = signal();
    const resume = signal();
    const seen: { aborted?: boolean; reason?: unknown } = {};
    const tool = pathTool('long_job', newLedger(), {
      execute: async (_input, ctx) => {
        started.resolve();
        await resume.promise;
        // Checked before a side effect, as a careful tool does.
        seen.aborted = ctx.signal.aborted;
        seen.reason = ctx.signal.reason;
        return 'checked';
      },
    });
    const agent = testAgent({
      model: createScriptedModel([toolCallTurn('long_job', { path: '/a' }), textTurn('never reached')]),
      tools: [tool],
    });
    const paused = await agent.execute({ input: 'go' });
    const approved = withApprovalResponse(
      paused,
      { approvalId: paused.pendingApprovals[0]!.approvalId, approved: true },
      { agent },
    );

    const running = agent.execute(approved);
    await started.promise;
    cancel(approved, 'operator pressed stop', { agent });
    resume.resolve();
    const finished = await running;

    expect(seen).toEqual({ aborted: true, reason: 'operator pressed stop' });
    expect(finished).toMatchObject({
      status: 'cancelled',
      error: { code: 'cancelled', message: 'operator pressed stop' },
    });
  });

  it("aborting execute's own signal cancels the run the same way", async () => {
    const started = signal();
    const seen: { aborted?: boolean; reason?: unknown } = {};
    const agent = testAgent({
      model: createScriptedModel([toolCallTurn('long_job', { path: '/a' })]),
      tools: [waitingTool(started, seen)],
    });
    const paused = await agent.execute({ input: 'go' });
    const controller = new AbortController();
    const running = agent.execute(
      withApprovalResponse(paused, { approvalId: paused.pendingApprovals[0]!.approvalId, approved: true }, { agent }),
      {
        signal: controller.signal,
      },
    );
    await started.promise;
    controller.abort('request timed out');
    const finished = await running;
    expect(seen.aborted).toBe(true);
    expect(finished).toMatchObject({ status: 'cancelled', error: { message: 'request timed out' } });
  });

  it('a model call in flight sees its signal fire too', async () => {
    const started = signal();
    let modelSignal: AbortSignal | undefined;
    const agent = testAgent({
      model: {
        generate: ({ signal: abort }) =>
          new Promise((_resolve, reject) => {
            modelSignal = abort;
            abort?.addEventListener('abort', () => reject(new Error('aborted')));
            started.resolve();
          }),
      },
      tools: [],
    });
    const snapshots: AgentSnapshot[] = [];
    const running = agent.execute({ input: 'go' }, { checkpoint: async (snap) => void snapshots.push(snap) });
    await started.promise;
    cancel(snapshots.at(-1)!, 'enough', { agent });
    const finished = await running;
    expect(modelSignal?.aborted).toBe(true);
    expect(finished).toMatchObject({ status: 'cancelled', stopReason: 'cancelled' });
  });

  it('an execute started with an already aborted signal cancels before calling the model', async () => {
    const model = createScriptedModel([textTurn('hi')]);
    const agent = testAgent({ model, tools: [] });
    const finished = await agent.execute({ input: 'go' }, { signal: AbortSignal.abort('too late') });
    expect(finished.status).toBe('cancelled');
    expect(model.calls).toHaveLength(0);
  });
});
