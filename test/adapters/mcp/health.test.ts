// Connector health in a run: an MCP server over HTTP on loopback, killed mid-run and started again. The request made
// while it is down carries a warning, the approved call fails after callTimeoutMs (never sent), a call cut off by the
// kill is put to a person again (or, for a tool trusted as idempotent, sent again once the server is back).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMemoryStore, createRuntime, type Message, withApprovalResponse } from 'countersign';
import { connectMcpServer, type McpConnection, type McpServerOptions } from 'countersign/mcp';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';
import { callLog, httpFixture, statusReached } from '../../support/mcp-fixture.js';
import { testAgent } from '../../support/test-kit.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function remoteServer(options: Partial<McpServerOptions> = {}) {
  const log = callLog();
  const server = await httpFixture(log.file);
  cleanups.push(() => server.kill());
  const connection: McpConnection = await connectMcpServer({
    name: 'remote',
    url: server.url,
    callTimeoutMs: 300,
    reconnect: { initialDelayMs: 10, maxDelayMs: 50 },
    ...options,
  } as McpServerOptions);
  cleanups.push(() => connection.close());
  return { log, server, connection };
}

const toolTexts = (messages: readonly Message[]) =>
  messages.filter((message) => message.role === 'tool').map((message) => message.content);

describe('an MCP server killed mid-run', () => {
  it('warns on the request, fails the approved call with the disconnected error after callTimeoutMs, and works again after a restart', async () => {
    const { log, server, connection } = await remoteServer({ requireApproval: ['delete_file'] });
    const script = (tool: string) => createScriptedModel([toolCallTurn(tool, { path: '/a' }), textTurn('done')]);
    const agent = testAgent({ model: script('delete_file'), tools: [connection] });
    const runtime = createRuntime({ agents: [agent], store: createMemoryStore() });

    await server.kill();
    await statusReached(connection, 'disconnected');
    expect(runtime.connectors()).toEqual([{ name: 'remote', status: 'disconnected', agents: [agent.name] }]);
    const paused = await agent.execute({ input: 'go' });
    const request = paused.pendingApprovals[0]!;
    expect(request.warnings).toEqual([
      expect.objectContaining({
        code: 'connector-disconnected',
        message: expect.stringMatching(/Connector remote is disconnected/),
      }),
    ]);

    const done = await agent.execute(
      withApprovalResponse(paused, { approvalId: request.approvalId, approved: true }, { agent }),
    );
    expect(done.status).toBe('completed');
    expect(toolTexts(done.messages)[0]).toMatch(
      /delete_file failed: connector remote is disconnected: it did not come back within 300 ms; the call was not sent/,
    );
    expect(log.calls('delete_file')).toEqual([]);

    await server.start();
    await statusReached(connection, 'connected');
    expect(runtime.connectors()[0]!.status).toBe('connected');
    const again = testAgent({ model: script('read_file'), tools: [connection] });
    expect(toolTexts((await again.execute({ input: 'go' })).messages)).toEqual(['contents of /a']);
  });

  it('a call cut off by the kill may have run: a person is asked again', async () => {
    const { log, server, connection } = await remoteServer({ requireApproval: false });
    const agent = testAgent({
      model: createScriptedModel([toolCallTurn('slow', { ms: 60_000 }), textTurn('done')]),
      tools: [connection],
    });
    const running = agent.execute({ input: 'go' });
    await vi.waitFor(() => expect(log.calls('slow')).toHaveLength(1), { timeout: 30_000, interval: 20 });
    await server.kill();
    const paused = await running;
    expect(paused.status).toBe('awaitingApproval');
    expect(paused.pendingApprovals[0]).toMatchObject({
      toolName: 'slow',
      outcomeUnknown: true,
      reason: expect.stringMatching(/connector remote disconnected during the call/),
    });
  });

  it('a tool trusted as idempotent is sent again once the server is back, within callTimeoutMs', async () => {
    const { log, server, connection } = await remoteServer({
      requireApproval: false,
      trustAnnotations: true,
      callTimeoutMs: 20_000,
    });
    const agent = testAgent({
      model: createScriptedModel([toolCallTurn('sync', { key: 'k1', ms: 60_000 }), textTurn('done')]),
      tools: [connection],
    });
    const running = agent.execute({ input: 'go' });
    await vi.waitFor(() => expect(log.calls('sync')).toHaveLength(1), { timeout: 30_000, interval: 20 });
    await server.kill();
    await statusReached(connection, 'disconnected');
    await server.start();
    const done = await running;
    expect(toolTexts(done.messages)).toEqual(['synced k1']);
    expect(log.calls('sync')).toHaveLength(2);
  });
});
