// `countersign mcp-gateway` as a user runs it: the CLI spawned (over stdio as an MCP client config starts it, and
// with --port), in front of the fixture MCP server, decided over the approval app on the same port.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable, type Stream } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { freePort } from '../support/free-port.js';
import { callLog, fixtureCommand } from '../support/mcp-fixture.js';
import { builtScript } from '../support/built.js';
import { textOf } from '../support/mcp-gateway-kit.js';

const cliScript = await builtScript('src/cli/index.ts');
// The client configuration of the manual's MCP page, run as written.
const readme = readFileSync(fileURLToPath(new URL('../../docs/mcp.md', import.meta.url)), 'utf8');
const token = 'gateway-cli-token-0123456789';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function rulesFile(rules: unknown): string {
  const file = join(mkdtempSync(join(tmpdir(), 'countersign-rules-')), 'rules.json');
  writeFileSync(file, JSON.stringify(rules));
  return file;
}

/** The approval app's address, from what the gateway prints to stderr. */
function appUrl(stderr: Stream): Promise<string> {
  let seen = '';
  return new Promise((resolve) => {
    stderr.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /MCP \(Streamable HTTP\) at (http:\/\/[^\s]+)\/mcp/.exec(seen);
      if (match) resolve(match[1]!);
    });
  });
}

/** Resolves once `stderr` has printed text matching `pattern`. */
function printed(stderr: Stream, pattern: RegExp): Promise<void> {
  let seen = '';
  return new Promise((resolve) => {
    stderr.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (pattern.test(seen)) resolve();
    });
  });
}

/** A server listening on loopback `port`; rejects when the port is taken. */
function listenOn(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

/** The MCP client token the gateway made and printed, from its stderr. */
function printedToken(stderr: Stream): Promise<string> {
  let seen = '';
  return new Promise((resolve) => {
    stderr.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /MCP clients send Authorization: Bearer (\S+) \(set COUNTERSIGN_MCP_TOKEN to choose it\)/.exec(
        seen,
      );
      if (match) resolve(match[1]!);
    });
  });
}

async function decide(url: string, approved: boolean, extra: Record<string, unknown> = {}) {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  let item: { runId: string; request: { approvalId: string } } | undefined;
  while (item === undefined) {
    const page = (await (await fetch(`${url}/approvals`, { headers })).json()) as { items: (typeof item)[] };
    item = page.items[0];
    if (item === undefined) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const response = await fetch(`${url}/runs/${item.runId}/approvals/${item.request.approvalId}`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ approved, approvedBy: 'erin', ...extra }),
  });
  expect(response.status).toBe(200);
}

/** The args of the client configuration in docs/mcp.md, after `countersign`. */
function readmeArgs(): string[] {
  const block = /```json\n(\{\n {2}"mcpServers"[\s\S]*?)```/.exec(readme)?.[1];
  expect(block, 'docs/mcp.md shows an mcpServers configuration').toBeDefined();
  const server = Object.values(
    (JSON.parse(block!) as { mcpServers: Record<string, { command: string; args: string[] }> }).mcpServers,
  )[0]!;
  expect(server.command).toBe('npx');
  expect(server.args.slice(0, 2)).toEqual(['countersign', 'mcp-gateway']);
  return server.args.slice(2);
}

/** `args` with the value after `option` replaced. */
function withValue(args: readonly string[], option: string, value: string): string[] {
  const index = args.indexOf(option);
  expect(index, `the command line has ${option}`).toBeGreaterThanOrEqual(0);
  return args.map((arg, at) => (at === index + 1 ? value : arg));
}

