// The shared history (countersign's Message[]) in each peer's own message format. Untimed: the
// harness converts once per history length, as an app would already hold its history in that format.
import type { Message } from 'countersign';

/** The name of the tool each tool result answers, found from the assistant's calls before it. */
export function toolNames(messages: readonly Message[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const message of messages) for (const call of message.toolCalls ?? []) names.set(call.id, call.name);
  return names;
}
