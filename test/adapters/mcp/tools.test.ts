// An MCP server's tools as countersign tools: approval per server in every form, toolNames and the subset check,
// arguments checked against the server's schema before anyone is asked, annotations (shown; applied only when
// trusted), results, and list_changed. One SDK client to the stdio fixture serves the suites that only read tools.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ConfigError, type Message, type PolicyConfig, presets, withApprovalResponse } from 'countersign';
import { connectMcpServer, type McpConnection, type McpToolOptions, mcpTools } from 'countersign/mcp';
import { createScriptedModel, textTurn, toolCallTurn } from 'countersign/testing';
import { PIXEL_PNG } from '../../fixtures/pixel.js';
import { callLog, stdioFixture } from '../../support/mcp-fixture.js';
import { testAgent } from '../../support/test-kit.js';

const log = callLog();
let client: Client;
beforeAll(async () => {
  client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(new StdioClientTransport(stdioFixture(log.file)));
});
afterAll(() => client.close());

const fixtureTools = (options: Partial<McpToolOptions> = {}) => mcpTools(client, { name: 'fixture', ...options });

/** The first stop of a run in which the model calls `tool` with `args` once. */
async function callOnce(connection: McpConnection, tool: string, args: Record<string, unknown>, policy?: PolicyConfig) {
  const agent = testAgent({
    model: createScriptedModel([toolCallTurn(tool, args), textTurn('done')]),
    tools: [connection],
    ...(policy ? { policy } : {}),
  });
  return { agent, snapshot: await agent.execute({ input: 'go' }) };
}

const toolMessages = (messages: readonly Message[]) => messages.filter((message) => message.role === 'tool');

describe('requireApproval, per server', () => {
  const stops = async (
    options: Partial<McpToolOptions>,
    calls: [string, Record<string, unknown>][],
    policy?: PolicyConfig,
  ) => {
    const connection = await fixtureTools(options);
    return Promise.all(
      calls.map(async ([tool, args]) => (await callOnce(connection, tool, args, policy)).snapshot.status),
    );
  };
  const read: [string, Record<string, unknown>] = ['read_file', { path: '/a' }];
  const remove: [string, Record<string, unknown>] = ['delete_file', { path: '/a' }];
  const flag: [string, Record<string, unknown>] = ['set_flag', { flag: 'beta', on: true }];

  it('left out: the agent policy decides (asks by default, runs under default allow)', async () => {
    expect(await stops({}, [read, remove])).toEqual(['awaitingApproval', 'awaitingApproval']);
    expect(await stops({}, [remove], { default: 'allow' })).toEqual(['completed']);
  });

  it('true asks for every tool, false for none', async () => {
    expect(await stops({ requireApproval: true }, [read, remove])).toEqual(['awaitingApproval', 'awaitingApproval']);
    expect(await stops({ requireApproval: false }, [read, remove])).toEqual(['completed', 'completed']);
  });

  it('a list: the listed tools ask, the others run without asking, unless a policy rule says otherwise', async () => {
    expect(await stops({ requireApproval: ['delete_file'] }, [read, remove, flag])).toEqual([
      'completed',
      'awaitingApproval',
      'completed',
    ]);
    expect(
      await stops({ requireApproval: ['delete_file'] }, [flag], {
        rules: [{ connector: 'fixture', tool: 'set_*', action: 'ask' }],
      }),
    ).toEqual(['awaitingApproval']);
  });

  it('{ always, never }: those ask / run, the policy decides for the rest', async () => {
    const options = { requireApproval: { always: ['delete_file'], never: ['read_file'] } };
    expect(await stops(options, [read, remove, flag])).toEqual(['completed', 'awaitingApproval', 'awaitingApproval']);
    expect(await stops(options, [flag], { default: 'allow' })).toEqual(['completed']);
  });

  it('a function of the server listing and the arguments, with a reason the approver reads', async () => {
    const connection = await fixtureTools({
      requireApproval: (tool, args) =>
        tool.annotations?.destructiveHint === true
          ? { required: true, reason: `${tool.name} destroys ${String(args['path'])}` }
          : false,
    });
    expect((await callOnce(connection, ...read)).snapshot.status).toBe('completed');
    const { snapshot } = await callOnce(connection, ...remove);
    expect(snapshot.pendingApprovals[0]).toMatchObject({ toolName: 'delete_file', reason: 'delete_file destroys /a' });
  });
});

