import type { AgentSnapshot, Runtime } from '../index.js';
import { HttpProblem, parseJsonBody, problem, problemFor, problemResponse, readRawBody } from '../kit/index.js';
import { agUiAsk, agUiInput } from './ag-ui-input.js';
import { agUiMessages } from './ag-ui-messages.js';
import { createAgUiEventWriter, type AgUiEvent } from './ag-ui-events.js';
import { approvalCard } from './approval-card.js';
import { recordAnswers } from './chat-answers.js';
import { chatSettings, type ChatHandlerOptions, type ChatSettings } from './chat-options.js';
import { identified, openChat } from './chat-session.js';
import { startTurn } from './chat-turn.js';
import { runParts } from './run-parts.js';
import { sseResponse } from './sse-response.js';
import { atRest, restKey, watchRun } from './watch-run.js';

/**
 * An AG-UI 1.0 endpoint as a Fetch-standard handler: POST a `RunAgentInput`, read server-sent events.
 *
 * @example
 * const agUi = createAgUiHandler(runtime, { agent: 'files', identify: (request) => userIdOf(request) });
 * export const POST = agUi.fetch; // app/api/ag-ui/route.ts (Next.js)
 */
export interface AgUiHandler {
  /**
   * A run input with a new user message starts the thread's next turn; one with `resume` answers its interrupts
   * (through `runtime.decide`, as the identified user; interrupts not answered stay pending and are returned again);
   * one with neither reconnects: a `MESSAGES_SNAPSHOT` of the thread, then the run as it goes on (a waiting run is
   * watched until it moves, on whatever surface it was decided). Every answer ends with `RUN_FINISHED` (an interrupt
   * outcome while requests wait) or `RUN_ERROR`.
   */
  fetch(request: Request): Promise<Response>;
}

/** `@ag-ui/encoder`, loaded when the first answer is written (so `countersign/ui` loads without it). */
let encoder: Promise<{ encodeSSE(event: never): string }> | undefined;
const loadEncoder = () => {
  encoder ??= import('@ag-ui/encoder').then(({ EventEncoder }) => new EventEncoder());
  return encoder;
};

/**
 * Serves AG-UI 1.0 clients (CopilotKit, `@ag-ui/client`'s `HttpAgent`) from `runtime`'s agent `options.agent`: a
 * thread is a chat (its runs one per turn); a pause is a run finished with an interrupt outcome, one interrupt per
 * waiting request (its id the approval id, its expiry, the request signature and countersign's card in `metadata`),
 * answered by a later run's `resume` through the same decision path as every other surface.
 *
 * @example
 * const agUi = createAgUiHandler(runtime, { agent: 'files', identify: async (request) => (await session(request))?.userId });
 * app.post('/api/ag-ui', (c) => agUi.fetch(c.req.raw)); // Hono
 */
export function createAgUiHandler(runtime: Runtime, options: ChatHandlerOptions): AgUiHandler {
  const settings = chatSettings(runtime, options, 'createAgUiHandler');
  return {
    async fetch(request) {
      try {
        if (request.method !== 'POST')
          return problemResponse(problem(405, 'method_not_allowed', 'POST an AG-UI RunAgentInput.'), { allow: 'POST' });
        const user = await identified(settings, request);
        const input = parseJsonBody(agUiInput, await readRawBody(request, settings.maxBodyBytes));
        const ask = agUiAsk(input);
        if (ask === undefined)
          throw new HttpProblem(
            problem(
              400,
              'invalid_body',
              'The input neither resumes interrupts nor ends with a user message with text.',
            ),
          );
        const chat = await openChat(runtime, user, input.threadId);
        const { encodeSSE } = await loadEncoder();
        const respond = (events: ReadableStream<AgUiEvent>) =>
          sseResponse(events, (event) => encodeSSE(event as never), { headers: {} });
        if (ask.kind === 'reconnect')
          return respond(
            eventStream(runtime, settings, request, { input, run: chat.run, reconnect: { watch: ask.watch } }),
          );
        if (ask.kind === 'answers') {
          if (chat.run === undefined)
            throw new HttpProblem(problem(404, 'chat_not_found', `Thread ${input.threadId} has no run to resume.`));
          await recordAnswers(runtime, chat.run, user, ask.answers);
          return respond(eventStream(runtime, settings, request, { input, run: chat.run, since: chat.run }));
        }
        const runId = await startTurn(runtime, settings, chat, ask.text);
        return respond(eventStream(runtime, settings, request, { input, run: await runtime.get(runId) }));
      } catch (error) {
        const answer = problemFor(error);
        if (answer.unexpected) settings.onError?.(error);
        return problemResponse(answer.problem, answer.headers);
      }
    },
  };
}

