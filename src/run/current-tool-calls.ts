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

/**
 * The call `toolCallId` as it was asked for, in any turn: one added to the current turn from outside the model (kept
 * on its record), else the assistant message that made it. Undefined when the run holds no such call.
 */
export function callOfId(snapshot: AgentSnapshot, toolCallId: string | undefined): ToolCall | undefined {
  if (toolCallId === undefined) return undefined;
  const added = addedToolCalls(snapshot.toolCalls).find((call) => call.id === toolCallId);
  if (added !== undefined) return added;
  for (const message of snapshot.messages) {
    const call = message.toolCalls?.find((item) => item.id === toolCallId);
    if (call !== undefined) return call;
  }
  return undefined;
}
