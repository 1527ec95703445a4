// A gateway call is its client's: two clients sending the identical call are two calls, each asked about and answered
// on its own, each shown on its request as `requestedBy: mcp:<client>`; the first client's retry gets the outcome a
// person approved for it, and the tool runs once. In memory (clients named on connect) and over HTTP (named by token).
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { serve } from 'countersign/http';
import {
  clientOf,
  closeGateways,
  gatewayWithClient,
  httpClientOf,
  pausedCall,
  textOf,
} from '../../support/mcp-gateway-kit.js';

const closing: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
  await closeGateways();
});

const callOf = (client: Awaited<ReturnType<typeof clientOf>>) => (path: string) =>
  client.callTool({ name: 'delete_file', arguments: { path } }) as Promise<CallToolResult>;

describe('createMcpGateway keys calls by client', () => {
  it("never gives another client's identical call the outcome approved for the first: each asks on its own, and the first client's retry gets its result without running the tool again", async () => {
    const { gateway, log } = await gatewayWithClient({ waitMs: 50 });
    const alice = callOf(await clientOf(gateway, 'alice'));
    const mallory = callOf(await clientOf(gateway, 'mallory'));
    expect(textOf(await pausedCall(gateway.runtime, () => alice('/z')))).toMatch(/^Approval pending/);
    const [asked] = (await gateway.runtime.pending()).items;
    expect(asked).toMatchObject({
      requestedBy: 'mcp:alice',
      request: { toolName: 'delete_file', args: { path: '/z' } },
    });
    await gateway.runtime.respond(asked!.runId, {
      approvalId: asked!.request.approvalId,
      approved: true,
      approvedBy: 'paula',
    });
    expect(log.calls('delete_file')).toHaveLength(1);

    // The same call from another client is another call: asked about on its own, never answered with alice's result.
    expect(textOf(await pausedCall(gateway.runtime, () => mallory('/z')))).toMatch(/^Approval pending/);
    const { items } = await gateway.runtime.pending();
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ requestedBy: 'mcp:mallory' });
    expect(items[0]!.runId).not.toBe(asked!.runId);

    // Alice's retry gets what was approved for her, and nothing runs twice.
    expect(await alice('/z')).toEqual({ content: [{ type: 'text', text: 'deleted /z' }] });
    expect(log.calls('delete_file')).toHaveLength(1);
    expect((await gateway.runtime.pending()).items.map((item) => item.requestedBy)).toEqual(['mcp:mallory']);
  });

  it("over HTTP names each client by its token: requestedBy on the request, its own calls, and no way into another client's session", async () => {
    const tokens = { alice: 'alice-token-0123456789abcdef', bob: 'bob-token-0123456789abcdefgh' };
    const { gateway } = await gatewayWithClient({ waitMs: 50, clientTokens: tokens });
    const server = await serve({ fetch: gateway.fetch }, { port: 0 });
    closing.push(() => server.close());
    const endpoint = new URL(`${server.url}/mcp`);
    const alice = await httpClientOf(endpoint, tokens.alice);
    const bob = await httpClientOf(endpoint, tokens.bob);
    expect(
      textOf(
        (await pausedCall(gateway.runtime, () =>
          alice.client.callTool({ name: 'delete_file', arguments: { path: '/h' } }),
        )) as CallToolResult,
      ),
    ).toMatch(/^Approval pending/);
    expect(
      textOf(
        (await pausedCall(gateway.runtime, () =>
          bob.client.callTool({ name: 'delete_file', arguments: { path: '/h' } }),
        )) as CallToolResult,
      ),
    ).toMatch(/^Approval pending/);
    expect((await gateway.runtime.pending()).items.map((item) => item.requestedBy).sort()).toEqual([
      'mcp:alice',
      'mcp:bob',
    ]);
    const intruding = await fetch(endpoint, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${tokens.bob}`,
        'mcp-session-id': alice.transport.sessionId!,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
    });
    expect(intruding.status).toBe(404);
  });
});