interface StreamPlan {
  readonly input: { readonly threadId: string; readonly runId: string };
  /** The thread's run to follow (none: a reconnect to a thread that has had no turn). */
  readonly run: AgentSnapshot | undefined;
  /** What the client already has of it (after answers): only what follows is sent. */
  readonly since?: AgentSnapshot;
  /**
   * A reconnect: the thread's messages first, then the run as it goes on; a waiting run's interrupts at once, or
   * (`watch`) once it moved on.
   */
  readonly reconnect?: { readonly watch: boolean };
}

/** The events of one AG-UI run of the thread: started, the run's pieces as they come, finished. */
function eventStream(
  runtime: Runtime,
  settings: ChatSettings,
  request: Request,
  plan: StreamPlan,
): ReadableStream<AgUiEvent> {
  const { threadId, runId: clientRunId } = plan.input;
  const abort = new AbortController();
  request.signal.addEventListener('abort', () => abort.abort());
  return new ReadableStream<AgUiEvent>({
    async start(controller) {
      const send = (event: AgUiEvent) => {
        if (!abort.signal.aborted) controller.enqueue(event);
      };
      send({ type: 'RUN_STARTED', threadId, runId: clientRunId });
      const run = plan.run;
      if (run === undefined) {
        send({ type: 'MESSAGES_SNAPSHOT', messages: [] });
        send({ type: 'RUN_FINISHED', threadId, runId: clientRunId });
        controller.close();
        return;
      }
      const display = runtime.agent(run.agentName).settings.display;
      const writer = createAgUiEventWriter(run.runId);
      let last = run;
      try {
        if (plan.reconnect !== undefined) {
          send({ type: 'MESSAGES_SNAPSHOT', messages: agUiMessages(run, display) });
          writer.seed(runParts(run, display).filter((part) => part.kind !== 'approval'));
        } else if (plan.since !== undefined) writer.seed(runParts(plan.since, display));
        const settled = atRest(run) && (run.status !== 'awaitingApproval' || plan.reconnect?.watch === false);
        const watch = settled
          ? []
          : watchRun({
              runtime,
              feed: settings.events ?? runtime,
              runId: run.runId,
              recheckMs: settings.recheckMs,
              signal: abort.signal,
              action: () => runtime.resume(run.runId),
              ...(plan.reconnect !== undefined && atRest(run) ? { leaveRest: restKey(run) } : {}),
            });
        for await (const item of watch) {
          if (item.type === 'delta') writer.delta(item.event).forEach(send);
          else {
            last = item.snapshot;
            writer.parts(runParts(item.snapshot, display)).forEach(send);
          }
        }
        const waiting =
          last.status === 'awaitingApproval' ? last.pendingApprovals.map((request) => approvalCard(last, request)) : [];
        writer.finish(last, threadId, clientRunId, waiting).forEach(send);
      } catch (error) {
        send({ type: 'RUN_ERROR', message: 'The run could not go on here; reconnect to see where it stands.' });
        settings.onError?.(error);
      }
      if (!abort.signal.aborted) controller.close();
    },
    cancel() {
      abort.abort();
    },
  });
}
