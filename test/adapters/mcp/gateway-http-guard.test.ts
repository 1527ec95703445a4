// What the gateway's /mcp takes over a real loopback socket before any MCP is spoken: a client's bearer token (none,
// or a wrong one, is 401, so an unauthenticated client neither calls tools nor fills the session cap), a Host the
// gateway is reached by and no foreign Origin (a DNS-rebinding page is 403, token or not), a body within maxBodyBytes
// and one message (a 3 MB batch asks nobody).
import { request as httpRequest } from 'node:http';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { serve } from 'countersign/http';
import type { McpGatewaySettings } from 'countersign/mcp';
import { closeGateways, gatewayWithClient, httpClientOf, textOf } from '../../support/mcp-gateway-kit.js';

const token = 'alice-mcp-token-0123456789';
const closing: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
  await closeGateways();
});

async function servedGateway(settings: McpGatewaySettings) {
  const { gateway, log } = await gatewayWithClient(settings);
  const server = await serve({ fetch: gateway.fetch }, { port: 0 });
  closing.push(() => server.close());
  return { gateway, log, endpoint: new URL(`${server.url}/mcp`) };
}

const initializeBody = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

/** A raw POST over node:http, which sends the Host header it is given (fetch would not). */
function post(
  endpoint: URL,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; json: unknown }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: endpoint.hostname,
        port: endpoint.port,
        path: endpoint.pathname,
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        // A refusal is JSON; an accepted request answers as a server-sent event stream.
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            json: res.headers['content-type']?.includes('json') ? (JSON.parse(text) as unknown) : text,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('createMcpGateway over HTTP: who may reach /mcp', () => {
  it('refuses every MCP client over HTTP with 401 when the gateway has no clientTokens', async () => {
    const { gateway, endpoint } = await servedGateway({ policy: { default: 'allow' } });
    const answer = await post(endpoint, {}, initializeBody);
    expect(answer.status).toBe(401);
    expect(answer.json).toMatchObject({
      error: {
        message: 'This gateway takes no MCP clients over HTTP: give it clientTokens (the CLI: COUNTERSIGN_MCP_TOKEN).',
      },
    });
    expect((await gateway.runtime.pending()).items).toEqual([]);
  });

  it('refuses a request without a client token or with a wrong one (401), so no unauthenticated client fills maxSessions; the token holder gets in', async () => {
    const { endpoint } = await servedGateway({
      clientTokens: { alice: token },
      maxSessions: 2,
      policy: { default: 'allow' },
    });
    for (const authorization of [
      undefined,
      'Bearer not-the-token-0123456789',
      `Basic ${token}`,
      `Bearer ${token}x`,
      `Bearer ${token}x`,
    ]) {
      const answer = await post(endpoint, authorization === undefined ? {} : { authorization }, initializeBody);
      expect(answer.status).toBe(401);
      expect(answer.json).toMatchObject({
        error: { message: "Send this gateway's client token as Authorization: Bearer <token>." },
      });
    }
    const { client } = await httpClientOf(endpoint, token);
    const { client: second } = await httpClientOf(endpoint, token);
    expect(textOf((await client.callTool({ name: 'read_file', arguments: { path: '/t' } })) as CallToolResult)).toBe(
      'contents of /t',
    );
    expect(textOf((await second.callTool({ name: 'read_file', arguments: { path: '/u' } })) as CallToolResult)).toBe(
      'contents of /u',
    );
  });

  it("refuses a DNS-rebinding page's request: a Host the gateway is not reached by, or a foreign Origin, is 403 even with the token", async () => {
    const { gateway, endpoint } = await servedGateway({
      clientTokens: { alice: token },
      allowedHosts: ['localhost', '127.0.0.1', 'gateway.internal'],
      policy: { default: 'allow' },
    });
    const authorization = `Bearer ${token}`;
    const rebound = await post(endpoint, { authorization, host: `attacker.example:${endpoint.port}` }, initializeBody);
    expect(rebound.status).toBe(403);
    expect(rebound.json).toMatchObject({
      error: {
        message: `Host "attacker.example:${endpoint.port}" is not one this gateway is reached by; add its name to allowedHosts if it is yours.`,
      },
    });
    const page = await post(endpoint, { authorization, origin: 'http://attacker.example' }, initializeBody);
    expect(page.status).toBe(403);
    expect(page.json).toMatchObject({
      error: {
        message: 'Origin "http://attacker.example" may not call this gateway; add it to allowedOrigins if it is yours.',
      },
    });
    expect(
      (await post(endpoint, { authorization, host: `gateway.internal:${endpoint.port}` }, initializeBody)).status,
    ).toBe(200);
    expect((await gateway.runtime.pending()).items).toEqual([]);
  });

  it('refuses a body over maxBodyBytes with 413 and a JSON-RPC batch with 400: a 3 MB batch of calls asks nobody', async () => {
    const { gateway, log, endpoint } = await servedGateway({ clientTokens: { alice: token }, maxBodyBytes: 65_536 });
    const { transport } = await httpClientOf(endpoint, token);
    const headers = {
      authorization: `Bearer ${token}`,
      'mcp-session-id': transport.sessionId!,
      'mcp-protocol-version': '2025-06-18',
    };
    const call = (id: number) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'delete_file', arguments: { path: `/${id}/${'x'.repeat(65_000)}` } },
    });
    const big = await post(endpoint, headers, JSON.stringify(Array.from({ length: 45 }, (_, id) => call(id))));
    expect(big.status).toBe(413);
    expect(big.json).toMatchObject({
      error: { message: 'The body is larger than 65536 bytes (maxBodyBytes); send at most 65536.' },
    });
    const small = (id: number) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'delete_file', arguments: { path: `/${id}` } },
    });
    const batch = await post(endpoint, headers, JSON.stringify([small(1), small(2)]));
    expect(batch.status).toBe(400);
    expect(batch.json).toMatchObject({
      error: { message: 'Send one JSON-RPC message per request; this gateway takes no batches.' },
    });
    expect((await gateway.runtime.pending()).items).toEqual([]);
    expect(log.calls()).toEqual([]);
  });
});
