// What tracing costs a full cycle (start → the run asks → approve → the tool runs → completed): telemetry off,
// openTelemetry() with no provider registered (the API's no-op), and openTelemetry() with the SDK's batch processor
// over its in-memory exporter (as production batches to OTLP) and a metric reader, every span and instrument
// recorded; on the memory store, then on Redis, where a cycle is its round trips. Rounds alternate so drift hits
// every variant alike.
// Run: npx tsx bench/otel.bench.ts   (REDIS_URL, else redis://127.0.0.1:6379)
import { Redis } from 'ioredis';
import { z } from 'zod';
import { createAgent, createRuntime, defineTool, type Model, type Telemetry } from 'countersign';
import { openTelemetry } from 'countersign/otel';
import { createRedisStore } from 'countersign/redis';
import { BasicTracerProvider, BatchSpanProcessor, InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { measure, formatDuration, printTable, type Sample } from './support/measure.js';

const ROUNDS = 5;
const redisUrl = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const prefix = `cs-bench-otel:${process.pid}:`;

class IdleReader extends MetricReader {
  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
}

const model: Model = {
  modelId: 'bench-model',
  async generate({ messages }) {
    return messages.at(-1)?.role === 'tool'
      ? { message: { role: 'assistant', content: 'paid' }, usage: { inputTokens: 30, outputTokens: 2 } }
      : {
          message: { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'pay', args: { cents: 1 } }] },
          usage: { inputTokens: 20, outputTokens: 5 },
        };
  },
};
const pay = defineTool({
  name: 'pay',
  description: 'Pay',
  input: z.object({ cents: z.number() }),
  execute: async () => 'ok',
});
const agent = createAgent({ name: 'bench', model, tools: [pay], decisionSecret: 'bench-secret-0123456789abcdef' });

function cycle(telemetry: Telemetry | undefined, redis?: Redis) {
  const runtime = createRuntime({
    agents: [agent],
    ...(redis === undefined ? {} : { store: createRedisStore({ redis, prefix }) }),
    ...(telemetry === undefined ? {} : { telemetry }),
  });
  return async () => {
    const paused = await runtime.start('bench', { input: 'pay' });
    const request = paused.pendingApprovals[0]!;
    const done = await runtime.respond(paused.runId, {
      approvalId: request.approvalId,
      approved: true,
      approvedBy: 'alice',
      signature: request.signature!,
    });
    if (done.status !== 'completed') throw new Error(`expected completed, got ${done.status}`);
  };
}

const exporter = new InMemorySpanExporter();
const tracer = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(exporter)] }).getTracer('bench');
const meter = new MeterProvider({ readers: [new IdleReader()] }).getMeter('bench');
const variantsOn = (redis?: Redis) => ({
  off: cycle(undefined, redis),
  'openTelemetry(), no provider': cycle(openTelemetry(), redis),
  'openTelemetry(), in-memory SDK': cycle(openTelemetry({ tracer, meter }), redis),
});

/** Times each variant in alternating rounds and prints median, p99 and the median's overhead over `off`. */
async function compare(title: string, variants: Record<string, () => Promise<void>>, iterations: number) {
  const samples = new Map<string, Sample[]>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, body] of Object.entries(variants)) {
      const sample = await measure(name, body, { iterations, warmup: Math.min(100, iterations) });
      samples.set(name, [...(samples.get(name) ?? []), sample]);
      exporter.reset();
    }
  }
  const medianOf = (name: string) => {
    const medians = samples
      .get(name)!
      .map((sample) => sample.median)
      .sort((a, b) => a - b);
    return medians[Math.floor(medians.length / 2)]!;
  };
  const base = medianOf('off');
  printTable(
    `${title} (median of ${ROUNDS} rounds of ${iterations})`,
    ['telemetry', 'median', 'p99', 'vs off'],
    Object.keys(variants).map((name) => {
      const p99 = Math.max(...samples.get(name)!.map((sample) => sample.p99));
      const median = medianOf(name);
      return [name, formatDuration(median), formatDuration(p99), `${(((median - base) / base) * 100).toFixed(1)}%`];
    }),
  );
}

await compare('A full ask → approve → complete cycle, memory store', variantsOn(), 400);
const redis = new Redis(redisUrl);
await compare('A full ask → approve → complete cycle, Redis store', variantsOn(redis), 150);
const keys = await redis.keys(`${prefix}*`);
for (let index = 0; index < keys.length; index += 500) await redis.unlink(...keys.slice(index, index + 500));
await redis.quit();
