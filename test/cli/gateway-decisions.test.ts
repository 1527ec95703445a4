// The CLI and an MCP gateway's runs: deciding them from a runtime that has the gateway's agent without its tools,
// the gateway's cards (why a person is asked, no "for this run" on a one-call run, --approval-ttl-ms), and what the
// gateway command says when ioredis is missing or no decision secret is set.
import { spawn } from 'node:child_process';
import { PassThrough, Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { createMemoryStore, type Runtime } from 'countersign';
import type { McpGateway } from 'countersign/mcp';
import { runCli } from '../../src/cli/run-cli.js';
import { callLog, fixtureScript } from '../support/mcp-fixture.js';
import { closeGateways, deciderRuntime, gatewayWithClient } from '../support/mcp-gateway-kit.js';
import { connect, removePrefix, uniquePrefix } from '../redis/redis-harness.js';
import { runCliCaptured } from '../support/cli-run.js';

const cliScript = fileURLToPath(new URL('../../src/cli/index.ts', import.meta.url));
const fixtureCommand = `"${process.execPath}" --import tsx "${fixtureScript}"`;
const redisUrl = inject('redisUrl');
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await closeGateways();
});

function cli(
  runtime: Runtime | undefined,
  argv: string[],
  input = '',
  env: Record<string, string | undefined> = {},
  signal?: AbortSignal,
) {
  return runCliCaptured(argv, {
    runtime,
    input,
    env: { COUNTERSIGN_RUNTIME: './runtime.js', ...env },
    ...(signal ? { signal } : {}),
  });
}

/** The next request the gateway asks a person about. */
function requested(gateway: McpGateway) {
  return new Promise<{ runId: string; request: { approvalId: string; reason?: string } }>((resolve) => {
    gateway.runtime.subscribe((event) => {
      if (event.type === 'approval-requested') resolve(event);
    });
  });
}

/** Resolves with what `stream` printed once it matches `pattern`. */
function printed(stream: NodeJS.ReadableStream, pattern: RegExp): Promise<string> {
  let seen = '';
  return new Promise((resolve) => {
    stream.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (pattern.test(seen)) resolve(seen);
    });
  });
}

