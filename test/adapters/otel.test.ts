// countersign/otel with the SDK's in-memory exporters: the span tree of a run that asks, is approved and runs its tool;
// the wait span's times and attributes; the metrics; nothing recorded (and nothing thrown) with no provider; and no
// decider names with recordDeciders: false.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createRuntime, defineTool } from 'countersign';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';
import { type ChannelDriver, channelSettings, createChannelNotifier } from 'countersign/channels';
import { openTelemetry } from 'countersign/otel';
import { memoryTelemetry, payingAgent } from '../support/otel-harness.js';
import { countingAgent } from '../support/runtime-harness.js';
import { testAgent, testClock } from '../support/test-kit.js';

const ms = (time: readonly [number, number]) => time[0] * 1000 + time[1] / 1e6;

async function approvedRun(options: { recordDeciders?: boolean } = {}) {
  const clock = testClock();
  const otel = memoryTelemetry();
  const { agent, executions } = payingAgent(clock);
  const telemetry = openTelemetry({ tracer: otel.tracer, meter: otel.meter, ...options });
  const runtime = createRuntime({ agents: [agent], clock, telemetry });
  const paused = await runtime.start(agent.name, { input: 'pay acct' });
  const request = paused.pendingApprovals[0]!;
  clock.advance(90_000);
  const done = await runtime.respond(paused.runId, {
    approvalId: request.approvalId,
    approved: true,
    approvedBy: 'alice',
  });
  return { otel, agent, executions, paused, request, done, clock };
}

