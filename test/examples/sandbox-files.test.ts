import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAgent, withApprovalResponse } from 'countersign';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';
import { sandboxFileTools } from '../../examples/sandbox-files.js';

describe("npm start's sandboxed file tools (examples/sandbox-files.ts)", () => {
  let parent: string;
  let root: string;
  beforeEach(async () => {
    parent = await mkdtemp(join(tmpdir(), 'countersign-sandbox-test-'));
    root = await mkdtemp(join(parent, 'sandbox-'));
    await writeFile(join(root, 'todo.md'), 'inside');
    await writeFile(join(parent, 'secret.txt'), 'outside');
  });
  afterEach(() => rm(parent, { recursive: true, force: true }));

  const run = (calls: { name: string; args: unknown }[]) =>
    createAgent({
      name: 'files',
      model: createScriptedModel([toolCallTurn(calls), textTurn('done')]),
      tools: sandboxFileTools(root),
    });

  it('reads and lists without asking; paths that leave the sandbox are refused to the model', async () => {
    const agent = run([
      { name: 'list_files', args: {} },
      { name: 'read_file', args: { path: 'todo.md' } },
      { name: 'read_file', args: { path: '../secret.txt' } },
      { name: 'read_file', args: { path: '/../secret.txt' } },
    ]);
    const done = await agent.execute({ input: 'look' });
    expect(done.status).toBe('completed');
    const results = done.messages.filter((message) => message.role === 'tool').map((message) => message.content);
    expect(results[0]).toContain('"entries":["todo.md"]');
    expect(results[1]).toContain('"text":"inside"');
    for (const refused of results.slice(2)) {
      expect(refused).toContain('outside the sandbox');
      expect(refused).not.toContain('"text":"outside"');
    }
  });

  it('asks before writing or deleting, and writes only once approved', async () => {
    const agent = run([
      { name: 'write_file', args: { path: 'notes/a.md', text: 'hello' } },
      { name: 'delete_file', args: { path: 'todo.md' } },
    ]);
    const paused = await agent.execute({ input: 'change things' });
    expect(paused.pendingApprovals.map((request) => request.description)).toEqual([
      'Write 5 characters to notes/a.md?',
      'Delete todo.md?',
    ]);
    await expect(readFile(join(root, 'notes/a.md'), 'utf8')).rejects.toThrow();
    const [write, remove] = paused.pendingApprovals;
    const decided = withApprovalResponse(
      withApprovalResponse(paused, { approvalId: write!.approvalId, approved: true, approvedBy: 'alice' }, { agent }),
      { approvalId: remove!.approvalId, approved: false, approvedBy: 'alice' },
      { agent },
    );
    expect((await agent.execute(decided)).status).toBe('completed');
    expect(await readFile(join(root, 'notes/a.md'), 'utf8')).toBe('hello');
    expect(await readFile(join(root, 'todo.md'), 'utf8')).toBe('inside');
  });
});