describe('countersign mcp-gateway', () => {
  it('runs the client configuration of docs/mcp.md over stdio: rules from --rules, a person deciding in the app on --port', async () => {
    const log = callLog();
    let args = withValue(readmeArgs(), '--upstream', fixtureCommand);
    args = withValue(args, '--port', '0');
    args = withValue(
      args,
      '--rules',
      rulesFile([
        { tool: 'read_*', action: 'allow' },
        { id: 'no-rm', tool: 'remove_*', action: 'deny', reason: 'never from an agent' },
      ]),
    );
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [cliScript, 'mcp-gateway', ...args],
      env: {
        ...(process.env as Record<string, string>),
        MCP_FIXTURE_LOG: log.file,
        COUNTERSIGN_APPROVALS_TOKEN: token,
      },
      stderr: 'pipe',
    });
    const url = appUrl(transport.stderr!);
    const client = new Client({ name: 'cli-test', version: '1.0.0' });
    await client.connect(transport);
    cleanups.push(() => client.close());
    const call = (name: string, callArgs: Record<string, unknown>) =>
      client.callTool({ name, arguments: callArgs }) as Promise<CallToolResult>;

    expect(await call('read_file', { path: '/x' })).toEqual({ content: [{ type: 'text', text: 'contents of /x' }] });
    expect(textOf(await call('remove_tool', { name: 'pid' }))).toMatch(
      /^Refused by the approval policy \(rule no-rm\): never from an agent\./,
    );
    const answer = call('delete_file', { path: '/x' });
    await decide(await url, true);
    expect(await answer).toEqual({ content: [{ type: 'text', text: 'deleted /x' }] });
    expect(log.calls().map((entry) => entry['tool'])).toEqual(['read_file', 'delete_file']);
  });

  it('serves MCP over Streamable HTTP at /mcp beside the approval app with --port, to clients with the token it made and printed', async () => {
    const log = callLog();
    const child: ChildProcess = spawn(
      process.execPath,
      [
        cliScript,
        'mcp-gateway',
        '--upstream',
        fixtureCommand,
        '--name',
        'fixture',
        '--port',
        '0',
        '--wait-ms',
        '10000',
      ],
      {
        env: { ...process.env, MCP_FIXTURE_LOG: log.file, COUNTERSIGN_APPROVALS_TOKEN: token },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    cleanups.push(
      () =>
        new Promise((resolve) =>
          child.exitCode === null ? child.once('exit', resolve).kill('SIGTERM') : resolve(undefined),
        ),
    );
    const [url, mcpToken] = await Promise.all([appUrl(child.stderr!), printedToken(child.stderr!)]);
    // Without the token it printed, /mcp takes nobody.
    expect(
      (await fetch(`${url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }))
        .status,
    ).toBe(401);
    const client = new Client({ name: 'cli-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${mcpToken}` } },
      }),
    );
    cleanups.push(() => client.close());
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('delete_file');
    expect((await fetch(`${url}/approvals`)).status).toBe(401);
    const answer = client.callTool({ name: 'delete_file', arguments: { path: '/y' } }) as Promise<CallToolResult>;
    await decide(url, false, { reason: 'keep it' });
    expect(textOf(await answer)).toMatch(/^Denied by erin: keep it\./);
    expect(log.calls()).toEqual([]);
  });

  it('leaves loopback with --host and --clients: each client its own token and requester, Hosts from --allowed-host, and URL-mode elicitation to the link page of --approval-url', async () => {
    const log = callLog();
    const port = await freePort();
    const clients = join(mkdtempSync(join(tmpdir(), 'countersign-clients-')), 'clients.json');
    writeFileSync(clients, JSON.stringify({ dana: 'dana-mcp-token-0123456789' }));
    const child: ChildProcess = spawn(
      process.execPath,
      [
        cliScript,
        'mcp-gateway',
        ...['--upstream', fixtureCommand, '--name', 'fixture', '--port', String(port), '--host', '0.0.0.0'],
        ...['--clients', clients, '--allowed-host', 'gateway.internal'],
        ...['--approval-url', `http://127.0.0.1:${port}`, '--max-sessions', '5', '--follow-every-ms', '200'],
      ],
      {
        env: {
          ...process.env,
          MCP_FIXTURE_LOG: log.file,
          COUNTERSIGN_APPROVALS_TOKEN: token,
          COUNTERSIGN_LINK_SECRET: 'link-secret-0123456789abcdef',
        },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    cleanups.push(
      () =>
        new Promise((resolve) =>
          child.exitCode === null ? child.once('exit', resolve).kill('SIGTERM') : resolve(undefined),
        ),
    );
    await appUrl(child.stderr!);
    const url = `http://127.0.0.1:${port}`;
    const initialize = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    /** The status of an initialize sent with Host `host` (fetch would send its own). */
    const statusWithHost = (host: string) =>
      new Promise<number>((resolve, reject) => {
        const headers = {
          host,
          authorization: 'Bearer dana-mcp-token-0123456789',
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        };
        const req = httpRequest({ host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end(initialize);
      });
    expect(await statusWithHost('attacker.example')).toBe(403);
    expect(await statusWithHost(`gateway.internal:${port}`)).toBe(200);

    let asked: ((url: string) => void) | undefined;
    const elicited = new Promise<string>((resolve) => (asked = resolve));
    const client = new Client({ name: 'cli-test', version: '1.0.0' }, { capabilities: { elicitation: { url: {} } } });
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked?.((request.params as { url: string }).url);
      return { action: 'accept' };
    });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
        requestInit: { headers: { authorization: 'Bearer dana-mcp-token-0123456789' } },
      }),
    );
    cleanups.push(() => client.close());
    const answer = client.callTool({ name: 'delete_file', arguments: { path: '/z' } }) as Promise<CallToolResult>;
    const page = await elicited;
    expect(page.startsWith(`${url}/links/`)).toBe(true);
    const pending = (await (
      await fetch(`${url}/approvals`, { headers: { authorization: `Bearer ${token}` } })
    ).json()) as {
      items: { requestedBy?: string }[];
    };
    expect(pending.items.map((item) => item.requestedBy)).toEqual(['mcp:dana']);
    await fetch(page, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' });
    expect(textOf(await answer)).toBe('deleted /z');
    expect(log.calls('delete_file')).toHaveLength(1);
  });

  it.each([
    ['its MCP client closes standard input', (child: ChildProcess) => child.stdin!.end()],
    ['it gets SIGHUP', (child: ChildProcess) => child.kill('SIGHUP')],
    ['it gets SIGTERM', (child: ChildProcess) => child.kill('SIGTERM')],
  ])('with --serve-stdio and --port, exits 0 when %s, and the port is free for the next launch', async (_, end) => {
    const port = await freePort();
    const child: ChildProcess = spawn(
      process.execPath,
      [
        cliScript,
        'mcp-gateway',
        '--upstream',
        fixtureCommand,
        '--name',
        'fixture',
        '--serve-stdio',
        '--port',
        String(port),
      ],
      {
        env: { ...process.env, MCP_FIXTURE_LOG: callLog().file, COUNTERSIGN_APPROVALS_TOKEN: token },
        stdio: ['pipe', 'ignore', 'pipe'],
      },
    );
    const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
      child.once('exit', (code, signal) => resolve([code, signal])),
    );
    cleanups.push(async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    });
    await printed(child.stderr!, /MCP on stdin\/stdout/);
    end(child);
    expect(await exited).toEqual([0, null]);
    const next = await listenOn(port);
    await new Promise((resolve) => next.close(resolve));
  });

  it('says plainly that --port is in use (EADDRINUSE), which port and what to do, and exits 1', async () => {
    const taken = await listenOn(await freePort());
    cleanups.push(() => new Promise((resolve) => taken.close(resolve)));
    const port = (taken.address() as { port: number }).port;
    const stderr = new PassThrough();
    let err = '';
    stderr.on('data', (chunk) => (err += chunk));
    const code = await runCli(
      ['mcp-gateway', '--upstream', fixtureCommand, '--name', 'fixture', '--port', String(port)],
      {
        stdout: new PassThrough(),
        stderr,
        stdin: Readable.from([]),
        env: { ...process.env, MCP_FIXTURE_LOG: callLog().file, COUNTERSIGN_APPROVALS_TOKEN: token },
        loadRuntime: async () => Promise.reject(new Error('no runtime')),
      },
    );
    expect(code).toBe(1);
    expect(err).toContain(
      `port ${port} is in use (EADDRINUSE): another process listens there, perhaps an earlier mcp-gateway still running.`,
    );
    expect(err).toContain('or give this gateway another --port');
  });

  it('explains a bad command line or rules file with exit code 2, naming the file, the rule and the fix', async () => {
    const run = async (argv: string[], env: Record<string, string> = {}) => {
      const stderr = new PassThrough();
      let err = '';
      stderr.on('data', (chunk) => (err += chunk));
      const code = await runCli(argv, {
        stdout: new PassThrough(),
        stderr,
        stdin: Readable.from([]),
        env,
        loadRuntime: async () => Promise.reject(new Error('no runtime')),
      });
      return { code, err };
    };
    const base = [
      'mcp-gateway',
      '--upstream',
      'server',
      '--name',
      'files',
      '--serve-stdio',
      '--redis',
      'redis://127.0.0.1:6379',
    ];
    const bad = rulesFile([
      { tool: 'read_*', action: 'allow' },
      { tool: 'delete_*', action: 'block' },
    ]);
    const rules = await run([...base, '--rules', bad]);
    expect(rules.code).toBe(2);
    expect(rules.err).toContain(`--rules ${bad}: rule 1 action must be 'allow', 'ask' or 'deny'; each rule is {`);
    expect((await run([...base, '--rules', rulesFile([{ action: 'ask', when: 'x' }])])).err).toContain(
      'rule 0 has an unknown option when',
    );
    expect((await run(['mcp-gateway', '--name', 'files', '--serve-stdio'])).err).toContain(
      'mcp-gateway takes --upstream "<command line>" or --upstream-url URL',
    );
    expect((await run(['mcp-gateway', '--upstream', 'server', '--name', 'files', '--serve-stdio'])).err).toContain(
      'nobody could decide the calls',
    );
    expect((await run(['mcp-gateway', '--upstream', 'server', '--name', 'files', '--port', '0'])).err).toContain(
      'set COUNTERSIGN_APPROVALS_TOKEN',
    );
    const app = { COUNTERSIGN_APPROVALS_TOKEN: token };
    const http = ['mcp-gateway', '--upstream', 'server', '--name', 'files', '--port', '0'];
    expect((await run([...http, '--host', '0.0.0.0'], app)).err).toContain(
      '--host serves MCP beyond this machine: choose its clients first, with --clients FILE',
    );
    expect((await run([...http, '--approval-url', 'https://approvals.example.com'], app)).err).toContain(
      '--approval-url sends clients one-click link pages, which need COUNTERSIGN_LINK_SECRET',
    );
    expect((await run([...http, '--max-sessions', '0'], app)).err).toContain(
      '--max-sessions must be a whole number, at least 1',
    );
    expect((await run([...http, '--clients', rulesFile([])], app)).err).toContain('names no clients');
    expect(
      (await run(['mcp-gateway', '--upstream', 'server', '--name', 'files', '--serve-stdio', '--prefix', 'p:'])).err,
    ).toContain('--prefix is the Redis key prefix; it goes with --redis URL');
    expect(
      (
        await run([
          'mcp-gateway',
          '--upstream',
          'server "unclosed',
          '--name',
          'files',
          '--serve-stdio',
          '--redis',
          'redis://x',
        ])
      ).err,
    ).toContain('--upstream has an unclosed " quote');
  });
});
