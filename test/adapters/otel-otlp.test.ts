// countersign/otel through the official OTLP/HTTP exporter to a receiver on loopback: what leaves the process is the
// span tree of an asked, approved and run call, with the wait span's times and attributes as OTLP JSON carries them.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, describe, expect, it } from 'vitest';
import { createRuntime } from 'countersign';
import { openTelemetry } from 'countersign/otel';
import { payingAgent } from '../support/otel-harness.js';
import { testClock } from '../support/test-kit.js';

interface OtlpSpan {
  readonly name: string;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly startTimeUnixNano: string;
  readonly endTimeUnixNano: string;
  readonly attributes: readonly { readonly key: string; readonly value: Record<string, unknown> }[];
}

const bodies: string[] = [];
const receiver = createServer((request, response) => {
  let body = '';
  request.setEncoding('utf8');
  request.on('data', (chunk: string) => (body += chunk));
  request.on('end', () => {
    if (request.url === '/v1/traces') bodies.push(body);
    response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

const received = (): OtlpSpan[] =>
  bodies.flatMap((body) =>
    (JSON.parse(body) as { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] }).resourceSpans.flatMap(
      (resource) => resource.scopeSpans.flatMap((scope) => scope.spans),
    ),
  );

describe('openTelemetry through the OTLP/HTTP exporter', () => {
  it('a receiver on loopback gets the span tree and the wait from the request to the decision', async () => {
    const { port } = receiver.address() as AddressInfo;
    const exporter = new OTLPTraceExporter({ url: `http://127.0.0.1:${port}/v1/traces` });
    const provider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(exporter)] });
    const clock = testClock(Date.now());
    const { agent } = payingAgent(clock);
    const runtime = createRuntime({
      agents: [agent],
      clock,
      telemetry: openTelemetry({ tracer: provider.getTracer('otlp-test') }),
    });
    const paused = await runtime.start(agent.name, { input: 'pay acct' });
    const request = paused.pendingApprovals[0]!;
    clock.advance(45_000);
    await runtime.respond(paused.runId, { approvalId: request.approvalId, approved: true, approvedBy: 'alice' });
    await provider.forceFlush();
    await provider.shutdown();

    const spans = received();
    expect(spans.map((span) => span.name).sort()).toEqual(
      [
        `invoke_agent ${agent.name}`,
        `invoke_agent ${agent.name}`,
        'chat test-model',
        'chat test-model',
        'countersign.approval send_payment',
        'execute_tool send_payment',
      ].sort(),
    );
    const wait = spans.find((span) => span.name === 'countersign.approval send_payment')!;
    const asking = spans.find(
      (span) => span.name === `invoke_agent ${agent.name}` && span.spanId === request.traceparent!.split('-')[2],
    );
    expect(wait.parentSpanId).toBe(asking!.spanId);
    expect(BigInt(wait.startTimeUnixNano)).toBe(BigInt(request.requestedAt) * 1_000_000n);
    expect(BigInt(wait.endTimeUnixNano) - BigInt(wait.startTimeUnixNano)).toBe(45_000n * 1_000_000n);
    const attributes = Object.fromEntries(wait.attributes.map((attribute) => [attribute.key, attribute.value]));
    expect(attributes).toMatchObject({
      'countersign.approval.outcome': { stringValue: 'approved' },
      'countersign.approval.decided_by': { stringValue: 'alice' },
      'gen_ai.tool.name': { stringValue: 'send_payment' },
    });
  });
});
