import type { UIMessageChunk } from 'ai';
import type { ModelDeltaEvent } from '../index.js';
import type { ChatApprovalCard, ChatDecision } from './approval-card.js';
import { answerPartId, type RunPart } from './run-parts.js';

/**
 * The data parts countersign adds to a chat's messages: the card of a waiting request, and how a request was settled.
 *
 * @example
 * type ChatMessage = UIMessage<unknown, CountersignDataParts>;
 * const { messages } = useChat<ChatMessage>({ transport: new DefaultChatTransport({ api: '/api/chat' }) });
 */
export type CountersignDataParts = {
  'countersign-approval': ChatApprovalCard;
  'countersign-decision': ChatDecision;
};

/**
 * A chunk of the AI SDK's UI message stream, as countersign writes it (with countersign's data parts).
 *
 * @example
 * for await (const chunk of toUIMessageStream(runtime, { runId })) if (chunk.type === 'tool-approval-request') notify(chunk.approvalId);
 */
export type CountersignUIChunk = UIMessageChunk<unknown, CountersignDataParts>;

/** Turns a run's pieces (`RunPart`) and its model's deltas into UI message chunks, each piece once. */
export interface UIChunker {
  /** Marks pieces as already with the client (what an earlier stream sent), so they are not sent again. */
  seed(parts: readonly RunPart[]): void;
  /** The chunks of the pieces not sent yet. */
  parts(parts: readonly RunPart[]): CountersignUIChunk[];
  /** The chunks of a streamed piece of text or reasoning; nothing for a tool call's arguments (never sent raw). */
  delta(event: ModelDeltaEvent): CountersignUIChunk[];
  /** Ends the text and reasoning still open. */
  close(): CountersignUIChunk[];
}

/** The chunks of one piece of the run. */
function chunksOf(part: RunPart, open: boolean): CountersignUIChunk[] {
  switch (part.kind) {
    case 'text':
    case 'reasoning': {
      const end = { type: `${part.kind}-end`, id: part.id } as const;
      if (open) return [end];
      return [
        { type: `${part.kind}-start`, id: part.id },
        { type: `${part.kind}-delta`, id: part.id, delta: part.text },
        end,
      ];
    }
    case 'tool-call':
      return [
        { type: 'tool-input-start', toolCallId: part.toolCallId, toolName: part.toolName },
        { type: 'tool-input-available', toolCallId: part.toolCallId, toolName: part.toolName, input: part.input },
      ];
    case 'approval': {
      const { card } = part;
      return [
        {
          type: 'tool-approval-request',
          approvalId: card.approvalId,
          toolCallId: card.toolCallId,
          ...(card.signature === undefined ? {} : { signature: card.signature }),
        },
        { type: 'data-countersign-approval', id: card.approvalId, data: card },
      ];
    }
    case 'decision':
      return [{ type: 'data-countersign-decision', id: part.decision.approvalId, data: part.decision }];
    case 'tool-result':
      return [{ type: 'tool-output-available', toolCallId: part.toolCallId, output: part.output }];
    case 'tool-denied':
      // The protocol's chunk has no reason field; the reason travels in the decision part (and here, for readers that keep extra fields).
      return [
        {
          type: 'tool-output-denied',
          toolCallId: part.toolCallId,
          ...(part.reason === undefined ? {} : { reason: part.reason }),
        },
      ];
  }
}

/**
 * A chunker for one run's assistant message. A tool call's arguments are sent whole, once the call is committed and
 * redacted (the request's display copy), never as the model's raw deltas.
 */
export function createUIChunker(runId: string): UIChunker {
  const sent = new Set<string>();
  const open = new Map<string, 'text' | 'reasoning'>();
  return {
    seed(parts) {
      for (const part of parts) sent.add(part.key);
    },
    parts(parts) {
      const chunks: CountersignUIChunk[] = [];
      for (const part of parts) {
        if (sent.has(part.key)) continue;
        sent.add(part.key);
        const streamed = (part.kind === 'text' || part.kind === 'reasoning') && open.delete(part.id);
        chunks.push(...chunksOf(part, streamed));
      }
      return chunks;
    },
    delta(event) {
      if (event.kind === 'tool-call' || event.delta === '') return [];
      const id = answerPartId(runId, event.kind, event.turn);
      if (sent.has(id)) return [];
      const chunks: CountersignUIChunk[] = [];
      if (!open.has(id)) {
        open.set(id, event.kind);
        chunks.push({ type: `${event.kind}-start`, id });
      }
      chunks.push({ type: `${event.kind}-delta`, id, delta: event.delta });
      return chunks;
    },
    close() {
      const chunks: CountersignUIChunk[] = [...open].map(([id, kind]) => ({ type: `${kind}-end`, id }) as const);
      open.clear();
      return chunks;
    },
  };
}
