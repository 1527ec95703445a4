// runtime.addRequest (withApprovalRequest through the store's compare-and-set) and the re-announcement of waiting
// requests when a runtime starts (announcePendingOnStart): once per request however many runtimes start.
import { describe, expect, it } from 'vitest';
import { createMemoryOnceStore, createMemoryStore, createRuntime, type RunEvent } from 'countersign';
import { countingAgent, recordingNotifier } from '../support/runtime-harness.js';
import { testClock } from '../support/test-kit.js';

const SECRET = 'a-decision-secret-of-at-least-32-characters!';

const requested = (events: readonly RunEvent[]) =>
  events.flatMap((event) => (event.type === 'approval-requested' ? [event.request.approvalId] : []));

describe('runtime.addRequest', () => {
  it('adds a request to a waiting run, announces it, and runs it once when approved', async () => {
    const counting = countingAgent({ decisionSecret: SECRET });
    const notifier = recordingNotifier();
    const runtime = createRuntime({ agents: [counting.agent], notifier });
    const paused = await runtime.start(counting.agent.name, { input: 'pay' });
    const request = {
      toolCallId: 'ext_refund_1',
      toolName: 'send_payment',
      args: { to: 'acct-refund', cents: 500 },
      approvalId: 'apr_ext_1',
    };
    const added = await runtime.addRequest(paused.runId, request);
    expect(added.pendingApprovals.map((item) => item.approvalId)).toEqual([
      paused.pendingApprovals[0]!.approvalId,
      'apr_ext_1',
    ]);
    expect(requested(notifier.events)).toContain('apr_ext_1');
    // A resend (its answer was lost) adds nothing and announces nothing again.
    const again = await runtime.addRequest(paused.runId, request);
    expect(again.version).toBe(added.version);
    expect(requested(notifier.events).filter((id) => id === 'apr_ext_1')).toHaveLength(1);

    const signatureOf = (approvalId: string) =>
      added.pendingApprovals.find((item) => item.approvalId === approvalId)!.signature!;
    await runtime.respond(paused.runId, {
      approvalId: 'apr_ext_1',
      approved: true,
      approvedBy: 'alice',
      signature: signatureOf('apr_ext_1'),
    });
    const modelsCall = paused.pendingApprovals[0]!.approvalId;
    const { snapshot } = await runtime.respond(paused.runId, {
      approvalId: modelsCall,
      approved: true,
      approvedBy: 'alice',
      signature: signatureOf(modelsCall),
    });
    expect(snapshot.status).toBe('completed');
    expect(counting.executions).toEqual([
      `${paused.runId}:${paused.toolCalls[0]!.toolCallId}`,
      `${paused.runId}:ext_refund_1`,
    ]);
    // Once the run ended, nothing can be added to it.
    await expect(
      runtime.addRequest(paused.runId, { ...request, toolCallId: 'ext_refund_2', approvalId: 'apr_ext_2' }),
    ).rejects.toMatchObject({
      code: 'run_not_awaiting_approval',
    });
  });
});

describe('announcePendingOnStart', () => {
  it('two runtimes starting on one store and one once store announce each waiting request exactly once, and not an expired one', async () => {
    const clock = testClock();
    const lasting = countingAgent({ name: `lasting-${Date.now()}`, clock, calls: 2 });
    const brief = countingAgent({ name: `brief-${Date.now()}`, clock, approvalTtlMs: 60_000 });
    const store = createMemoryStore();
    const once = createMemoryOnceStore();
    const agents = [lasting.agent, brief.agent];
    const first = createRuntime({ agents, store, once, clock });
    const waiting = [
      await first.start(lasting.agent.name, { input: 'pay' }),
      await first.start(lasting.agent.name, { input: 'pay' }),
    ];
    const expired = await first.start(brief.agent.name, { input: 'pay' });
    clock.advance(120_000);
    const stillFresh = await first.start(brief.agent.name, { input: 'pay' });

    const notifiers = [recordingNotifier(), recordingNotifier()];
    const heard: RunEvent[] = [];
    const runtimes = notifiers.map((notifier) =>
      createRuntime({ agents, store, once, clock, notifier, announcePendingOnStart: true }),
    );
    runtimes[0]!.subscribe((event) => heard.push(event));
    const reports = await Promise.all(runtimes.map((runtime) => runtime.announcePending()));

    const expected = [
      ...waiting.flatMap((run) => run.pendingApprovals.map((item) => item.approvalId)),
      stillFresh.pendingApprovals[0]!.approvalId,
    ];
    const announced = [...requested(notifiers[0]!.events), ...requested(notifiers[1]!.events)];
    expect(announced.sort()).toEqual([...expected].sort());
    expect(announced).not.toContain(expired.pendingApprovals[0]!.approvalId);
    expect(reports.reduce((sum, report) => sum + report.announced, 0)).toBe(expected.length);
    // The listeners of the runtime that announced hear it too, as they hear a new request.
    expect(requested(heard)).toEqual(requested(notifiers[0]!.events));
    // The announcement carries what the first one did: the run, its agent and the request as stored.
    const event = [...notifiers[0]!.events, ...notifiers[1]!.events].find(
      (item) => item.type === 'approval-requested' && item.runId === stillFresh.runId,
    );
    expect(event).toMatchObject({ agentName: brief.agent.name, request: stillFresh.pendingApprovals[0] });

    // A third process starting later announces nothing again: every request is claimed until it expires.
    const late = recordingNotifier();
    const third = createRuntime({ agents, store, once, clock, notifier: late, announcePendingOnStart: true });
    expect(await third.announcePending()).toMatchObject({ announced: 0 });
    expect(late.events).toEqual([]);
  });

  it('is off by default, and refuses a misspelt option by name', async () => {
    const counting = countingAgent();
    const store = createMemoryStore();
    await createRuntime({ agents: [counting.agent], store }).start(counting.agent.name, { input: 'pay' });
    let listed = 0;
    const listPending = store.listPending.bind(store);
    store.listPending = (options) => {
      listed++;
      return listPending(options);
    };
    // A pass lists the store as soon as it begins, inside createRuntime: none began without the option.
    const runtime = createRuntime({ agents: [counting.agent], store, once: createMemoryOnceStore() });
    expect(listed).toBe(0);
    createRuntime({ agents: [counting.agent], store, once: createMemoryOnceStore(), announcePendingOnStart: true });
    expect(listed).toBe(1);
    expect((await runtime.announcePending()).announced).toBe(1);
    expect(() => createRuntime({ agents: [counting.agent], announcePendingOnStrat: true } as never)).toThrow(
      /announcePendingOnStrat \(did you mean announcePendingOnStart\?\)/,
    );
  });
});
