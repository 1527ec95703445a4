// /mcp with OAuth, as the MCP authorization specification has a client find its way: an unauthenticated request's
// 401 names the protected resource metadata (RFC 9728), the SDK's own discovery reads it and finds the authorization
// server, and a token the app's verifier takes lets the client in as the client the verifier names (its runs'
// requestedBy). A token the verifier refuses, or a verifier that throws or names no usable client, is a 401.
import {
  discoverOAuthProtectedResourceMetadata,
  extractWWWAuthenticateParams,
} from '@modelcontextprotocol/sdk/client/auth.js';
import { request } from 'node:http';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { serve } from 'countersign/http';
import type { McpGatewaySettings } from 'countersign/mcp';
import { freePort } from '../../support/free-port.js';
import { closeGateways, gatewayWithClient, httpClientOf, pausedCall } from '../../support/mcp-gateway-kit.js';

const closing: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
  await closeGateways();
});

const issued = new Map([
  ['oauth-access-token-for-carol-0123', 'carol'],
  ['oauth-access-token-bad-name-0123', 'not a client name'],
]);

async function oauthGateway(settings: McpGatewaySettings = {}) {
  const port = await freePort();
  const resource = `http://127.0.0.1:${port}/mcp`;
  const { gateway } = await gatewayWithClient({
    clientTokens: { alice: 'alice-mcp-token-0123456789' },
    oauth: {
      resource,
      authorizationServers: ['https://auth.example.com'],
      scopesSupported: ['mcp:tools'],
      verifyAccessToken: async (token) => {
        if (token === 'oauth-token-that-breaks-the-verifier') throw new Error('introspection endpoint down');
        const client = issued.get(token);
        return client === undefined ? undefined : { client };
      },
    },
    ...settings,
  });
  const server = await serve({ fetch: gateway.fetch }, { port });
  closing.push(() => server.close());
  return { gateway, endpoint: new URL(resource) };
}

const initialize = (endpoint: URL, authorization?: string) =>
  fetch(endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(authorization === undefined ? {} : { authorization }),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  });

describe('createMcpGateway with oauth: discovery and access tokens', () => {
  it("a 401 names the protected resource metadata, which the SDK's discovery reads", async () => {
    const { endpoint } = await oauthGateway();
    const refused = await initialize(endpoint);
    expect(refused.status).toBe(401);
    const challenge = extractWWWAuthenticateParams(refused);
    expect(challenge.resourceMetadataUrl?.href).toBe(`${endpoint.origin}/.well-known/oauth-protected-resource/mcp`);
    const metadata = await discoverOAuthProtectedResourceMetadata(endpoint, {
      resourceMetadataUrl: challenge.resourceMetadataUrl!,
    });
    expect(metadata).toEqual({
      resource: endpoint.href,
      authorization_servers: ['https://auth.example.com'],
      bearer_methods_supported: ['header'],
      scopes_supported: ['mcp:tools'],
    });
  });

  it('lets a verified token in as the client the verifier names, whose calls are requested by mcp:<client>', async () => {
    const { gateway, endpoint } = await oauthGateway({ waitMs: 200 });
    const { client } = await httpClientOf(endpoint, 'oauth-access-token-for-carol-0123');
    await pausedCall(
      gateway.runtime,
      () => client.callTool({ name: 'delete_file', arguments: { path: '/x' } }) as Promise<CallToolResult>,
    );
    const [pending] = (await gateway.runtime.pending()).items;
    expect(pending).toMatchObject({ requestedBy: 'mcp:carol', request: { toolName: 'delete_file' } });
  });

  it('refuses a token the verifier refuses, a verifier that throws, and a client name it may not take, each with invalid_token', async () => {
    const { gateway, endpoint } = await oauthGateway();
    for (const token of [
      'oauth-access-token-nobody-issued',
      'oauth-token-that-breaks-the-verifier',
      'oauth-access-token-bad-name-0123',
    ]) {
      const refused = await initialize(endpoint, `Bearer ${token}`);
      expect(refused.status).toBe(401);
      expect(extractWWWAuthenticateParams(refused).error).toBe('invalid_token');
      expect(await refused.json()).toMatchObject({
        error: { message: 'Send a client token or an OAuth access token as Authorization: Bearer <token>.' },
      });
    }
    // The static client token still works beside OAuth.
    expect((await initialize(endpoint, 'Bearer alice-mcp-token-0123456789')).status).toBe(200);
    expect((await gateway.runtime.pending()).items).toEqual([]);
  });

  it('serves the metadata only to a Host the gateway is reached by', async () => {
    const { endpoint } = await oauthGateway();
    const own = await fetch(`${endpoint.origin}/.well-known/oauth-protected-resource/mcp`);
    expect(own.status).toBe(200);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: endpoint.hostname,
          port: endpoint.port,
          path: '/.well-known/oauth-protected-resource/mcp',
          headers: { host: 'attacker.example' },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(403);
  });
});
