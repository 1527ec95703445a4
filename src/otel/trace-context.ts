// The W3C `traceparent` a request carries between processes, written and read here without the global propagator:
// a process with none registered still continues the trace.
import { type Context, ROOT_CONTEXT, type SpanContext, TraceFlags, trace } from '@opentelemetry/api';

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The `traceparent` of a span's context, or undefined for one that is not valid (a no-op tracer's). */
export function traceparentOf(context: SpanContext): string | undefined {
  if (!trace.isSpanContextValid(context)) return undefined;
  const flags = (context.traceFlags & TraceFlags.SAMPLED).toString(16).padStart(2, '0');
  return `00-${context.traceId}-${context.spanId}-${flags}`;
}

/** A context whose parent is the remote span `traceparent` names, or undefined when it names none. */
export function contextOf(traceparent: string | undefined): Context | undefined {
  const match = traceparent === undefined ? null : TRACEPARENT.exec(traceparent);
  if (match === null) return undefined;
  const parent: SpanContext = {
    traceId: match[1]!,
    spanId: match[2]!,
    traceFlags: Number.parseInt(match[3]!, 16),
    isRemote: true,
  };
  return trace.isSpanContextValid(parent) ? trace.setSpanContext(ROOT_CONTEXT, parent) : undefined;
}
