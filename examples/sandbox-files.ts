// Four file tools confined to one folder (the sandbox): reading and listing run
// freely, writing and deleting wait for a person. `npm start` gives its demo
// agent these, on a temporary folder.
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, resolve, sep } from 'node:path';
import { z } from 'zod';
import { defineTool, type AnyTool } from 'countersign';

/** `path` inside `root`, or an error the model reads: nothing outside the sandbox is reachable, `..` included. */
function inside(root: string, path: string): string {
  const full = resolve(root, path.replace(/^\/+/, ''));
  if (full !== root && !full.startsWith(root + sep))
    throw new Error(`${path} is outside the sandbox; use a path such as notes/todo.md`);
  return full;
}

/** read_file and list_files (no approval), write_file and delete_file (always asked), all within `root`. */
export function sandboxFileTools(root: string): AnyTool[] {
  const path = z.string().min(1).describe('A path inside the sandbox, e.g. notes/todo.md');
  return [
    defineTool({
      name: 'list_files',
      description: 'List the files and folders of the sandbox',
      input: z.object({}),
      needsApproval: false,
      readOnly: true,
      execute: async () => ({ entries: (await readdir(root, { recursive: true })).sort() }),
    }),
    defineTool({
      name: 'read_file',
      description: 'Read a file of the sandbox',
      input: z.object({ path }),
      needsApproval: false,
      readOnly: true,
      execute: async (input) => ({ path: input.path, text: await readFile(inside(root, input.path), 'utf8') }),
    }),
    defineTool({
      name: 'write_file',
      description: 'Write a file in the sandbox (replaces it if it exists)',
      input: z.object({ path, text: z.string() }),
      needsApproval: true,
      approvalPrompt: (input) => `Write ${input.text.length} characters to ${input.path}?`,
      execute: async (input) => {
        const full = inside(root, input.path);
        await mkdir(dirname(full), { recursive: true });
        await writeFile(full, input.text);
        return { written: input.path };
      },
    }),
    defineTool({
      name: 'delete_file',
      description: 'Delete a file of the sandbox',
      input: z.object({ path }),
      needsApproval: true,
      approvalPrompt: (input) => `Delete ${input.path}?`,
      execute: async (input) => {
        await rm(inside(root, input.path));
        return { deleted: input.path };
      },
    }),
  ];
}
