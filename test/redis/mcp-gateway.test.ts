// The approval gateway on the real Redis: a call paused, decided by another runtime on its own connection to the same
// Redis (mode 'record'), forwarded once by the gateway with no retry; the same over a real socket to an approval app of
// that runtime (resumeMode 'record'); and `countersign mcp-gateway --redis URL` spawned, serving MCP on --port,
// decided over its approval app.
import { spawn } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, describe, expect, inject, it } from 'vitest';
import { createApprovalApp, serve } from 'countersign/http';
import { createRedisStore } from 'countersign/redis';
import { callLog, fixtureCommand } from '../support/mcp-fixture.js';
import { builtScript } from '../support/built.js';
import {
  closeGateways,
  deciderRuntime,
  gatewayWithClient,
  nextPending,
  pausedCall,
  runEnded,
  textOf,
} from '../support/mcp-gateway-kit.js';
import { connect, removePrefix, uniquePrefix } from './redis-harness.js';

const url = inject('redisUrl');
const cliScript = await builtScript('src/cli/index.ts');
const token = 'gateway-redis-token-0123456789';
const mcpToken = 'gateway-redis-mcp-token-0123456789';

describe.skipIf(!url)('MCP gateway on Redis', () => {
  const gatewayRedis = url ? connect(url) : undefined!;
  const deciderRedis = url ? connect(url) : undefined!;
  const prefix = uniquePrefix();
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    await closeGateways();
  });
  afterAll(async () => {
    await removePrefix(gatewayRedis, prefix);
    gatewayRedis.disconnect();
    deciderRedis.disconnect();
  });

  it('forwards a call decided by another runtime on the same Redis once, by itself; the retry gets the result', async () => {
    const { gateway, log, call } = await gatewayWithClient({
      store: createRedisStore({ redis: gatewayRedis, prefix }),
      waitMs: 50,
      followEveryMs: 50,
    });
    expect(textOf(await pausedCall(gateway.runtime, () => call('delete_file', { path: '/r' })))).toMatch(
      /^Approval pending/,
    );
    const decider = deciderRuntime(gateway, createRedisStore({ redis: deciderRedis, prefix }));
    const { runId, request } = await nextPending(decider);
    const ended = runEnded(gateway.runtime, runId);
    await decider.respond(
      runId,
      { approvalId: request.approvalId, approved: true, approvedBy: 'hana' },
      { mode: 'record' },
    );
    expect((await ended).status).toBe('completed');
    expect(log.calls('delete_file')).toEqual([{ tool: 'delete_file', args: { path: '/r' } }]);
    expect(await call('delete_file', { path: '/r' })).toEqual({ content: [{ type: 'text', text: 'deleted /r' }] });
    expect(log.calls('delete_file')).toHaveLength(1);
    expect((await decider.get(runId)).audit).toMatchObject([{ decision: 'approved', by: 'hana', source: 'human' }]);
  });

  it("decides over an approval app of another runtime with resumeMode 'record': 202 at once, no error, the gateway forwards the call once", async () => {
    const { gateway, log, call } = await gatewayWithClient({
      store: createRedisStore({ redis: gatewayRedis, prefix }),
      waitMs: 50,
      followEveryMs: 50,
    });
    expect(textOf(await pausedCall(gateway.runtime, () => call('delete_file', { path: '/app' })))).toMatch(
      /^Approval pending/,
    );
    const decider = deciderRuntime(gateway, createRedisStore({ redis: deciderRedis, prefix }));
    const errors: unknown[] = [];
    const server = await serve(
      createApprovalApp(decider, { bearerToken: token, resumeMode: 'record', onError: (error) => errors.push(error) }),
      { port: 0 },
    );
    cleanups.push(() => server.close());
    const { runId, request } = await nextPending(decider);
    const ended = runEnded(gateway.runtime, runId);
    const decided = await fetch(`${server.url}/runs/${runId}/approvals/${request.approvalId}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ approved: true, approvedBy: 'gina' }),
    });
    expect(decided.status).toBe(202);
    expect(await decided.json()).toEqual({ status: 'running', accepted: true, runId, duplicate: false });
    expect((await ended).status).toBe('completed');
    expect(log.calls('delete_file')).toEqual([{ tool: 'delete_file', args: { path: '/app' } }]);
    expect(await call('delete_file', { path: '/app' })).toEqual({ content: [{ type: 'text', text: 'deleted /app' }] });
    expect(log.calls('delete_file')).toHaveLength(1);
    expect(errors).toEqual([]);
  });

  it('runs `countersign mcp-gateway --redis URL --prefix P --port 0`: the call decided over the approval app is forwarded once', async () => {
    const log = callLog();
    const child = spawn(
      process.execPath,
      [
        cliScript,
        'mcp-gateway',
        '--upstream',
        fixtureCommand,
        '--name',
        'fixture',
        '--redis',
        url!,
        '--prefix',
        prefix,
        '--port',
        '0',
        '--wait-ms',
        '10000',
      ],
      {
        env: {
          ...process.env,
          MCP_FIXTURE_LOG: log.file,
          COUNTERSIGN_APPROVALS_TOKEN: token,
          COUNTERSIGN_MCP_TOKEN: mcpToken,
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
    const app = await new Promise<string>((resolve) => {
      let seen = '';
      child.stderr.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        const match = /MCP \(Streamable HTTP\) at (http:\/\/\S+)\/mcp/.exec(seen);
        if (match) resolve(match[1]!);
      });
    });
    const client = new Client({ name: 'redis-cli-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${app}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${mcpToken}` } },
      }),
    );
    cleanups.push(() => client.close());
    const answer = client.callTool({ name: 'delete_file', arguments: { path: '/cli' } }) as Promise<CallToolResult>;
    // The run is in Redis: this process finds it there, and decides over the gateway's approval app.
    const store = createRedisStore({ redis: deciderRedis, prefix });
    let pending = (await store.listPending({})).items.find((item) => item.request.toolName === 'delete_file');
    while (pending === undefined) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      pending = (await store.listPending({})).items.find((item) => item.request.toolName === 'delete_file');
    }
    const decided = await fetch(`${app}/runs/${pending.runId}/approvals/${pending.request.approvalId}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ approved: true, approvedBy: 'ivan' }),
    });
    expect(decided.status).toBe(200);
    expect(await answer).toEqual({ content: [{ type: 'text', text: 'deleted /cli' }] });
    expect(log.calls('delete_file')).toEqual([{ tool: 'delete_file', args: { path: '/cli' } }]);
  });
});
