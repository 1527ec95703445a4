// The example chat's agent: a scripted model (no key, no network) that deletes files when asked ("delete
// /tmp/report.txt"), answers in words otherwise, and a delete_file tool that needs a person's approval.
import { z } from 'zod';
import { createAgent, defineTool } from 'countersign';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';

/** The files the example "deleted", in order (the tool does nothing real). */
export const deletedFiles: string[] = [];

const deleteFile = defineTool({
  name: 'delete_file',
  description: 'Delete a file',
  input: z.object({ path: z.string().min(1), token: z.string().optional() }),
  needsApproval: true,
  approvalPrompt: ({ path }) => `Delete ${path}?`,
  execute: ({ path }) => {
    deletedFiles.push(path);
    return `deleted ${path}`;
  },
});

const model = createScriptedModel(
  ({ messages }) => {
    const last = messages.at(-1)!;
    if (last.role === 'tool')
      return textTurn(
        last.content.startsWith('deleted') ? `Done: ${last.content}.` : 'Understood, I left the file alone.',
      );
    const asked = /delete\s+(\S+)/i.exec(last.content);
    if (asked === null)
      return textTurn(`Ask me to delete a file, e.g. "delete /tmp/report.txt". You said: ${last.content}`);
    return toolCallTurn(
      'delete_file',
      { path: asked[1]!, token: 'sk-live-example-0000' },
      `I will delete ${asked[1]}.`,
    );
  },
  { stream: true },
);

/** The agent; `approvalTtlMs` gives each card an expiry to count down. */
export const chatAgent = createAgent({ name: 'files', model, tools: [deleteFile], approvalTtlMs: 10 * 60_000 });
