import { metrics, type Meter, type Tracer, trace } from '@opentelemetry/api';
import { z } from 'zod';
import type { Telemetry } from '../index.js';
import { optionsObject, parseOptions } from '../kit/index.js';
import { commitRecorder } from './commit-recorder.js';
import { executeSpans } from './execute-spans.js';
import { instrumentsOf } from './instruments.js';

/**
 * Options of `openTelemetry`.
 *
 * @example
 * const options: OpenTelemetryOptions = { tracer: trace.getTracer('payments-agent'), recordDeciders: false };
 */
export interface OpenTelemetryOptions {
  /** Where spans go. Default: the global provider's tracer `countersign` (a no-op until one is registered). */
  readonly tracer?: Tracer;
  /** Where metrics go. Default: the global provider's meter `countersign` (a no-op until one is registered). */
  readonly meter?: Meter;
  /** Put who decided (`countersign.approval.decided_by`, voters, people escalated to) on wait spans. Default true. */
  readonly recordDeciders?: boolean;
}

const optionsSchema = optionsObject({
  tracer: z
    .custom<Tracer>((value) => typeof (value as Tracer | undefined)?.startSpan === 'function', 'must be a Tracer')
    .optional(),
  meter: z
    .custom<Meter>((value) => typeof (value as Meter | undefined)?.createCounter === 'function', 'must be a Meter')
    .optional(),
  recordDeciders: z.boolean().optional(),
});

/**
 * Traces and metrics through `@opentelemetry/api` with the GenAI semantic conventions: `invoke_agent {agent}` per
 * execute, `chat {model}` and `execute_tool {tool}` under it, and `countersign.approval {tool}` for each wait for a
 * person, from the request to its decision, reported by the process that records the decision under the trace the
 * request was asked in. Register a provider (the OpenTelemetry Node SDK) to see them; without one nothing is recorded.
 *
 * @example
 * import { openTelemetry } from 'countersign/otel';
 * const runtime = createRuntime({ agents: [agent], store, telemetry: openTelemetry({ recordDeciders: false }) });
 */
export function openTelemetry(options: OpenTelemetryOptions = {}): Telemetry {
  parseOptions(optionsSchema, options, 'openTelemetry');
  const tracer = options.tracer ?? trace.getTracer('countersign');
  const instruments = instrumentsOf(options.meter ?? metrics.getMeter('countersign'));
  return {
    execute: executeSpans(tracer, instruments),
    recorded: commitRecorder(tracer, instruments, options.recordDeciders ?? true),
    delivered: ({ channel, operation, ok }) =>
      instruments.deliveries.add(1, {
        'countersign.channel': channel,
        'countersign.delivery.operation': operation,
        'countersign.delivery.outcome': ok ? 'ok' : 'failed',
      }),
  };
}