describe('toolNames and the subset check', () => {
  it('offers only the named tools', async () => {
    const connection = await fixtureTools({ toolNames: ['read_file', 'delete_file'] });
    expect(connection.tools.map((tool) => tool.name)).toEqual(['read_file', 'delete_file']);
    expect(connection.serverTools.map((tool) => tool.name)).toEqual(['read_file', 'delete_file']);
  });

  it.each([
    [
      { toolNames: ['read_file'], requireApproval: ['delete_file'] },
      /requireApproval names delete_file, which is not in toolNames/,
    ],
    [
      { requireApproval: ['drop_database'] },
      /requireApproval names drop_database, which the server does not offer \(it offers: read_file, /,
    ],
    [
      { requireApproval: { always: ['read_file'], never: ['nope'] } },
      /requireApproval names nope, which the server does not offer/,
    ],
    [
      { requireApproval: { always: ['read_file'], never: ['read_file'] } },
      /lists read_file under both always and never/,
    ],
    [{ toolNames: ['read_flie'] }, /toolNames names read_flie, which the server does not offer/],
  ])('%j is a ConfigError naming the tool', async (options, message) => {
    const failure = await fixtureTools(options as Partial<McpToolOptions>).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ConfigError);
    expect((failure as Error).message).toMatch(message);
  });

  it('unknown options are refused by name', async () => {
    await expect(fixtureTools({ requireAproval: true } as never)).rejects.toThrow(
      /mcpTools: options has an unknown option requireAproval/,
    );
  });
});

describe('names, schemas and annotations', () => {
  it('prefix: true names tools <server>__<tool> (no "." that OpenAI and Anthropic refuse), a string is used as it is', async () => {
    const prefixed = await fixtureTools({ prefix: true, requireApproval: false });
    expect(prefixed.tools.map((tool) => tool.name)).toContain('fixture__read_file');
    const { snapshot } = await callOnce(prefixed, 'fixture__read_file', { path: '/p' });
    expect(toolMessages(snapshot.messages)[0]!.content).toBe('contents of /p');
    expect((await fixtureTools({ prefix: 'fx_' })).tools.map((tool) => tool.name)).toContain('fx_read_file');
  });

  it("the model is shown the server's own input schema and description", async () => {
    const connection = await fixtureTools();
    const tool = connection.tools.find((item) => item.name === 'delete_file')!;
    const listing = connection.serverTools.find((item) => item.name === 'delete_file')!;
    expect(tool.spec).toEqual({ name: 'delete_file', description: 'Delete a file', parameters: listing.inputSchema });
    expect(Object.isFrozen(tool.spec.parameters)).toBe(true);
  });

  it('arguments are checked against the server schema before anyone is asked; beyond zod, with the SDK validator', async () => {
    const connection = await fixtureTools({ requireApproval: true });
    const before = log.calls().length;
    const empty = (await callOnce(connection, 'delete_file', { path: '' })).snapshot;
    expect(empty.pendingApprovals).toEqual([]);
    expect(toolMessages(empty.messages)[0]!.content).toMatch(/Invalid arguments for delete_file/);
    const large = (await callOnce(connection, 'order', { size: 'large' })).snapshot;
    expect(toolMessages(large.messages)[0]!.content).toMatch(/Invalid arguments for order: .*slices/);
    expect((await callOnce(connection, 'order', { size: 'large', slices: 8 })).snapshot.status).toBe(
      'awaitingApproval',
    );
    expect(log.calls().length).toBe(before);
  });

  it('the request carries the annotations and the connector; untrusted hints change nothing', async () => {
    const connection = await fixtureTools();
    const request = (await callOnce(connection, 'delete_file', { path: '/a' })).snapshot.pendingApprovals[0]!;
    expect(request).toMatchObject({
      connector: 'fixture',
      annotations: { title: 'Delete a file', destructiveHint: true, readOnlyHint: false },
      warnings: [],
    });
    const readOnly = { rules: presets.readOnlyAutoApprove() };
    expect((await callOnce(connection, 'screenshot', {}, readOnly)).snapshot.status).toBe('awaitingApproval');
    expect(connection.tools.find((tool) => tool.name === 'set_flag')!.idempotent).toBeUndefined();
  });

  it('with trustAnnotations, readOnlyHint lets the read-only preset allow a tool, and idempotentHint marks it idempotent', async () => {
    const connection = await fixtureTools({ trustAnnotations: true });
    const { snapshot } = await callOnce(connection, 'screenshot', {}, { rules: presets.readOnlyAutoApprove() });
    expect(snapshot.status).toBe('completed');
    expect(snapshot.audit[0]).toMatchObject({ source: 'rule', ruleId: 'preset:read-only:declared' });
    expect(connection.tools.find((tool) => tool.name === 'set_flag')!.idempotent).toBe(true);
    expect(connection.tools.find((tool) => tool.name === 'delete_file')!.readOnly).toBeUndefined();
  });
});