describe('openTelemetry', () => {
  it('a run that asks, is approved and runs its tool: invoke_agent, chat, the wait, execute_tool', async () => {
    const { otel, agent, paused, request, done, executions } = await approvedRun();
    expect(done.status).toBe('completed');
    expect(executions).toHaveLength(1);

    const invokes = otel.spans().filter((span) => span.name === `invoke_agent ${agent.name}`);
    expect(invokes).toHaveLength(2);
    const [asking, resumed] = invokes as [(typeof invokes)[0], (typeof invokes)[0]];
    expect(asking.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': agent.name,
      'countersign.run.id': paused.runId,
      'countersign.run.status': 'awaitingApproval',
      'countersign.run.stop_reason': 'awaiting_approval',
    });
    expect(resumed.attributes['countersign.run.status']).toBe('completed');
    // No span was current where it resumed: it continues the trace the call was asked in, and links to it.
    expect(resumed.parentSpanContext?.spanId).toBe(asking.spanContext().spanId);
    expect(resumed.links.map((link) => link.context.spanId)).toEqual([asking.spanContext().spanId]);

    const chats = otel.spans().filter((span) => span.name === 'chat test-model');
    expect(chats.map((span) => span.parentSpanContext?.spanId)).toEqual([
      asking.spanContext().spanId,
      resumed.spanContext().spanId,
    ]);
    expect(chats[0]!.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'test-model',
      'gen_ai.usage.input_tokens': 20,
      'gen_ai.usage.output_tokens': 5,
      'gen_ai.response.finish_reasons': ['tool-calls'],
    });

    const tool = otel.span('execute_tool send_payment');
    expect(tool.parentSpanContext?.spanId).toBe(resumed.spanContext().spanId);
    expect(tool.attributes).toMatchObject({ 'gen_ai.tool.name': 'send_payment', 'gen_ai.tool.call.id': 'call_1' });

    // The request kept the trace it was asked in, and the wait is a child of the execute that asked.
    const wait = otel.span('countersign.approval send_payment');
    expect(request.traceparent).toBe(`00-${asking.spanContext().traceId}-${asking.spanContext().spanId}-01`);
    expect(wait.spanContext().traceId).toBe(asking.spanContext().traceId);
    expect(wait.parentSpanContext?.spanId).toBe(asking.spanContext().spanId);
    expect(ms(wait.startTime)).toBe(request.requestedAt);
    expect(ms(wait.duration)).toBe(90_000);
    expect(wait.attributes).toMatchObject({
      'countersign.approval.id': request.approvalId,
      'countersign.approval.outcome': 'approved',
      'countersign.approval.source': 'human',
      'countersign.approval.scope': 'once',
      'countersign.approval.deadline': new Date(request.expiresAt!).toISOString(),
      'countersign.approval.decided_by': 'alice',
      'gen_ai.tool.name': 'send_payment',
    });
  });

  it('counts the wait, the decisions, the pending requests and the tokens', async () => {
    const { otel } = await approvedRun();
    const wait = await otel.metric('countersign.approval.wait');
    const point = wait!.dataPoints[0]!;
    expect(point.attributes).toEqual({
      'gen_ai.tool.name': 'send_payment',
      'countersign.approval.outcome': 'approved',
      'countersign.approval.source': 'human',
    });
    expect(point.value).toMatchObject({ count: 1, sum: 90_000 });
    const pending = await otel.metric('countersign.approval.pending');
    expect(pending!.dataPoints.map((data) => data.value)).toEqual([0]);
    const decisions = await otel.metric('countersign.approval.decisions');
    expect(decisions!.dataPoints.map((data) => data.value)).toEqual([1]);
    const tokens = await otel.metric('gen_ai.client.token.usage');
    const byType = Object.fromEntries(
      tokens!.dataPoints.map((data) => [data.attributes['gen_ai.token.type'], (data.value as { sum: number }).sum]),
    );
    expect(byType).toEqual({ input: 50, output: 7 });
  });

  it('recordDeciders: false leaves out who decided', async () => {
    const { otel } = await approvedRun({ recordDeciders: false });
    const wait = otel.span('countersign.approval send_payment');
    expect(wait.attributes['countersign.approval.outcome']).toBe('approved');
    expect(Object.keys(wait.attributes).filter((key) => key.includes('decided_by') || key.includes('voters'))).toEqual(
      [],
    );
  });

  it('with no provider registered nothing is recorded, nothing throws and no request carries a trace', async () => {
    const clock = testClock();
    const { agent, executions } = payingAgent(clock);
    const runtime = createRuntime({ agents: [agent], clock, telemetry: openTelemetry() });
    const paused = await runtime.start(agent.name, { input: 'pay acct' });
    expect(paused.pendingApprovals[0]!.traceparent).toBeUndefined();
    const done = await runtime.respond(paused.runId, {
      approvalId: paused.pendingApprovals[0]!.approvalId,
      approved: false,
      approvedBy: 'alice',
    });
    expect(done.status).toBe('completed');
    expect(executions).toEqual([]);
  });

  it('a request nobody decided ends its wait as expired when the sweep records it', async () => {
    const clock = testClock();
    const otel = memoryTelemetry();
    const { agent, executions } = payingAgent(clock);
    const runtime = createRuntime({
      agents: [agent],
      clock,
      telemetry: openTelemetry({ tracer: otel.tracer, meter: otel.meter }),
    });
    const paused = await runtime.start(agent.name, { input: 'pay acct' });
    clock.advance(2 * 3_600_000);
    await runtime.sweepExpired();
    expect(executions).toEqual([]);
    const wait = otel.span('countersign.approval send_payment');
    expect(ms(wait.duration)).toBe(2 * 3_600_000);
    expect(wait.attributes).toMatchObject({
      'countersign.approval.id': paused.pendingApprovals[0]!.approvalId,
      'countersign.approval.outcome': 'expired',
      'countersign.approval.source': 'expiry',
    });
    expect(wait.attributes['countersign.approval.decided_by']).toBeUndefined();
    const pending = await otel.metric('countersign.approval.pending');
    expect(pending!.dataPoints.map((data) => data.value)).toEqual([0]);
  });

  it('a quorum: the wait says how many were needed and voted, source vote, and the voters only with recordDeciders', async () => {
    for (const recordDeciders of [true, false]) {
      const otel = memoryTelemetry();
      const counting = countingAgent({ approvals: { required: 2 } });
      const runtime = createRuntime({
        agents: [counting.agent],
        telemetry: openTelemetry({ tracer: otel.tracer, meter: otel.meter, recordDeciders }),
      });
      const paused = await runtime.start(counting.agent.name, { input: 'pay' });
      const approvalId = paused.pendingApprovals[0]!.approvalId;
      await runtime.decide(paused.runId, { approvalId, approved: true, approvedBy: 'ana' });
      expect(otel.spans().some((span) => span.name.startsWith('countersign.approval'))).toBe(false);
      await runtime.decide(paused.runId, { approvalId, approved: true, approvedBy: 'bo' });
      const wait = otel.span('countersign.approval send_payment');
      expect(wait.attributes).toMatchObject({
        'countersign.approval.outcome': 'approved',
        'countersign.approval.source': 'vote',
        'countersign.approval.quorum.required': 2,
        'countersign.approval.quorum.approvals': 2,
        'countersign.approval.quorum.votes': 2,
      });
      expect(wait.attributes['countersign.approval.voters']).toEqual(recordDeciders ? ['ana', 'bo'] : undefined);
    }
  });

  it('metrics without a tracer provider: the tokens and the wait are counted, no span is made', async () => {
    const clock = testClock();
    const otel = memoryTelemetry();
    const { agent } = payingAgent(clock);
    const runtime = createRuntime({ agents: [agent], clock, telemetry: openTelemetry({ meter: otel.meter }) });
    const paused = await runtime.start(agent.name, { input: 'pay acct' });
    clock.advance(1_000);
    await runtime.respond(paused.runId, {
      approvalId: paused.pendingApprovals[0]!.approvalId,
      approved: true,
      approvedBy: 'alice',
    });
    expect(otel.spans()).toEqual([]);
    const tokens = await otel.metric('gen_ai.client.token.usage');
    expect(tokens!.dataPoints.map((data) => (data.value as { sum: number }).sum).sort()).toEqual([50, 7].sort());
    const wait = await otel.metric('countersign.approval.wait');
    expect(wait!.dataPoints[0]!.value).toMatchObject({ count: 1, sum: 1_000 });
  });

  it('a telemetry that throws on a commit is told to onError, and the run goes on', async () => {
    const clock = testClock();
    const { agent, executions } = payingAgent(clock);
    const reported: string[] = [];
    const runtime = createRuntime({
      agents: [agent],
      clock,
      telemetry: {
        ...openTelemetry(),
        recorded: () => {
          throw new Error('exporter down');
        },
      },
      onError: (error, { operation }) => reported.push(`${operation}: ${(error as Error).message}`),
    });
    const paused = await runtime.start(agent.name, { input: 'pay acct' });
    const done = await runtime.respond(paused.runId, {
      approvalId: paused.pendingApprovals[0]!.approvalId,
      approved: true,
      approvedBy: 'alice',
    });
    expect(done.status).toBe('completed');
    expect(executions).toHaveLength(1);
    expect(new Set(reported)).toEqual(new Set(['telemetry: exporter down']));
  });

  it('refuses options that are not a tracer or a meter, naming them', () => {
    expect(() => openTelemetry({ tracer: {} as never })).toThrow(/tracer/);
  });

  it("continues a caller's trace given at start, and tells a tool the traceparent of its own span", async () => {
    const otel = memoryTelemetry();
    const seen: (string | undefined)[] = [];
    const probe = defineTool({
      name: 'probe',
      description: 'Reports the trace it was called in',
      input: z.object({}),
      needsApproval: false,
      execute: (_input, ctx) => {
        seen.push(ctx.traceparent);
        return 'ok';
      },
    });
    const model = createScriptedModel(({ messages }) =>
      messages.at(-1)?.role === 'tool' ? textTurn('done') : toolCallTurn('probe', {}),
    );
    const agent = testAgent({ model, tools: [probe] });
    const telemetry = openTelemetry({ tracer: otel.tracer, meter: otel.meter });
    const runtime = createRuntime({ agents: [agent], telemetry });
    const caller = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    await runtime.start(agent.name, { input: 'go', traceparent: caller });
    const run = otel.span(`invoke_agent ${agent.name}`);
    expect(run.spanContext().traceId).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    expect(run.parentSpanContext?.spanId).toBe('00f067aa0ba902b7');
    const tool = otel.span('execute_tool probe');
    expect(seen).toEqual([`00-${tool.spanContext().traceId}-${tool.spanContext().spanId}-01`]);
    await expect(runtime.start(agent.name, { input: 'go', traceparent: 'not-a-trace' })).rejects.toThrow(/traceparent/);
  });

  it("puts a request from outside the loop, and its wait, in the caller's trace", async () => {
    const otel = memoryTelemetry();
    const runtime = createRuntime({ telemetry: openTelemetry({ tracer: otel.tracer, meter: otel.meter }) });
    const handle = await runtime.requestApproval({
      tool: 'deploy',
      args: { service: 'billing' },
      traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
    });
    const state = await handle.status();
    if (state.status !== 'pending' || state.request === undefined) throw new Error('expected a pending request');
    await runtime.respond(handle.id, { approvalId: state.request.approvalId, approved: true, approvedBy: 'alice' });
    const traces = new Set(otel.spans().map((span) => span.spanContext().traceId));
    expect(traces).toEqual(new Set(['4bf92f3577b34da6a3ce929d0e0e4736']));
    expect(otel.spans().some((span) => span.name === 'countersign.approval deploy')).toBe(true);
  });

  it("counts a channel's deliveries and failures, by channel and operation", async () => {
    const otel = memoryTelemetry();
    const { agent } = countingAgent();
    const runtime = createRuntime({
      agents: [agent],
      links: { secret: 'otel-links-secret-0123456789abcdef' },
      telemetry: openTelemetry({ tracer: otel.tracer, meter: otel.meter }),
    });
    const failures: string[] = [];
    const driver: ChannelDriver<{ id: string }> = {
      name: 'pager',
      post: async () => ({ id: 'card-1' }),
      update: async () => {
        throw new Error('the pager is down');
      },
    };
    const pager = createChannelNotifier(
      driver,
      channelSettings({
        runtime,
        maxAttempts: 1,
        sleep: async () => {},
        onError: (_error, { operation }) => failures.push(operation),
      }),
    );
    const stop = runtime.subscribe((event) => void pager.publish([event]));
    const paused = await runtime.start(agent.name, { input: 'pay' });
    await pager.flush();
    await runtime.respond(paused.runId, {
      approvalId: paused.pendingApprovals[0]!.approvalId,
      approved: true,
      approvedBy: 'alice',
    });
    await pager.flush();
    stop();
    const deliveries = await otel.metric('countersign.channel.deliveries');
    const counts = Object.fromEntries(
      (deliveries?.dataPoints ?? []).map((point) => [
        `${point.attributes['countersign.delivery.operation']}:${point.attributes['countersign.delivery.outcome']}`,
        point.value,
      ]),
    );
    // The card is posted once; each outcome shown on it (the decision, then the call's end) fails and is counted.
    expect(failures.length).toBeGreaterThan(0);
    expect(counts).toEqual({ 'post:ok': 1, 'update:failed': failures.length });
    expect(deliveries?.dataPoints[0]?.attributes['countersign.channel']).toBe('pager');
  });
});
