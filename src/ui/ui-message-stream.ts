import type { AgentSnapshot, Runtime } from '../index.js';
import { runParts } from './run-parts.js';
import { createUIChunker, type CountersignUIChunk } from './ui-chunks.js';
import { sseResponse } from './sse-response.js';
import { atRest, restKey, watchRun, type ChatEventFeed } from './watch-run.js';

/**
 * Options of `toUIMessageStream`.
 *
 * @example
 * const options: UIMessageStreamOptions = { runId, since: before, carryOn: true, signal: request.signal };
 */
export interface UIMessageStreamOptions {
  readonly runId: string;
  /**
   * The run as the client already shows it (what an earlier stream sent): only what came after is sent, as a
   * continuation of the same message. Default: the whole of the run's message again (a reconnect, which replaces the
   * client's copy of the message, so nothing appears twice).
   */
  readonly since?: AgentSnapshot;
  /** Carry the run on here (`runtime.resume`) while streaming: after a start or decisions recorded with mode `'record'`. */
  readonly carryOn?: boolean;
  /**
   * `'rest'` (default): end once the run comes to rest (it waits for a person, or ended). `'change'`: a run at rest
   * is watched until it comes to another rest (a decision made on another surface, an expiry), the reconnect of a
   * chat whose card is open.
   */
  readonly until?: 'rest' | 'change';
  /** With `until: 'change'`: the run as the caller found it, the rest a change is measured from. Default: the run as the stream first reads it. */
  readonly seen?: AgentSnapshot;
  /** Where events come from: the runtime (default), or a feed carrying every process's events. */
  readonly events?: ChatEventFeed;
  /** How often the run is read again when nothing was heard. Default 2,000 ms. */
  readonly recheckMs?: number;
  readonly signal?: AbortSignal;
  /** Called with a failure that ended the stream early (the client gets an `error` chunk without its detail). */
  readonly onError?: (error: unknown) => void;
}

/**
 * The id of the assistant message a run's stream writes: the same for every stream of the run, so a reconnect
 * replaces the client's copy instead of adding a second.
 *
 * @example
 * const current = messages.find((message) => message.id === assistantMessageId(runId));
 */
export function assistantMessageId(runId: string): string {
  return `msg-${runId}`;
}

/** Why a chat's run stopped, in the UI message stream's words. */
function finishReason(run: AgentSnapshot): 'stop' | 'tool-calls' | 'error' | 'other' {
  if (run.status === 'completed') return 'stop';
  if (run.status === 'awaitingApproval') return 'tool-calls';
  return run.status === 'failed' ? 'error' : 'other';
}

/**
 * A run as the AI SDK's UI message stream (protocol v1, ai@6): text and reasoning as they stream, each tool call's
 * input once it is whole and redacted as the person sees it, `tool-approval-request` with countersign's approval id
 * and request signature (and a `data-countersign-approval` part with the card), `tool-output-available`,
 * `tool-output-denied` (an expiry is a denial with reason `expired`), and a `data-countersign-decision` part when a
 * request is settled on any surface. Ends with `finish` when the run comes to rest (see `until`).
 *
 * @example
 * const stream = toUIMessageStream(runtime, { runId, until: 'change', signal: request.signal });
 * return uiMessageStreamResponse(stream);
 */
export function toUIMessageStream(
  runtime: Runtime,
  options: UIMessageStreamOptions,
): ReadableStream<CountersignUIChunk> {
  const abort = new AbortController();
  options.signal?.addEventListener('abort', () => abort.abort());
  return new ReadableStream<CountersignUIChunk>({
    async start(controller) {
      const send = (chunk: CountersignUIChunk) => {
        if (!abort.signal.aborted) controller.enqueue(chunk);
      };
      const chunker = createUIChunker(options.runId);
      let display: Parameters<typeof runParts>[1];
      let last: AgentSnapshot | undefined;
      try {
        const first = options.since ?? (await runtime.get(options.runId));
        display = runtime.agent(first.agentName).settings.display;
        if (options.since !== undefined) chunker.seed(runParts(options.since, display));
        send({ type: 'start', messageId: assistantMessageId(options.runId) });
        const watch = watchRun({
          runtime,
          feed: options.events ?? runtime,
          runId: options.runId,
          recheckMs: options.recheckMs ?? 2_000,
          signal: abort.signal,
          ...(options.carryOn ? { action: () => runtime.resume(options.runId) } : {}),
          ...(options.until === 'change' && atRest(options.seen ?? first)
            ? { leaveRest: restKey(options.seen ?? first) }
            : {}),
        });
        for await (const item of watch) {
          const chunks =
            item.type === 'delta' ? chunker.delta(item.event) : chunker.parts(runParts(item.snapshot, display));
          if (item.type === 'snapshot') last = item.snapshot;
          for (const chunk of chunks) send(chunk);
        }
        for (const chunk of chunker.close()) send(chunk);
        if (last?.status === 'failed')
          send({ type: 'error', errorText: `The agent stopped with an error (${last.error?.code ?? 'error'}).` });
        if (last?.status === 'cancelled') send({ type: 'abort', reason: last.error?.message ?? 'cancelled' });
        if (last !== undefined) send({ type: 'finish', finishReason: finishReason(last) });
      } catch (error) {
        send({ type: 'error', errorText: 'The run could not go on here; reload the chat to see where it stands.' });
        options.onError?.(error);
      }
      if (!abort.signal.aborted) controller.close();
    },
    cancel() {
      abort.abort();
    },
  });
}

/**
 * The `Response` `useChat`'s default transport reads: the chunks as server-sent events (`data: <chunk JSON>`), then
 * `data: [DONE]`, with the header `x-vercel-ai-ui-message-stream: v1`.
 *
 * @example
 * return uiMessageStreamResponse(toUIMessageStream(runtime, { runId }));
 */
export function uiMessageStreamResponse(stream: ReadableStream<CountersignUIChunk>): Response {
  return sseResponse(stream, (chunk) => `data: ${JSON.stringify(chunk)}\n\n`, {
    headers: { 'x-vercel-ai-ui-message-stream': 'v1' },
    end: 'data: [DONE]\n\n',
  });
}
