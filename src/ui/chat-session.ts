import { randomUUID } from 'node:crypto';
import { type AgentSnapshot, type Runtime, RunNotFoundError } from '../index.js';
import { digestOf, HttpProblem, problem } from '../kit/index.js';
import type { ChatSettings } from './chat-options.js';

/** One person's chat: its session (the runs' `sessionId`) and the run of its latest turn. */
export interface ChatSession {
  readonly user: string;
  readonly sessionId: string;
  /** The run id of the chat's latest turn, if it has had one. */
  readonly head?: string;
  /** That run, unless its start never got recorded. */
  readonly run?: AgentSnapshot;
}

/**
 * The session of `user`'s chat `chatId`: derived from both, so one person's chat id names nothing of another's (their
 * runs, their "for this session" grants). Its runs' `sessionId`: list a chat's waiting requests with it.
 *
 * @example
 * const { items } = await runtime.pending({ sessionId: chatSessionId('ana', 'chat-42') });
 */
export function chatSessionId(user: string, chatId: string): string {
  return `chat:${digestOf(['countersign.chat', user, chatId]).slice(0, 40)}`;
}

const headKey = (sessionId: string) => `countersign:chat:${sessionId}`;

/**
 * The run id of turn `turn` of a session: unique (a chat remembered again after its head expired starts at turn 1
 * without meeting its old runs); a resent turn cannot start a second run, the head's compare-and-set refuses it.
 */
function turnRunId(sessionId: string, turn: number): string {
  return `${sessionId}.${turn}.${randomUUID().slice(0, 8)}`;
}

/** The turn a run id of `turnRunId` names. */
const turnOf = (runId: string) => Number(runId.split('.').at(-2));

/** Who is asking: the app's `identify`, or a 401. */
export async function identified(settings: ChatSettings, request: Request): Promise<string> {
  const user = await settings.identify(request);
  if (typeof user !== 'string' || user === '')
    throw new HttpProblem(
      problem(401, 'unauthenticated', 'Sign in first: this chat answers only requests its identify option recognises.'),
    );
  return user;
}

/** `user`'s chat `chatId` as it stands. */
export async function openChat(runtime: Runtime, user: string, chatId: string): Promise<ChatSession> {
  const sessionId = chatSessionId(user, chatId);
  const runId = await runtime.once.get(headKey(sessionId));
  if (runId === undefined) return { user, sessionId };
  try {
    return { user, sessionId, head: runId, run: await runtime.get(runId) };
  } catch (error) {
    if (error instanceof RunNotFoundError) return { user, sessionId, head: runId };
    throw error;
  }
}

/**
 * Claims the chat's next turn: the run id it will have, made the chat's latest with a compare-and-set on the chat's
 * head, so two turns sent at once cannot both start (the second gets a 409).
 */
export async function claimTurn(runtime: Runtime, chat: ChatSession, settings: ChatSettings): Promise<string> {
  // A turn claimed whose start was never recorded is taken again under its id (a start is idempotent by run id).
  if (chat.head !== undefined && chat.run === undefined) return chat.head;
  const previous = chat.head;
  const turn = previous === undefined ? 1 : turnOf(previous) + 1;
  const runId = turnRunId(chat.sessionId, turn);
  const key = headKey(chat.sessionId);
  const claimed =
    previous === undefined
      ? (await runtime.once.putIfAbsent(key, runId, settings.chatTtlMs)) === undefined
      : await runtime.once.replace(key, previous, runId, settings.chatTtlMs);
  if (!claimed)
    throw new HttpProblem(
      problem(
        409,
        'chat_busy',
        'Another message of this chat was sent at the same time; reload the chat and send again.',
      ),
    );
  return runId;
}
