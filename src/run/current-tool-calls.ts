import type { ToolCall } from './types.js';
import { addedToolCalls } from './tool-call-index.js';
import type { AgentSnapshot } from './agent-snapshot.js';

/**
 * The calls the current turn is about: the latest assistant turn's tool calls, then the calls added to the turn from
 * outside the model (`withApprovalRequest`), which stay on their records until the turn's results are written.
 */
export function currentToolCalls(snapshot: AgentSnapshot): readonly ToolCall[] {
  const added = addedToolCalls(snapshot.toolCalls);
  const fromModel = lastAssistantCalls(snapshot);
  return added.length === 0 ? fromModel : [...fromModel, ...added];
}

function lastAssistantCalls(snapshot: AgentSnapshot): readonly ToolCall[] {
  for (let index = snapshot.messages.length - 1; index >= 0; index--) {
    const message = snapshot.messages[index]!;
    if (message.role === 'assistant') return message.toolCalls ?? [];
  }
  return [];
}
