// An upstream server's own questions answered anywhere: a real MCP server (the SDK's, over stdio) asks countersign's
// client mid-call, with a form or a URL to open, and each question becomes a countersign request (a typed question,
// or an approval that shows the URL) routed through the runtime's rules and audit; the person's answer goes back to
// the server, a denial as decline. The same through the gateway: a client's call whose upstream asks is answered
// once a person answers the upstream's question. Without `elicitations` the client declares none and nobody is asked.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from 'countersign';
import { connectMcpServer, createMcpGateway } from 'countersign/mcp';
import { builtScript } from '../../support/built.js';
import { clientOf, closeGateways, nextPending, textOf } from '../../support/mcp-gateway-kit.js';

const askerScript = await builtScript('test/fixtures/mcp-asking-server.ts');
const asker = { command: process.execPath, args: [askerScript] };

const closing: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(closing.splice(0).map((connection) => connection.close()));
  await closeGateways();
});

async function askingConnection(runtime: Runtime, options: { approvers?: string[] } = {}) {
  const connection = await connectMcpServer({ name: 'asker', ...asker, elicitations: { runtime, ...options } });
  closing.push(connection);
  return connection;
}

describe('connectMcpServer with elicitations: the server asks, a person answers', () => {
  it('turns a form into a typed question asked by mcp-server:<name>, and sends the answer back', async () => {
    const runtime = createRuntime({});
    const connection = await askingConnection(runtime);
    const call = connection.callTool('confirm_delete', { path: '/srv/a' });
    const { runId, requestedBy, request } = await nextPending(runtime);
    expect(requestedBy).toBe('mcp-server:asker');
    expect(request).toMatchObject({
      toolName: 'elicitation.asker',
      description: 'MCP server asker asks: Really delete /srv/a?',
      args: { server: 'asker' },
    });
    expect(request.question?.fields).toEqual([
      { name: 'confirm', title: 'Delete it', required: true, kind: 'boolean' },
      { name: 'keep', title: 'Keep a copy in', required: true, kind: 'choice', options: ['trash', 'nowhere'] },
      { name: 'note', title: 'Note', required: false, kind: 'text', maxLength: 100 },
    ]);
    await runtime.respond(runId, {
      approvalId: request.approvalId,
      approved: true,
      approvedBy: 'alice',
      answer: { confirm: true, keep: 'trash' },
    });
    expect(textOf(await call)).toBe('accept {"confirm":true,"keep":"trash"}');
    const run = await runtime.get(runId);
    expect(run.audit.find((entry) => entry.approvalId === request.approvalId)).toMatchObject({
      decision: 'approved',
      by: 'alice',
      source: 'human',
    });
  });

  it("a person's denial is the server's decline; a rule that denies answers cancel without asking anyone", async () => {
    const runtime = createRuntime({});
    const connection = await askingConnection(runtime);
    const call = connection.callTool('confirm_delete', { path: '/srv/b' });
    const { runId, request } = await nextPending(runtime);
    await runtime.respond(runId, { approvalId: request.approvalId, approved: false, approvedBy: 'bob', reason: 'no' });
    expect(textOf(await call)).toBe('decline {}');

    const strict = createRuntime({
      requests: { policy: { rules: [{ tool: 'elicitation.*', action: 'deny', reason: 'not here' }] } },
    });
    const guarded = await askingConnection(strict);
    expect(textOf(await guarded.callTool('confirm_delete', { path: '/srv/c' }))).toBe('cancel {}');
    expect((await strict.pending()).items).toEqual([]);
  });

  it('shows a URL the server asks a person to open, and accepts only once a person approves', async () => {
    const runtime = createRuntime({});
    const connection = await askingConnection(runtime, { approvers: ['carol'] });
    const call = connection.callTool('connect_account', {});
    const { runId, request } = await nextPending(runtime);
    expect(request).toMatchObject({
      toolName: 'elicitation.asker',
      args: { server: 'asker', url: 'https://accounts.example.com/connect?state=abc' },
      approvers: ['carol'],
    });
    await expect(
      runtime.respond(runId, { approvalId: request.approvalId, approved: true, approvedBy: 'mallory' }),
    ).rejects.toThrow();
    await runtime.respond(runId, { approvalId: request.approvalId, approved: true, approvedBy: 'carol' });
    expect(textOf(await call)).toBe('accept');
  });

  it('without elicitations the client declares none, and the server cannot ask', async () => {
    const connection = await connectMcpServer({ name: 'asker', ...asker });
    closing.push(connection);
    const result = await connection.callTool('confirm_delete', { path: '/srv/d' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/does not support form elicitation/);
  });
});

describe('createMcpGateway: an upstream question through the gateway', () => {
  it("is asked in the gateway's runtime, and the client's call returns once a person answered it", async () => {
    const gateway = await createMcpGateway({
      name: 'asker',
      ...asker,
      policy: { rules: [{ tool: 'confirm_delete', action: 'allow' }] },
      waitMs: 60_000,
    });
    closing.push(gateway);
    const client = await clientOf(gateway);
    const answer = client.callTool({
      name: 'confirm_delete',
      arguments: { path: '/srv/e' },
    }) as Promise<CallToolResult>;
    const { runId, request, requestedBy } = await nextPending(gateway.runtime);
    expect(requestedBy).toBe('mcp-server:asker');
    expect(request.toolName).toBe('elicitation.asker');
    await gateway.runtime.respond(runId, {
      approvalId: request.approvalId,
      approved: true,
      approvedBy: 'dana',
      answer: { confirm: false, keep: 'nowhere', note: 'not today' },
    });
    expect(textOf(await answer)).toBe('accept {"confirm":false,"keep":"nowhere","note":"not today"}');
  });
});
