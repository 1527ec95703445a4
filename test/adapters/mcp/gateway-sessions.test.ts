// The gateway's MCP Streamable HTTP sessions over a real loopback socket: an idle session is closed (a call in flight
// keeps its session), and a new session beyond maxSessions is refused with 503 and a JSON-RPC error that says why.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { serve } from 'countersign/http';
import type { McpGatewaySettings } from 'countersign/mcp';
import { closeGateways, gatewayWithClient, nextPending, textOf } from '../../support/mcp-gateway-kit.js';

const token = 'session-test-token-0123456789';
const closing: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
  await closeGateways();
});

/** The gateway served at /mcp of a loopback server, and a way to connect SDK clients to it over HTTP. */
async function servedGateway(settings: McpGatewaySettings) {
  const { gateway, log } = await gatewayWithClient({ clientTokens: { tester: token }, ...settings });
  const server = await serve({ fetch: gateway.fetch }, { port: 0 });
  closing.push(() => server.close());
  const endpoint = new URL(`${server.url}/mcp`);
  const httpClient = async () => {
    const transport = new StreamableHTTPClientTransport(endpoint, {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    });
    const client = new Client({ name: 'http-client', version: '1.0.0' });
    await client.connect(transport);
    closing.push(() => client.close());
    return { client, transport };
  };
  return { gateway, log, endpoint, httpClient };
}

const initialize = (endpoint: URL) =>
  fetch(endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  });

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('createMcpGateway HTTP sessions', () => {
  it('closes a session idle for sessionIdleMs: its id is then unknown, and a new session works', async () => {
    const { endpoint, httpClient } = await servedGateway({ sessionIdleMs: 1_000, policy: { default: 'allow' } });
    const { client, transport } = await httpClient();
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('read_file');
    const sessionId = transport.sessionId!;
    const probe = () =>
      fetch(endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': sessionId,
          authorization: `Bearer ${token}`,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
      });
    // A probe is a request and keeps the session alive: look only after more than an idle period without one.
    await pause(1_600);
    let answer = await probe();
    while (answer.status !== 404) {
      await answer.body?.cancel();
      await pause(1_600);
      answer = await probe();
    }
    expect(await answer.json()).toMatchObject({
      error: { message: 'Session not found (it was closed or expired); initialize a new session.' },
    });
    const { client: again } = await httpClient();
    expect(textOf((await again.callTool({ name: 'read_file', arguments: { path: '/s' } })) as CallToolResult)).toBe(
      'contents of /s',
    );
  });

  it('keeps a session with a call in flight, however long the call waits for its decision', async () => {
    const { gateway, httpClient } = await servedGateway({ sessionIdleMs: 500, waitMs: 10_000 });
    const { client } = await httpClient();
    const answer = client.callTool({ name: 'delete_file', arguments: { path: '/k' } }) as Promise<CallToolResult>;
    const { runId, request } = await nextPending(gateway.runtime);
    // Several idle periods pass while a person decides; the call's answer still reaches its session.
    await pause(1_500);
    await gateway.runtime.respond(runId, { approvalId: request.approvalId, approved: true, approvedBy: 'gus' });
    expect(await answer).toEqual({ content: [{ type: 'text', text: 'deleted /k' }] });
  });

  it('refuses a session beyond maxSessions with 503 and says why; a closed session makes room', async () => {
    const { endpoint, httpClient } = await servedGateway({ maxSessions: 1, policy: { default: 'allow' } });
    const { transport } = await httpClient();
    const refused = await initialize(endpoint);
    expect(refused.status).toBe(503);
    expect(await refused.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32000,
        message:
          'The gateway has reached its limit of 1 open MCP sessions (maxSessions); a session closes after 1800000 ms without requests. Close sessions you no longer use (HTTP DELETE with their mcp-session-id), or try again later.',
      },
    });
    await expect(httpClient()).rejects.toThrow(/HTTP 503|maxSessions/);
    await transport.terminateSession();
    const { client } = await httpClient();
    expect(textOf((await client.callTool({ name: 'read_file', arguments: { path: '/m' } })) as CallToolResult)).toBe(
      'contents of /m',
    );
  });
});
