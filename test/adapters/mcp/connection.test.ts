// The connection to an MCP server: real fixture servers made with the official SDK, over stdio (spawned by the
// connection) and over HTTP on loopback (a child process the test kills and starts again).
import { afterEach, describe, expect, it } from 'vitest';
import { type ConnectorStatus, ConfigError, ConnectorUnavailableError } from 'countersign';
import { connectMcpServer, type McpConnection } from 'countersign/mcp';
import { callLog, httpFixture, statusReached, stdioFixture } from '../../support/mcp-fixture.js';

const open: McpConnection[] = [];
const servers: { kill(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((connection) => connection.close()));
  await Promise.all(servers.splice(0).map((server) => server.kill()));
});

async function connect(options: Parameters<typeof connectMcpServer>[0]): Promise<McpConnection> {
  const connection = await connectMcpServer(options);
  open.push(connection);
  return connection;
}

const fast = { callTimeoutMs: 300, reconnect: { initialDelayMs: 10, maxDelayMs: 50 } };

describe('connectMcpServer over stdio', () => {
  it('starts the server, lists its tools, calls one and answers its raw result; close ends it', async () => {
    const log = callLog();
    const connection = await connect({ name: 'fixture', ...stdioFixture(log.file) });
    expect(connection.status).toBe('connected');
    expect(connection.serverTools.map((tool) => tool.name)).toContain('delete_file');
    expect(await connection.callTool('read_file', { path: '/a' })).toEqual({
      content: [{ type: 'text', text: 'contents of /a' }],
    });
    expect(log.calls()).toEqual([{ tool: 'read_file', args: { path: '/a' } }]);
    await connection.close();
    expect(connection.status).toBe('disconnected');
  });

  it('starts the server again when its process dies, and reports each status on the way', async () => {
    const log = callLog();
    const connection = await connect({ name: 'fixture', ...stdioFixture(log.file), ...fast });
    const seen: ConnectorStatus[] = [];
    connection.on('status', (status) => seen.push(status));
    process.kill(await pidOf(connection), 'SIGKILL');
    await statusReached(connection, 'disconnected');
    await statusReached(connection, 'connected');
    expect(seen).toEqual(['disconnected', 'connecting', 'connected']);
    expect((await connection.callTool('read_file', { path: '/b' })).content).toEqual([
      { type: 'text', text: 'contents of /b' },
    ]);
  });

  it('a first connection that fails is a ConnectorUnavailableError naming the server', async () => {
    const failed = connectMcpServer({
      name: 'nowhere',
      command: process.execPath,
      args: ['-e', 'process.exit(3)'],
      ...fast,
    });
    await expect(failed).rejects.toBeInstanceOf(ConnectorUnavailableError);
    await expect(failed).rejects.toThrow(/could not connect to MCP server nowhere/);
  });
});

