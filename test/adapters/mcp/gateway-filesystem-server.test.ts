// A real published MCP server behind the gateway: @modelcontextprotocol/server-filesystem from npm, over stdio, in a
// temporary folder. Reads pass on a rule; a write is held until a person approves it, then done once; a denied
// write leaves the disk as it was.
import { existsSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createMcpGateway } from 'countersign/mcp';
import { clientOf, closeGateways, nextPending, textOf } from '../../support/mcp-gateway-kit.js';

const serverScript = fileURLToPath(
  new URL('../../../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js', import.meta.url),
);

const closing: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(closing.splice(0).map((item) => item.close()));
  await closeGateways();
});

async function filesGateway() {
  const folder = realpathSync(mkdtempSync(join(tmpdir(), 'countersign-fs-')));
  writeFileSync(join(folder, 'notes.txt'), 'hello');
  const gateway = await createMcpGateway({
    name: 'files',
    command: process.execPath,
    args: [serverScript, folder],
    policy: {
      rules: [
        { tool: 'read_*', action: 'allow' },
        { tool: 'list_*', action: 'allow' },
      ],
    },
    waitMs: 60_000,
  });
  closing.push(gateway);
  const client = await clientOf(gateway);
  const call = (name: string, args: Record<string, unknown>) =>
    client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
  return { gateway, folder, call };
}

describe('createMcpGateway in front of @modelcontextprotocol/server-filesystem', () => {
  it('lets reads through on a rule, holds a write for a person, and writes once approved', async () => {
    const { gateway, folder, call } = await filesGateway();
    expect(textOf(await call('read_text_file', { path: join(folder, 'notes.txt') }))).toBe('hello');
    expect((await gateway.runtime.pending()).items).toEqual([]);

    const target = join(folder, 'plan.txt');
    const written = call('write_file', { path: target, content: 'ship it' });
    const { runId, request } = await nextPending(gateway.runtime);
    expect(request).toMatchObject({ toolName: 'write_file', args: { path: target, content: 'ship it' } });
    expect(existsSync(target)).toBe(false);
    await gateway.runtime.respond(runId, { approvalId: request.approvalId, approved: true, approvedBy: 'erin' });
    const result = await written;
    expect(result.isError).not.toBe(true);
    expect(textOf(result)).toContain('Successfully wrote');
    expect(readFileSync(target, 'utf8')).toBe('ship it');
    expect((await gateway.runtime.get(runId)).status).toBe('completed');
  });

  it('a denied write leaves the disk as it was, and the model reads who refused', async () => {
    const { gateway, folder, call } = await filesGateway();
    const target = join(folder, 'notes.txt');
    const written = call('write_file', { path: target, content: 'overwritten' });
    const { runId, request } = await nextPending(gateway.runtime);
    await gateway.runtime.respond(runId, {
      approvalId: request.approvalId,
      approved: false,
      approvedBy: 'erin',
      reason: 'keep the notes',
    });
    expect(textOf(await written)).toMatch(/^Denied by erin: keep the notes\./);
    expect(readFileSync(target, 'utf8')).toBe('hello');
  });
});
