import type { AgentSnapshot, DecideResult, Runtime } from '../index.js';
import { HttpProblem, parseJsonBody, problem, problemFor, problemResponse, readRawBody } from '../kit/index.js';
import { recordAnswers } from './chat-answers.js';
import { chatSettings, type ChatHandlerOptions } from './chat-options.js';
import { identified, openChat } from './chat-session.js';
import { startTurn } from './chat-turn.js';
import { uiChatAsk, uiChatBody } from './ui-chat-body.js';
import { toUIMessageStream, uiMessageStreamResponse } from './ui-message-stream.js';
import { atRest } from './watch-run.js';

/**
 * What `handleUIMessages` did with a POST of `useChat`.
 *
 * @example
 * const turn: UIChatTurn = await chat.handleUIMessages(request);
 * return uiMessageStreamResponse(toUIMessageStream(runtime, { runId: turn.runId, since: turn.before, carryOn: true }));
 */
export interface UIChatTurn {
  readonly chatId: string;
  /** The run the chat's stream follows now. */
  readonly runId: string;
  /** `'turn'`: the user's message started a run; `'answers'`: the answers in it were recorded (`decisions`). */
  readonly kind: 'turn' | 'answers';
  readonly decisions: readonly DecideResult[];
  /** The run as the client had it before (on `'answers'`): the stream sends only what came after. */
  readonly before?: AgentSnapshot;
}

/**
 * A chat endpoint for the AI SDK's `useChat` (its default transport; ai@6, UI message stream protocol v1), as a
 * Fetch-standard handler (`fetch`) to mount on a Next.js route, Hono or any server, and its POST half
 * (`handleUIMessages`) for a route of one's own.
 *
 * @example
 * const chat: UIChatHandler = createUIChatHandler(runtime, { agent: 'files', identify: (request) => userIdOf(request) });
 * app.post('/api/chat', (c) => chat.fetch(c.req.raw)); // Hono
 * app.get('/api/chat/:id/stream', (c) => chat.fetch(c.req.raw));
 */
export interface UIChatHandler {
  /**
   * `POST` `{ id, messages }` (the user's new message, or the chat's answers to its cards) streams the run;
   * `GET …/{chatId}/stream` reconnects to the chat's run (204 when nothing is under way or waiting), watching a
   * waiting run until it moves on, on whatever surface it was decided.
   */
  fetch(request: Request): Promise<Response>;
  /**
   * Reads the messages `useChat` POSTs and acts on the last one only: a user's message starts the chat's next turn
   * (a run of the agent on the chat's conversation so far, as the server holds it); approval responses in it are
   * proposals, checked against the run's pending requests and their signatures, and recorded through `runtime.decide`
   * as the identified user's (a partial answer leaves the rest pending). Throws `HttpProblem` (401, 400, 409) or the
   * runtime's typed refusals; records nothing then.
   */
  handleUIMessages(request: Request): Promise<UIChatTurn>;
}

/**
 * Serves `useChat` from `runtime`'s agent `options.agent`: the chat's runs stream as the AI SDK's UI message stream
 * (`toUIMessageStream`), approvals appear as `tool-approval-request` parts with countersign's card, and the chat's
 * answers go through the same decision path as every other surface. Who is chatting comes from `options.identify`.
 *
 * @example
 * // app/api/chat/route.ts and app/api/chat/[id]/stream/route.ts (Next.js)
 * const chat = createUIChatHandler(runtime, { agent: 'files', identify: (request) => userIdOf(request) });
 * export const POST = chat.fetch;
 * export const GET = chat.fetch;
 */
export function createUIChatHandler(runtime: Runtime, options: ChatHandlerOptions): UIChatHandler {
  const settings = chatSettings(runtime, options, 'createUIChatHandler');

  const handleUIMessages = async (request: Request): Promise<UIChatTurn> => {
    const user = await identified(settings, request);
    const body = parseJsonBody(uiChatBody, await readRawBody(request, settings.maxBodyBytes));
    const ask = uiChatAsk(body);
    if (ask === undefined)
      throw new HttpProblem(
        problem(400, 'invalid_body', 'The last message is neither a user message with text nor answers to approvals.'),
      );
    const chat = await openChat(runtime, user, body.id);
    if (ask.kind === 'answers') {
      if (chat.run === undefined)
        throw new HttpProblem(
          problem(404, 'chat_not_found', `Chat ${body.id} has no run to answer; send a message first.`),
        );
      const decisions = await recordAnswers(runtime, chat.run, user, ask.answers);
      return { chatId: body.id, runId: chat.run.runId, kind: 'answers', decisions, before: chat.run };
    }
    const runId = await startTurn(runtime, settings, chat, ask.text);
    return { chatId: body.id, runId, kind: 'turn', decisions: [] };
  };

  const stream = (
    request: Request,
    turn: Pick<UIChatTurn, 'runId' | 'before'>,
    until: { readonly change: AgentSnapshot } | 'rest',
  ) =>
    uiMessageStreamResponse(
      toUIMessageStream(runtime, {
        runId: turn.runId,
        ...(turn.before === undefined ? {} : { since: turn.before }),
        carryOn: true,
        ...(until === 'rest' ? {} : { until: 'change', seen: until.change }),
        ...(settings.events === undefined ? {} : { events: settings.events }),
        recheckMs: settings.recheckMs,
        signal: request.signal,
        ...(settings.onError === undefined ? {} : { onError: settings.onError }),
      }),
    );

  const reconnect = async (request: Request, chatId: string): Promise<Response> => {
    const user = await identified(settings, request);
    const chat = await openChat(runtime, user, chatId);
    if (chat.run === undefined || (atRest(chat.run) && chat.run.status !== 'awaitingApproval'))
      return new Response(null, { status: 204 });
    return stream(request, { runId: chat.run.runId }, { change: chat.run });
  };

  return {
    handleUIMessages,
    async fetch(request) {
      try {
        if (request.method === 'POST') return stream(request, await handleUIMessages(request), 'rest');
        const chatId = /\/([^/]+)\/stream\/?$/.exec(new URL(request.url).pathname)?.[1];
        if (request.method === 'GET' && chatId !== undefined)
          return await reconnect(request, decodeURIComponent(chatId));
        return problemResponse(
          problem(405, 'method_not_allowed', 'POST { id, messages } to chat, or GET …/{chatId}/stream to reconnect.'),
          { allow: 'GET, POST' },
        );
      } catch (error) {
        const answer = problemFor(error);
        if (answer.unexpected) settings.onError?.(error);
        return problemResponse(answer.problem, answer.headers);
      }
    },
  };
}
