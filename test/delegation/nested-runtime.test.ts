import { describe, expect, it } from 'vitest';
import { createAgent, createMemoryStore, createRuntime, type RunEvent } from 'countersign';
import { callsThenSays, deployer, deployTool, lead, type RunLog } from '../support/nested-agents.js';
import { testClock } from '../support/test-kit.js';

/** A promise and the function that settles it: a test waits for the moment a tool starts, not for time. */
function signal() {
  let fire!: () => void;
  const fired = new Promise<void>((resolve) => (fire = resolve));
  return { fired, fire };
}

describe('sub-agents on the runtime', () => {
  it('a decision through runtime.respond reaches the sub-agent, runs the inner call once, and its events name the sub-agent', async () => {
    const log: RunLog = [];
    const events: RunEvent[] = [];
    const parent = lead([deployer(log)]);
    const runtime = createRuntime({ agents: [parent], store: createMemoryStore() });
    runtime.subscribe((event) => events.push(event));
    const paused = await runtime.start('lead', { input: 'ship' });
    expect((await runtime.pending()).items.map((entry) => entry.request.toolName)).toEqual(['deploy']);
    const request = paused.pendingApprovals[0]!;
    const answer = { approvalId: request.approvalId, approved: true, approvedBy: 'ana', signature: request.signature! };
    const { status } = await runtime.respond(paused.runId, answer);
    expect(status).toBe('completed');
    expect(log).toEqual(['deploy:1.4']);
    // A decision resent after its reply was lost is the same decision.
    expect(await runtime.respond(paused.runId, answer)).toMatchObject({ duplicate: true, status: 'completed' });
    expect(log).toEqual(['deploy:1.4']);
    expect(events.find((event) => event.type === 'approval-requested')).toMatchObject({
      runId: paused.runId,
      request: { toolName: 'deploy', path: [{ agentName: 'deployer' }] },
    });
    expect(
      events.find((event) => event.type === 'approval-resolved' && event.entry.approvalId === request.approvalId),
    ).toMatchObject({ runId: paused.runId, agentName: 'deployer', path: [{ agentName: 'deployer' }] });
  });

  it('a sub-agent whose approved call was running when its process died is asked about again after recovery, as the inner call', async () => {
    const clock = testClock();
    const store = createMemoryStore({ clock });
    const started = signal();
    const hanging: RunLog = [];
    const dying = lead(
      [
        createAgent({
          name: 'deployer',
          model: callsThenSays([{ name: 'deploy', args: { version: '1.4' } }]),
          tools: [
            deployTool(hanging, {
              during: () => {
                started.fire();
                return new Promise(() => {});
              },
            }),
          ],
          leaseMs: 30_000,
        }),
      ],
      { clock, leaseMs: 30_000 },
    );
    const first = createRuntime({ agents: [dying], store, clock });
    const paused = await first.start('lead', { input: 'ship' });
    const request = paused.pendingApprovals[0]!;
    void first.respond(paused.runId, {
      approvalId: request.approvalId,
      approved: true,
      approvedBy: 'ana',
      signature: request.signature!,
    });
    await started.fired;
    // What the store holds: the delegate call running, and in it the inner call started.
    const stored = (await store.load(paused.runId))!;
    expect(stored.toolCalls[0]).toMatchObject({ status: 'executing' });
    expect(stored.toolCalls[0]!.child!.toolCalls[0]).toMatchObject({ toolName: 'deploy', status: 'executing' });

    const log: RunLog = [];
    const healthy = lead([deployer(log)], { clock });
    const second = createRuntime({ agents: [healthy], store, clock });
    clock.advance(30_001);
    await second.recover();
    const asked = await second.get(paused.runId);
    expect(asked.status).toBe('awaitingApproval');
    expect(asked.pendingApprovals).toEqual([
      expect.objectContaining({
        toolName: 'deploy',
        outcomeUnknown: true,
        path: [expect.objectContaining({ agentName: 'deployer' })],
      }),
    ]);
    expect(log).toEqual([]);
    const again = asked.pendingApprovals[0]!;
    const done = await second.respond(paused.runId, {
      approvalId: again.approvalId,
      approved: true,
      approvedBy: 'ana',
      signature: again.signature!,
    });
    expect(done.status).toBe('completed');
    expect(log).toEqual(['deploy:1.4']);
  });

  it("cancelling the parent cancels the running sub-agent: the inner call's signal fires", async () => {
    const started = signal();
    let aborted = false;
    const parent = lead([
      createAgent({
        name: 'deployer',
        model: callsThenSays([{ name: 'deploy', args: { version: '1.4' } }]),
        tools: [
          deployTool([], {
            needsApproval: false,
            during: (toolSignal) =>
              new Promise((_, reject) => {
                started.fire();
                toolSignal.addEventListener('abort', () => {
                  aborted = true;
                  reject(toolSignal.reason);
                });
              }),
          }),
        ],
      }),
    ]);
    const runtime = createRuntime({ agents: [parent], store: createMemoryStore() });
    const runId = 'run_cancel-the-chain';
    const running = runtime.start('lead', { input: 'ship', runId });
    await started.fired;
    await runtime.cancel(runId, 'stop everything');
    expect(await running).toMatchObject({ status: 'cancelled' });
    expect(aborted).toBe(true);
    expect((await runtime.get(runId)).status).toBe('cancelled');
  });
});
