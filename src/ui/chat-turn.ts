import type { Runtime } from '../index.js';
import { HttpProblem, problem } from '../kit/index.js';
import type { ChatSettings } from './chat-options.js';
import { claimTurn, type ChatSession } from './chat-session.js';
import { atRest } from './watch-run.js';

/**
 * Starts the chat's next turn on the conversation so far (recorded only: the chat's stream carries it on); refused
 * while the last turn is under way or waits for answers.
 */
export async function startTurn(
  runtime: Runtime,
  settings: ChatSettings,
  chat: ChatSession,
  text: string,
): Promise<string> {
  const last = chat.run;
  if (last !== undefined && !atRest(last))
    throw new HttpProblem(
      problem(
        409,
        'chat_busy',
        'The chat is still answering; wait for it (reconnect with GET …/stream) and send again.',
      ),
    );
  if (last?.status === 'awaitingApproval')
    throw new HttpProblem(
      problem(
        409,
        'approval_pending',
        'The chat waits for answers to its approval cards; approve, deny or dismiss them first, then send the message.',
        { pending: last.pendingApprovals.map((request) => request.approvalId) },
      ),
    );
  const runId = await claimTurn(runtime, chat, settings);
  await runtime.start(
    settings.agent,
    {
      runId,
      input: [...(last?.messages ?? []), { role: 'user', content: text }],
      sessionId: chat.sessionId,
      requestedBy: chat.user,
    },
    { mode: 'record' },
  );
  return runId;
}
