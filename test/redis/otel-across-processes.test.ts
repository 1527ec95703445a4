// The wait for a person across two processes on one Redis: the request is asked in one runtime, decided in another
// (each with its own tracer and meter, as two processes would have). The deciding one reports the wait span under the
// trace the request was asked in, from the request to the decision, and the pending gauge sums to zero across them.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createRuntime } from 'countersign';
import { openTelemetry } from 'countersign/otel';
import { createRedisStore } from 'countersign/redis';
import { memoryTelemetry, payingAgent } from '../support/otel-harness.js';
import { testClock } from '../support/test-kit.js';
import { removePrefix } from './redis-harness.js';

const url = inject('redisUrl');
const ms = (time: readonly [number, number]) => time[0] * 1000 + time[1] / 1e6;

describe.skipIf(!url)('approval wait spans across processes on Redis', () => {
  const prefix = `cs-test:${randomUUID()}:`;
  const connections = [new Redis(url!), new Redis(url!)];
  afterAll(async () => {
    await removePrefix(connections[0]!, prefix);
    await Promise.all(connections.map((redis) => redis.quit()));
  });

  it('asked in one runtime, decided in another: the wait is a child of the asking execute and lasts the time to decide', async () => {
    const clock = testClock(Date.now());
    const { agent, executions } = payingAgent(clock);
    const [asking, deciding] = [memoryTelemetry(), memoryTelemetry()];
    const runtimes = [asking, deciding].map((otel, index) =>
      createRuntime({
        agents: [agent],
        store: createRedisStore({ redis: connections[index]!, prefix }),
        clock,
        telemetry: openTelemetry({ tracer: otel.tracer, meter: otel.meter }),
      }),
    );

    const paused = await runtimes[0]!.start(agent.name, { input: 'pay acct' });
    const request = paused.pendingApprovals[0]!;
    clock.advance(7 * 60_000);
    const done = await runtimes[1]!.respond(paused.runId, {
      approvalId: request.approvalId,
      approved: true,
      approvedBy: 'bob',
    });
    expect(done.status).toBe('completed');
    expect(executions).toHaveLength(1);

    const invoke = asking.span(`invoke_agent ${agent.name}`);
    expect(asking.spans().some((span) => span.name.startsWith('countersign.approval'))).toBe(false);
    const wait = deciding.span('countersign.approval send_payment');
    expect(wait.spanContext().traceId).toBe(invoke.spanContext().traceId);
    expect(wait.parentSpanContext).toMatchObject({ spanId: invoke.spanContext().spanId, isRemote: true });
    expect(ms(wait.startTime)).toBe(request.requestedAt);
    expect(ms(wait.duration)).toBe(7 * 60_000);
    expect(wait.attributes).toMatchObject({
      'countersign.approval.outcome': 'approved',
      'countersign.approval.decided_by': 'bob',
    });
    expect(deciding.span('execute_tool send_payment').attributes['gen_ai.tool.call.id']).toBe('call_1');
    const resumed = deciding.span(`invoke_agent ${agent.name}`);
    expect(resumed.spanContext().traceId).toBe(invoke.spanContext().traceId);
    expect(resumed.links.map((link) => link.context.spanId)).toEqual([invoke.spanContext().spanId]);

    const pending = await Promise.all([asking, deciding].map((otel) => otel.metric('countersign.approval.pending')));
    expect(pending.map((data) => data!.dataPoints[0]!.value)).toEqual([1, -1]);
  });
});
