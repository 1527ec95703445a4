// In-memory OpenTelemetry for tests: a tracer whose finished spans are kept, a meter read on demand, and an agent
// whose model reports usage, so a test reads the span tree and the metrics of a run.
import { z } from 'zod';
import { defineTool, type Model } from 'countersign';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { MeterProvider, MetricReader, type MetricData } from '@opentelemetry/sdk-metrics';
import { testAgent } from './test-kit.js';

class TestReader extends MetricReader {
  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
}

/** A tracer and a meter of their own (one per simulated process), nothing registered globally. */
export function memoryTelemetry() {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const reader = new TestReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  return {
    tracer: tracerProvider.getTracer('test'),
    meter: meterProvider.getMeter('test'),
    spans: (): ReadableSpan[] => exporter.getFinishedSpans(),
    span(name: string): ReadableSpan {
      const found = exporter.getFinishedSpans().filter((span) => span.name === name);
      if (found.length !== 1) throw new Error(`expected one span ${name}, found ${found.length}`);
      return found[0]!;
    },
    async metric(name: string): Promise<MetricData | undefined> {
      const { resourceMetrics } = await reader.collect();
      return resourceMetrics.scopeMetrics
        .flatMap((scope) => scope.metrics)
        .find((data) => data.descriptor.name === name);
    },
  };
}

/** An agent that asks to pay once (the call needs approval), then answers; its model reports usage and a finish reason. */
export function payingAgent(clock: () => number) {
  const executions: string[] = [];
  const model: Model = {
    modelId: 'test-model',
    async generate({ messages }) {
      const last = messages.at(-1);
      if (last?.role === 'tool')
        return {
          message: { role: 'assistant', content: 'paid' },
          usage: { inputTokens: 30, outputTokens: 2 },
          finishReason: 'stop',
        };
      return {
        message: {
          role: 'assistant',
          content: '',
          toolCalls: [{ id: 'call_1', name: 'send_payment', args: { to: 'acct', cents: 100 } }],
        },
        usage: { inputTokens: 20, outputTokens: 5 },
        finishReason: 'tool-calls',
      };
    },
  };
  const tool = defineTool({
    name: 'send_payment',
    description: 'Send a payment',
    input: z.object({ to: z.string(), cents: z.number().int() }),
    execute: async ({ to }, ctx) => {
      executions.push(ctx.idempotencyKey);
      return `paid ${to}`;
    },
  });
  return { agent: testAgent({ model, tools: [tool], clock, approvalTtlMs: 3_600_000 }), executions };
}
