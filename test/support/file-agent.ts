// The agent the chat channels' tests ask about: `delete_file` on the path the user sent, with an API token among its
// arguments (the display copy redacts it), waiting for a person.
import { z } from 'zod';
import { createAgent, defineTool } from 'countersign';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';

export const SECRET_VALUE = 'sk-live-abc123SECRETvalue';

export interface FileAgentOptions {
  readonly approvers?: string[];
  readonly connector?: string;
  /** Holds the tool until it settles. */
  readonly gate?: Promise<void>;
  readonly approvalTtlMs?: number;
}

/** The `files` agent and the paths its tool ran with, in order. */
export function fileAgent(options: FileAgentOptions = {}) {
  const executed: string[] = [];
  const model = createScriptedModel((request) => {
    const last = request.messages.at(-1)!;
    if (last.role === 'tool') return textTurn(`done: ${last.content}`);
    return toolCallTurn([{ name: 'delete_file', args: { path: last.content, apiToken: SECRET_VALUE } }]);
  });
  const tool = defineTool({
    name: 'delete_file',
    description: 'Delete a file',
    input: z.object({ path: z.string().min(1), apiToken: z.string() }),
    needsApproval: true,
    ...(options.approvers ? { approvers: options.approvers } : {}),
    ...(options.connector ? { connector: options.connector } : {}),
    approvalPrompt: (input) => `Delete ${input.path}?`,
    execute: async (input) => {
      await options.gate;
      executed.push(input.path);
      return { deleted: input.path };
    },
  });
  const agent = createAgent({
    name: 'files',
    model,
    tools: [tool],
    ...(options.approvalTtlMs ? { approvalTtlMs: options.approvalTtlMs } : {}),
  });
  return { agent, executed };
}
