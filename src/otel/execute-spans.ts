// The spans of one execute: `invoke_agent {agent}` around it, `chat {model}` per model call and
// `execute_tool {tool}` per tool call under it, with the GenAI semantic conventions' names.
import {
  type Attributes,
  type Context,
  context,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import type { ExecuteTelemetry, ModelResponse, Telemetry } from '../index.js';
import type { Instruments } from './instruments.js';
import { contextOf, traceparentOf } from './trace-context.js';

/** Marks a span failed with what was thrown. */
function failed(span: Span, error: unknown): void {
  span.recordException(error instanceof Error ? error : String(error));
  span.setAttribute('error.type', error instanceof Error ? error.name : 'Error');
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}

/** Runs `work` as the current span `span` (so what it instruments nests under it), ending the span either way. */
async function within<T>(span: Span, parent: Context, work: () => Promise<T>, done: (value: T) => void): Promise<T> {
  try {
    const value = await context.with(trace.setSpan(parent, span), work);
    done(value);
    return value;
  } catch (error) {
    failed(span, error);
    throw error;
  } finally {
    span.end();
  }
}

/** What a model's answer adds to its `chat` span (when it has one) and to the token histogram. */
function answered(
  span: Span | undefined,
  response: ModelResponse,
  model: string | undefined,
  instruments: Instruments,
): void {
  const { usage, finishReason } = response;
  if (finishReason !== undefined) span?.setAttribute('gen_ai.response.finish_reasons', [finishReason]);
  const base: Attributes = {
    'gen_ai.operation.name': 'chat',
    ...(model === undefined ? {} : { 'gen_ai.request.model': model }),
  };
  if (usage?.inputTokens !== undefined) {
    span?.setAttribute('gen_ai.usage.input_tokens', usage.inputTokens);
    instruments.tokens.record(usage.inputTokens, { ...base, 'gen_ai.token.type': 'input' });
  }
  if (usage?.outputTokens !== undefined) {
    span?.setAttribute('gen_ai.usage.output_tokens', usage.outputTokens);
    instruments.tokens.record(usage.outputTokens, { ...base, 'gen_ai.token.type': 'output' });
  }
}

/**
 * The scope of an execute whose span is the API's no-op (no provider registered): its calls run as they are, with no
 * span to wrap them in; a meter that records still counts the tokens.
 */
function untraced(instruments: Instruments): ExecuteTelemetry {
  return {
    traceparent: undefined,
    async chat({ model }, ask) {
      const response = await ask();
      answered(undefined, response, model, instruments);
      return response;
    },
    tool: (_call, run) => run(undefined),
    end() {},
  };
}

/** The `execute` of the Telemetry port: spans of one execute of a run. */
export function executeSpans(tracer: Tracer, instruments: Instruments): Telemetry['execute'] {
  return ({ runId, agentName, sessionId, follows = [], traceparent }) => {
    const followed = follows.flatMap((asked) => contextOf(asked) ?? []);
    const active = context.active();
    // With no span current (a worker, a sweep, a gateway's follower), a resume continues the trace it was asked in,
    // and any execute the trace its run was started in (the caller's `traceparent`).
    const parent = trace.getSpan(active) === undefined ? (followed[0] ?? contextOf(traceparent) ?? active) : active;
    const links = followed.map((linked) => ({ context: trace.getSpanContext(linked)! }));
    const span = tracer.startSpan(
      `invoke_agent ${agentName}`,
      {
        kind: SpanKind.INTERNAL,
        attributes: {
          'gen_ai.operation.name': 'invoke_agent',
          'gen_ai.agent.name': agentName,
          'countersign.run.id': runId,
          ...(sessionId === undefined ? {} : { 'gen_ai.conversation.id': sessionId }),
        },
        links,
      },
      parent,
    );
    if (!span.isRecording() && !trace.isSpanContextValid(span.spanContext())) return untraced(instruments);
    const inside = trace.setSpan(parent, span);
    const scope: ExecuteTelemetry = {
      traceparent: traceparentOf(span.spanContext()),
      chat({ model }, ask) {
        const attributes: Attributes = {
          'gen_ai.operation.name': 'chat',
          ...(model === undefined ? {} : { 'gen_ai.request.model': model }),
        };
        const chat = tracer.startSpan(
          model === undefined ? 'chat' : `chat ${model}`,
          { kind: SpanKind.CLIENT, attributes },
          inside,
        );
        return within(chat, inside, ask, (response) => answered(chat, response, model, instruments));
      },
      tool({ toolName, toolCallId }, run) {
        const attributes: Attributes = {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': toolName,
          'gen_ai.tool.call.id': toolCallId,
        };
        const tool = tracer.startSpan(`execute_tool ${toolName}`, { kind: SpanKind.INTERNAL, attributes }, inside);
        return within(
          tool,
          inside,
          () => run(traceparentOf(tool.spanContext())),
          () => {},
        );
      },
      end(snapshot, error) {
        span.setAttribute('countersign.run.status', snapshot.status);
        if (snapshot.stopReason !== undefined) span.setAttribute('countersign.run.stop_reason', snapshot.stopReason);
        if (error !== undefined) failed(span, error);
        else if (snapshot.status === 'failed')
          span.setStatus({ code: SpanStatusCode.ERROR, message: snapshot.error?.message ?? 'failed' });
        span.end();
      },
    };
    return scope;
  };
}
