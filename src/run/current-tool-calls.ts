import type { ToolCall } from './types.js';
import type { AgentSnapshot } from './agent-snapshot.js';

/** The latest assistant turn's tool calls: the ones the current turn is about. */
export function currentToolCalls(snapshot: AgentSnapshot): readonly ToolCall[] {
  for (let index = snapshot.messages.length - 1; index >= 0; index--) {
    const message = snapshot.messages[index]!;
    if (message.role === 'assistant') return message.toolCalls ?? [];
  }
  return [];
}