describe('results', () => {
  const run = async (tool: string, args: Record<string, unknown> = {}) =>
    toolMessages((await callOnce(await fixtureTools({ requireApproval: false }), tool, args)).snapshot.messages)[0]!;

  it('an image is a file part beside the text', async () => {
    const message = await run('screenshot');
    expect(message.content).toBe('the screen');
    expect(message.parts).toContainEqual({ type: 'file', mediaType: 'image/png', data: PIXEL_PNG });
  });

  it('structuredContent is the structured output, its text what the model reads', async () => {
    const message = await run('weather', { city: 'Oslo' });
    expect(message.content).toBe('{"city":"Oslo","tempC":21}');
    expect(message.parts).toContainEqual(
      expect.objectContaining({ type: 'tool-result', outcome: 'ok', output: { city: 'Oslo', tempC: 21 } }),
    );
  });

  it('embedded text resources are text, resource links one line each, binary resources and audio files', async () => {
    const message = await run('docs');
    expect(message.content).toBe('# Notes\nResource big.csv: file:///big.csv (text/csv)');
    expect(message.parts!.filter((part) => part.type === 'file')).toEqual([
      { type: 'file', mediaType: 'image/png', data: PIXEL_PNG, filename: 'logo.png' },
      { type: 'file', mediaType: 'audio/wav', data: 'UklGRg==' },
    ]);
  });

  it('isError is an error result the model reads', async () => {
    const message = await run('fail');
    expect(message.content).toMatch(/fail failed: the disk is full/);
  });
});

describe('mcpTools: a client the app owns', () => {
  it('reports the client closing as disconnected; calls then fail at once, and the app keeps its own onclose', async () => {
    const own = new Client({ name: 'app', version: '1.0.0' });
    await own.connect(new StdioClientTransport(stdioFixture(callLog().file)));
    const closedByApp = vi.fn();
    own.onclose = closedByApp;
    const connection = await mcpTools(own, { name: 'mine', requireApproval: false });
    expect(connection.tools[0]!.connectorStatus!()).toBe('connected');
    const statuses: string[] = [];
    connection.on('status', (status) => statuses.push(status));
    await own.close();
    expect([statuses, connection.status, closedByApp.mock.calls.length]).toEqual([['disconnected'], 'disconnected', 1]);
    await expect(connection.callTool('read_file', { path: '/a' })).rejects.toThrow(
      /connector mine is disconnected: its client is closed; the call was not sent/,
    );
  });

  it('refuses a client that is not connected', async () => {
    await expect(mcpTools(new Client({ name: 'app', version: '1.0.0' }), { name: 'mine' })).rejects.toThrow(
      /mcpTools: the client is not connected/,
    );
  });
});

describe('list_changed', () => {
  const open: McpConnection[] = [];
  afterEach(async () => Promise.all(open.splice(0).map((connection) => connection.close())));

  it('a tool the server adds is offered to the model at the next turn; one it removes answers a clear error to the run paused on it', async () => {
    const own = callLog();
    const connection = await connectMcpServer({
      name: 'fixture',
      ...stdioFixture(own.file),
      requireApproval: ['delete_file'],
    });
    open.push(connection);
    const offered: string[][] = [];
    const model = createScriptedModel([
      (request) => {
        offered.push(request.tools.map((tool) => tool.name));
        return toolCallTurn('fresh', { q: 'hi' });
      },
      textTurn('done'),
    ]);
    const agent = testAgent({ model, tools: [connection], policy: { rules: [{ tool: 'fresh', action: 'ask' }] } });
    const changed = new Promise((resolve) => connection.on('tools', resolve));
    await connection.callTool('add_tool', { name: 'fresh' });
    await changed;
    const paused = await agent.execute({ input: 'go' });
    expect(offered[0]).toContain('fresh');
    expect(paused.pendingApprovals[0]!.toolName).toBe('fresh');

    const removed = new Promise((resolve) => connection.on('tools', resolve));
    await connection.callTool('remove_tool', { name: 'fresh' });
    await removed;
    expect(connection.tools.map((tool) => tool.name)).not.toContain('fresh');
    const done = await agent.execute(
      withApprovalResponse(paused, { approvalId: paused.pendingApprovals[0]!.approvalId, approved: true }, { agent }),
    );
    expect(done.status).toBe('completed');
    expect(toolMessages(done.messages)[0]!.content).toMatch(
      /fresh failed: MCP server fixture no longer offers tool fresh/,
    );
    expect(own.calls('fresh')).toEqual([]);
  });

  it('cancelling the run cancels the call on the server', async () => {
    const own = callLog();
    const connection = await connectMcpServer({ name: 'fixture', ...stdioFixture(own.file), requireApproval: false });
    open.push(connection);
    const agent = testAgent({
      model: createScriptedModel([toolCallTurn('slow', { ms: 60_000 }), textTurn('done')]),
      tools: [connection],
    });
    const controller = new AbortController();
    const running = agent.execute({ input: 'go' }, { signal: controller.signal });
    await vi.waitFor(() => expect(own.calls('slow')).toHaveLength(1), { timeout: 30_000, interval: 20 });
    controller.abort(new Error('stop'));
    expect((await running).status).toBe('cancelled');
    await vi.waitFor(() => expect(own.calls('slow')).toContainEqual({ tool: 'slow', cancelled: true }), {
      timeout: 30_000,
      interval: 20,
    });
  });
});
