// One model call of the loop: `generate`, or `stream` when the model has it (its deltas announced as they come),
// and what the loop makes of the answer either way: one event, `MODEL_RESPONDED` or `FAIL`.
import type { AgentEvent } from '../machine/agent-machine.js';
import { clampDepth } from '../run/argument-shape.js';
import { assistantSchema } from '../run/message-schema.js';
import { compiled } from '../options.js';
import type { ModelDeltaEvent } from '../run/run-events.js';
import type { AssistantMessage, Model, ModelRequest, ModelResponse, ModelStreamPart } from '../run/types.js';
import type { AgentSnapshot } from '../run/agent-snapshot.js';

/** Reads a stream to its `finish`, announcing each delta; throws when the stream ends without one or the signal aborts. */
async function readStream(
  parts: AsyncIterable<ModelStreamPart>,
  of: Pick<ModelDeltaEvent, 'type' | 'runId' | 'agentName' | 'turn'>,
  signal: AbortSignal,
  onDelta: (event: ModelDeltaEvent) => void,
): Promise<ModelResponse> {
  for await (const part of parts) {
    signal.throwIfAborted();
    switch (part.type) {
      case 'text-delta':
        onDelta({ ...of, kind: 'text', delta: part.delta });
        break;
      case 'reasoning-delta':
        onDelta({ ...of, kind: 'reasoning', delta: part.delta });
        break;
      case 'tool-call-delta':
        // Never the arguments: they may hold secrets, and a piece of JSON cannot be redacted.
        onDelta({
          ...of,
          kind: 'tool-call',
          delta: '',
          toolCallId: part.toolCallId,
          argsChars: part.argsDelta.length,
          ...(part.toolName === undefined ? {} : { toolName: part.toolName }),
        });
        break;
      case 'finish':
        return part.response;
    }
  }
  signal.throwIfAborted();
  throw new Error(
    "The model's stream ended without a `finish` part; a Model's stream must end with { type: 'finish', response }.",
  );
}

/**
 * Asks `model` for the next turn of `snapshot`: through `stream` when it has one, each delta handed to `onDelta`
 * at once (a `model-delta` of the call's turn), else through `generate`, with no other work. Rejects as the model
 * call does (a stream that ends without `finish` rejects too).
 */
export function callModel(
  model: Model,
  request: ModelRequest & { readonly signal: AbortSignal },
  snapshot: AgentSnapshot,
  onDelta: (event: ModelDeltaEvent) => void,
): Promise<ModelResponse> {
  if (!model.stream) return model.generate(request);
  const of = {
    type: 'model-delta',
    runId: snapshot.runId,
    agentName: snapshot.agentName,
    turn: snapshot.turns + 1,
  } as const;
  return readStream(model.stream(request), of, request.signal, onDelta);
}

/** The assistant message to check and keep: the model's, with what its call used and why it stopped when the answer says. */
function answeredMessage(response: ModelResponse | undefined): unknown {
  const message = response?.message;
  if (response?.usage === undefined && response?.finishReason === undefined) return message;
  if (typeof message !== 'object' || message === null) return message;
  return {
    ...message,
    ...(response.usage === undefined ? {} : { usage: response.usage }),
    ...(response.finishReason === undefined ? {} : { finishReason: response.finishReason }),
  };
}

/** The model's message with over-deep call arguments cut at the limit, so the history stays encodable; those calls are then refused (evaluateCalls). */
function withArgsClamped(message: AssistantMessage): AssistantMessage {
  if (!message.toolCalls) return message;
  const toolCalls = message.toolCalls.map((call) => {
    const args = clampDepth(call.args);
    return args === call.args ? call : { ...call, args };
  });
  return toolCalls.every((call, index) => call === message.toolCalls![index]) ? message : { ...message, toolCalls };
}

/** What the loop does with a model's answer, however it came: records it, or fails the run when it is not a valid assistant message. */
export function answerEvent(response: ModelResponse | undefined, at: number): AgentEvent {
  const parsed = compiled(assistantSchema).safeParse(answeredMessage(response));
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return {
      type: 'FAIL',
      at,
      error: {
        code: 'invalid_model_response',
        message: `The model returned an invalid assistant message: ${issue.message} at ${issue.path.join('.')}.`,
      },
    };
  }
  return { type: 'MODEL_RESPONDED', at, message: withArgsClamped(parsed.data as AssistantMessage) };
}
