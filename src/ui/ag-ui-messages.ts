import { presentArgs, type AgentSnapshot, type PresentOptions } from '../index.js';
import { answerPartId, firstOwnMessage } from './run-parts.js';

/**
 * The conversation of `run` as AG-UI messages, for a `MESSAGES_SNAPSHOT` that replaces what a reconnecting client
 * holds (so nothing it saw before the drop appears twice). The run's own answers keep the ids their live events
 * had; tool calls show their arguments as the person sees them.
 */
export function agUiMessages(run: AgentSnapshot, display: PresentOptions | undefined): Record<string, unknown>[] {
  const first = firstOwnMessage(run);
  const pending = new Map(run.pendingApprovals.map((request) => [request.toolCallId, request.args]));
  const conversation = run.sessionId ?? run.runId;
  const messages: Record<string, unknown>[] = [];
  let turn = 0;
  run.messages.forEach((message, index) => {
    if (message.role === 'user')
      messages.push({ id: `${conversation}:m${index}`, role: 'user', content: message.content });
    if (message.role === 'tool' && message.toolCallId !== undefined)
      messages.push({
        id: `${message.toolCallId}:result`,
        role: 'tool',
        toolCallId: message.toolCallId,
        content: message.content,
      });
    if (message.role !== 'assistant') return;
    const id = index >= first ? answerPartId(run.runId, 'text', ++turn) : `${conversation}:m${index}`;
    const toolCalls = (message.toolCalls ?? []).map((call) => ({
      id: call.id,
      type: 'function',
      function: {
        name: call.name,
        arguments: JSON.stringify(
          pending.has(call.id) ? pending.get(call.id) : presentArgs(call.args, display).display,
        ),
      },
    }));
    messages.push({ id, role: 'assistant', content: message.content, ...(toolCalls.length > 0 ? { toolCalls } : {}) });
  });
  return messages;
}