describe('connectMcpServer over HTTP', () => {
  it('loses the server, fails a call after callTimeoutMs without sending it, and reconnects once the server is back', async () => {
    const log = callLog();
    const server = await httpFixture(log.file);
    servers.push(server);
    const connection = await connect({
      name: 'remote',
      url: server.url,
      headers: { authorization: 'Bearer t0ken' },
      ...fast,
    });
    expect((await connection.callTool('read_file', { path: '/a' })).content).toEqual([
      { type: 'text', text: 'contents of /a' },
    ]);
    expect(log.calls().find((entry) => entry['authorization'])).toEqual({
      method: 'POST',
      authorization: 'Bearer t0ken',
    });

    await server.kill();
    await statusReached(connection, 'disconnected');
    const failure = await connection.callTool('delete_file', { path: '/a' }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ConnectorUnavailableError);
    expect(failure).toMatchObject({
      connector: 'remote',
      message: expect.stringMatching(/^connector remote is disconnected: it did not come back within 300 ms/),
    });

    await server.start();
    await statusReached(connection, 'connected');
    expect((await connection.callTool('read_file', { path: '/c' })).content).toEqual([
      { type: 'text', text: 'contents of /c' },
    ]);
    expect(log.calls().flatMap((call) => (call['tool'] ? [call['tool']] : []))).toEqual(['read_file', 'read_file']);
  });

  it('notices by its heartbeat that a server over HTTP with no open stream is gone, before any call, and reconnects when it is back', async () => {
    const server = await httpFixture(callLog().file, '--http-no-stream');
    servers.push(server);
    const connection = await connect({
      name: 'remote',
      url: server.url,
      reconnect: { initialDelayMs: 10, maxDelayMs: 50, heartbeatMs: 50 },
    });
    await server.kill();
    await statusReached(connection, 'disconnected');
    await server.start();
    await statusReached(connection, 'connected');
    expect((await connection.callTool('read_file', { path: '/h' })).content).toEqual([
      { type: 'text', text: 'contents of /h' },
    ]);
  });

  it('a call made while the server is away waits for it and goes through once it is back', async () => {
    const log = callLog();
    const server = await httpFixture(log.file);
    servers.push(server);
    const connection = await connect({
      name: 'remote',
      url: server.url,
      callTimeoutMs: 10_000,
      reconnect: { initialDelayMs: 10, maxDelayMs: 50 },
    });
    await server.kill();
    await statusReached(connection, 'disconnected');
    const call = connection.callTool('read_file', { path: '/later' });
    await server.start();
    expect((await call).content).toEqual([{ type: 'text', text: 'contents of /later' }]);
  });

  it('gives up after reconnect.maxAttempts: failed, and calls fail at once', async () => {
    const server = await httpFixture(callLog().file);
    servers.push(server);
    const connection = await connect({
      name: 'remote',
      url: server.url,
      callTimeoutMs: 10_000,
      reconnect: { initialDelayMs: 1, maxDelayMs: 5, maxAttempts: 2 },
    });
    await server.kill();
    await statusReached(connection, 'failed');
    await expect(connection.callTool('read_file', { path: '/a' })).rejects.toMatchObject({
      status: 'failed',
      message: expect.stringMatching(/reconnecting gave up/),
    });
  });

  it('falls back to the old HTTP+SSE transport for a server that has only that', async () => {
    const log = callLog();
    const server = await httpFixture(log.file, '--sse');
    servers.push(server);
    const connection = await connect({ name: 'legacy', url: server.url, headers: { authorization: 'Bearer old' } });
    expect((await connection.callTool('read_file', { path: '/old' })).content).toEqual([
      { type: 'text', text: 'contents of /old' },
    ]);
    expect(log.calls().filter((entry) => entry['authorization'])).toEqual([
      { method: 'POST', authorization: 'Bearer old' },
      { method: 'GET', authorization: 'Bearer old' },
    ]);
  });
});

describe('connectMcpServer options', () => {
  it.each([
    [{ name: 'x', command: 'node', colour: 'red' }, /unknown option colour/],
    [{ name: 'x' }, /either command .* or url/],
    [{ name: 'x', command: 'node', url: 'http://127.0.0.1:1/mcp' }, /either command .* or url/],
    [{ name: 'x', command: 'node', headers: { a: 'b' } }, /headers only goes with url/],
    [{ name: 'x', url: 'http://127.0.0.1:1/mcp', cwd: '/tmp' }, /cwd only goes with command/],
    [{ name: 'has space', command: 'node' }, /name must be 1 to 64 letters/],
    [{ name: 'x', command: 'node', reconnect: { tries: 3 } }, /reconnect has an unknown option tries/],
  ])('%j is refused by name', async (options, message) => {
    const failure = await connectMcpServer(options as never).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ConfigError);
    expect((failure as Error).message).toMatch(message);
  });
});

/** The pid of the server process the connection started (the fixture's pid tool). */
async function pidOf(connection: McpConnection): Promise<number> {
  const [block] = (await connection.callTool('pid')).content;
  return Number((block as { text: string }).text);
}