describe('the CLI and an MCP gateway', () => {
  it('approve on a gateway run, from a runtime with the gateway agent: recorded, "the gateway carries it out", exit 0; the gateway forwards it', async () => {
    const store = createMemoryStore();
    const { gateway, call, log } = await gatewayWithClient({ store });
    const asked = requested(gateway);
    const answer = call('delete_file', { path: '/x' });
    const { runId, request } = await asked;
    // Why a person: no rule matched, in the gateway's words.
    expect(request.reason).toBe('no rule matched; the gateway asks for every call by default');
    const approved = await cli(deciderRuntime(gateway, store), ['approve', runId, request.approvalId, '--by', 'alice']);
    expect(approved).toEqual({
      code: 0,
      err: '',
      out: `approved: recorded; the gateway carries it out (its agent has no tools here); run ${runId} is running\n`,
    });
    expect(await answer).toEqual({ content: [{ type: 'text', text: 'deleted /x' }] });
    expect(log.calls().map((entry) => entry['tool'])).toEqual(['delete_file']);
  });

  it('review offers no "approve for this run" on a gateway run (one call a run): s is not a key there', async () => {
    const store = createMemoryStore();
    const { gateway, call } = await gatewayWithClient({ store });
    const asked = requested(gateway);
    const answer = call('delete_file', { path: '/y' });
    await asked;
    const review = await cli(deciderRuntime(gateway, store), ['review', '--by', 'alice'], 's\ny\n');
    expect(review.code).toBe(0);
    expect(review.out).toContain('y approve once · n deny · d dismiss · e edit');
    expect(review.out).not.toContain('for this run');
    expect(review.out).toContain('s is not a key here; answer y, n, d, e, v, j or q');
    expect(review.out).toContain('approved once: recorded; the gateway carries it out');
    expect(await answer).toEqual({ content: [{ type: 'text', text: 'deleted /y' }] });
  });

  it('mcp-gateway --approval-ttl-ms N: each request expires N ms after it was made', async () => {
    const stop = new AbortController();
    const stderr = new PassThrough();
    const appUrl = printed(stderr, /MCP \(Streamable HTTP\) at http:\/\/\S+\/mcp/);
    const approvalsToken = 'gateway-ttl-approvals-0123456789';
    const mcpToken = 'gateway-ttl-mcp-token-0123456789';
    const running = runCli(
      [
        'mcp-gateway',
        '--upstream',
        fixtureCommand,
        '--name',
        'fixture',
        '--port',
        '0',
        '--approval-ttl-ms',
        '600000',
        '--wait-ms',
        '0',
      ],
      {
        stdout: new PassThrough(),
        stderr,
        stdin: Readable.from([]),
        env: {
          ...process.env,
          MCP_FIXTURE_LOG: callLog().file,
          COUNTERSIGN_APPROVALS_TOKEN: approvalsToken,
          COUNTERSIGN_MCP_TOKEN: mcpToken,
        },
        loadRuntime: async () => Promise.reject(new Error('no runtime')),
        signal: stop.signal,
      },
    );
    cleanups.push(async () => {
      stop.abort();
      expect(await running).toBe(0);
    });
    const url = /at (http:\/\/\S+)\/mcp/.exec(await appUrl)![1]!;
    const client = new Client({ name: 'ttl-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${mcpToken}` } },
      }),
    );
    cleanups.push(() => client.close());
    const asked = printed(stderr, /approval requested:/);
    (await client.callTool({ name: 'delete_file', arguments: { path: '/z' } })) as CallToolResult;
    await asked;
    const page = (await (
      await fetch(`${url}/approvals`, { headers: { authorization: `Bearer ${approvalsToken}` } })
    ).json()) as {
      items: { request: { requestedAt: number; expiresAt?: number } }[];
    };
    const { requestedAt, expiresAt } = page.items[0]!.request;
    expect(expiresAt! - requestedAt).toBe(600_000);
  });

  it("mcp-gateway --redis where ioredis is not installed says to install it, not Node's module error", async () => {
    // A resolve hook that finds no ioredis, as in a project that never installed it.
    const hook = `data:text/javascript,${encodeURIComponent(`
      import { register } from 'node:module';
      register('data:text/javascript,' + encodeURIComponent(\`export async function resolve(specifier, context, next) {
        if (specifier === 'ioredis') throw Object.assign(new Error("Cannot find package 'ioredis' imported from here"), { code: 'ERR_MODULE_NOT_FOUND' });
        return next(specifier, context);
      }\`));
    `)}`;
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '--import',
        hook,
        cliScript,
        'mcp-gateway',
        '--upstream',
        fixtureCommand,
        '--name',
        'fixture',
        '--serve-stdio',
        '--redis',
        'redis://127.0.0.1:6379',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let err = '';
    child.stderr.on('data', (chunk) => (err += chunk));
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(code).toBe(1);
    expect(err).toBe(
      'error [missing_option]: --redis needs ioredis, which is not installed where countersign runs; install ioredis: npm i ioredis\n',
    );
  });

  it.skipIf(!redisUrl)(
    'mcp-gateway --redis without a decision secret warns naming the environment variable to set, not createAgent',
    async () => {
      const prefix = uniquePrefix();
      const redis = connect(redisUrl!);
      cleanups.push(async () => {
        await removePrefix(redis, prefix);
        redis.disconnect();
      });
      const { COUNTERSIGN_DECISION_SECRET: _unset, ...env } = process.env;
      const child = spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          cliScript,
          'mcp-gateway',
          '--upstream',
          fixtureCommand,
          '--name',
          'fixture',
          '--serve-stdio',
          '--redis',
          redisUrl!,
          '--prefix',
          prefix,
        ],
        { env: { ...env, MCP_FIXTURE_LOG: callLog().file }, stdio: ['pipe', 'ignore', 'pipe'] },
      );
      const exited = new Promise((resolve) => child.once('exit', resolve));
      const err = await printed(child.stderr, /MCP on stdin\/stdout/);
      child.stdin.end();
      expect(await exited).toBe(0);
      expect(err).toContain(
        'Set the environment variable COUNTERSIGN_DECISION_SECRET (at least 16 random characters, the same in every process)',
      );
      expect(err).not.toContain('createAgent');
    },
  );
});
