import type { AgentSnapshot, ModelDeltaEvent } from '../index.js';
import type { ChatApprovalCard } from './approval-card.js';
import { answerPartId, type RunPart } from './run-parts.js';

/** An AG-UI 1.0 event as countersign writes it (`type` is one of `@ag-ui/core`'s `EventType` values). */
export interface AgUiEvent {
  readonly type: string;
  readonly [field: string]: unknown;
}

/** What a resume payload may say about one interrupt (its `responseSchema`). */
const PAYLOAD_SCHEMA = {
  type: 'object',
  properties: {
    approved: { type: 'boolean' },
    reason: { type: 'string', maxLength: 2000 },
    args: { description: 'Approve with these arguments instead (an edit, checked against the tool schema).' },
    scope: { enum: ['once', 'run', 'session'] },
  },
  required: ['approved'],
} as const;

/** The interrupt of a waiting request: its id is the approval id; the signature and the card ride in `metadata`. */
export function interruptOf(card: ChatApprovalCard): Readonly<Record<string, unknown>> {
  return {
    id: card.approvalId,
    reason: 'tool_approval',
    message: card.description,
    toolCallId: card.toolCallId,
    responseSchema: PAYLOAD_SCHEMA,
    ...(card.expiresAt === undefined ? {} : { expiresAt: new Date(card.expiresAt).toISOString() }),
    metadata: { ...(card.signature === undefined ? {} : { signature: card.signature }), countersign: card },
  };
}

/** Turns a run's pieces and its model's deltas into AG-UI events, each piece once. */
export interface AgUiEventWriter {
  seed(parts: readonly RunPart[]): void;
  parts(parts: readonly RunPart[]): AgUiEvent[];
  delta(event: ModelDeltaEvent): AgUiEvent[];
  /** Ends open messages, then the run: an interrupt outcome with one interrupt per waiting request, success, or an error. */
  finish(run: AgentSnapshot, threadId: string, runId: string, waiting: readonly ChatApprovalCard[]): AgUiEvent[];
}

const messageEvents = {
  text: ['TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_END'],
  reasoning: ['REASONING_MESSAGE_START', 'REASONING_MESSAGE_CONTENT', 'REASONING_MESSAGE_END'],
} as const;

/** The start of a text or reasoning message. */
function opening(kind: 'text' | 'reasoning', messageId: string): AgUiEvent {
  return kind === 'text'
    ? { type: messageEvents.text[0], messageId, role: 'assistant' }
    : { type: messageEvents.reasoning[0], messageId, role: 'reasoning' };
}

export function createAgUiEventWriter(runId: string): AgUiEventWriter {
  const sent = new Set<string>();
  const open = new Map<string, 'text' | 'reasoning'>();
  /** The text message each call's turn wrote, so the call joins that assistant message. */
  let lastText: string | undefined;
  const of = (part: RunPart): AgUiEvent[] => {
    switch (part.kind) {
      case 'text':
      case 'reasoning': {
        const [, content, end] = messageEvents[part.kind];
        if (part.kind === 'text') lastText = part.id;
        if (open.delete(part.id)) return [{ type: end, messageId: part.id }];
        return [
          opening(part.kind, part.id),
          { type: content, messageId: part.id, delta: part.text },
          { type: end, messageId: part.id },
        ];
      }
      case 'tool-call':
        return [
          {
            type: 'TOOL_CALL_START',
            toolCallId: part.toolCallId,
            toolCallName: part.toolName,
            ...(lastText === undefined ? {} : { parentMessageId: lastText }),
          },
          { type: 'TOOL_CALL_ARGS', toolCallId: part.toolCallId, delta: JSON.stringify(part.input ?? {}) },
          { type: 'TOOL_CALL_END', toolCallId: part.toolCallId },
        ];
      case 'approval':
        // Waiting requests become the interrupts of RUN_FINISHED.
        return [];
      case 'decision':
        return [{ type: 'CUSTOM', name: 'countersign.decision', value: part.decision }];
      case 'tool-result':
        return [
          {
            type: 'TOOL_CALL_RESULT',
            messageId: `${part.toolCallId}:result`,
            toolCallId: part.toolCallId,
            content: part.output,
            role: 'tool',
          },
        ];
      case 'tool-denied':
        return [
          {
            type: 'TOOL_CALL_RESULT',
            messageId: `${part.toolCallId}:result`,
            toolCallId: part.toolCallId,
            content: JSON.stringify({
              status: 'denied',
              ...(part.reason === undefined ? {} : { reason: part.reason }),
            }),
            role: 'tool',
          },
        ];
    }
  };
  return {
    seed(parts) {
      for (const part of parts) sent.add(part.key);
    },
    parts(parts) {
      const events: AgUiEvent[] = [];
      for (const part of parts) {
        if (part.kind === 'text') lastText = part.id;
        if (sent.has(part.key)) continue;
        sent.add(part.key);
        events.push(...of(part));
      }
      return events;
    },
    delta(event) {
      if (event.kind === 'tool-call' || event.delta === '') return [];
      const messageId = answerPartId(runId, event.kind, event.turn);
      if (sent.has(messageId)) return [];
      const events: AgUiEvent[] = [];
      if (!open.has(messageId)) {
        open.set(messageId, event.kind);
        events.push(opening(event.kind, messageId));
      }
      events.push({ type: messageEvents[event.kind][1], messageId, delta: event.delta });
      return events;
    },
    finish(run, threadId, clientRunId, waiting) {
      const events: AgUiEvent[] = [...open].map(([messageId, kind]) => ({ type: messageEvents[kind][2], messageId }));
      open.clear();
      if (run.status === 'failed')
        return [
          ...events,
          { type: 'RUN_ERROR', message: 'The agent stopped with an error.', code: run.error?.code ?? 'error' },
        ];
      const outcome =
        run.status === 'cancelled'
          ? { type: 'cancelled' }
          : waiting.length > 0
            ? { type: 'interrupt', interrupts: waiting.map(interruptOf) }
            : undefined;
      return [
        ...events,
        {
          type: 'RUN_FINISHED',
          threadId,
          runId: clientRunId,
          ...(outcome === undefined ? {} : { outcome }),
          ...(run.status === 'completed' ? { result: run.output ?? '' } : {}),
        },
      ];
    },
  };
}
