// The gateway asking the standard way: an MCP client (the SDK's own Client over real loopback HTTP) that declared
// URL-mode elicitation gets one elicitation/create pointing at countersign's link page for its call's approval, and
// its call waits for a person. The client's accept, decline or cancel is a hint: it never decides the call; a link
// token is spent once and decides only the call it was minted for.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  type CallToolResult,
  ElicitationCompleteNotificationSchema,
  ElicitRequestSchema,
  type ElicitRequestURLParams,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createApprovalApp, serve } from 'countersign/http';
import type { McpGatewaySettings } from 'countersign/mcp';
import { freePort } from '../../support/free-port.js';
import { closeGateways, gatewayWithClient, pausedCall, textOf } from '../../support/mcp-gateway-kit.js';

const token = 'alice-mcp-token-0123456789';
const closing: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
  await closeGateways();
});

/** The gateway and its approval app on one loopback port: /mcp for clients, the rest for people. */
async function servedGateway(settings: McpGatewaySettings = {}) {
  const port = await freePort();
  const approvalUrl = `http://127.0.0.1:${port}`;
  const { gateway, log } = await gatewayWithClient({
    clientTokens: { alice: token, bob: 'bob-mcp-token-0123456789' },
    links: { secret: 'link-secret-0123456789abcdef' },
    approvalUrl,
    ...settings,
  });
  const app = createApprovalApp(gateway.runtime, { bearerToken: 'approver-token-0123456789' });
  const server = await serve(
    {
      fetch: (request: Request) =>
        new URL(request.url).pathname === '/mcp' ? gateway.fetch(request) : app.fetch(request),
    },
    { port },
  );
  closing.push(() => server.close());
  return { gateway, log, endpoint: new URL(`${approvalUrl}/mcp`), approvalUrl };
}

/** An SDK client that declared URL-mode elicitation and answers each elicitation with `answer`. */
async function elicitingClient(endpoint: URL, answer: ElicitResult['action'], bearer = token) {
  const asked: ElicitRequestURLParams[] = [];
  const completed: string[] = [];
  let onAsked: (() => void) | undefined;
  const client = new Client({ name: 'eliciting', version: '1.0.0' }, { capabilities: { elicitation: { url: {} } } });
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    asked.push(request.params as ElicitRequestURLParams);
    onAsked?.();
    return { action: answer };
  });
  client.setNotificationHandler(ElicitationCompleteNotificationSchema, (note) => {
    completed.push(note.params.elicitationId);
  });
  await client.connect(
    new StreamableHTTPClientTransport(endpoint, { requestInit: { headers: { authorization: `Bearer ${bearer}` } } }),
  );
  closing.push(() => client.close());
  const call = (name: string, args: Record<string, unknown>) =>
    client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
  /** Resolves once the client was sent `count` elicitations. */
  const askedTimes = (count: number) =>
    new Promise<void>((resolve) => {
      onAsked = () => asked.length >= count && resolve();
      onAsked();
    });
  return { client, call, asked, completed, askedTimes };
}

/** A person deciding on the link page: the form's POST, as the browser sends it. */
const decideOnPage = (url: string) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' });

describe('createMcpGateway: approvals through URL-mode elicitation', () => {
  it('sends the link page of the call, waits past waitMs for the person, and answers the upstream result once', async () => {
    const { gateway, log, endpoint, approvalUrl } = await servedGateway({ waitMs: 0 });
    const alice = await elicitingClient(endpoint, 'accept');
    const answer = alice.call('delete_file', { path: '/tmp/a' });
    await alice.askedTimes(1);
    const [elicitation] = alice.asked;
    expect(elicitation).toMatchObject({ mode: 'url', message: expect.stringContaining('delete_file') });
    expect(elicitation!.url.startsWith(`${approvalUrl}/links/`)).toBe(true);

    // The client accepted: that opened a page, it decided nothing.
    const [pending] = (await gateway.runtime.pending()).items;
    expect(pending).toMatchObject({ request: { toolName: 'delete_file' }, requestedBy: 'mcp:alice' });
    expect(log.calls('delete_file')).toEqual([]);

    const page = await fetch(elicitation!.url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('/tmp/a');
    expect((await decideOnPage(elicitation!.url)).status).toBeLessThan(300);

    const result = await answer;
    expect(result.isError).not.toBe(true);
    expect(textOf(result)).toBe('deleted /tmp/a');
    expect(log.calls('delete_file')).toHaveLength(1);
    expect(alice.completed).toEqual([elicitation!.elicitationId]);
    const run = await gateway.runtime.get(pending!.runId);
    expect(run.audit.find((entry) => entry.decision === 'approved')).toMatchObject({
      source: 'human',
      by: 'link:approve',
    });
  });

  it.each(['decline', 'cancel'] as const)(
    "a client's %s decides nothing: the call answers pending, the approval stays open, and a person's later approval reaches the upstream once",
    async (action) => {
      const { gateway, log, endpoint } = await servedGateway();
      const alice = await elicitingClient(endpoint, action);
      const first = await alice.call('delete_file', { path: '/tmp/b' });
      expect(first.isError).toBe(true);
      expect(textOf(first)).toMatch(/^Approval pending \(approval id apr_/);
      const [pending] = (await gateway.runtime.pending()).items;
      expect((await gateway.runtime.get(pending!.runId)).status).toBe('awaitingApproval');
      expect(log.calls('delete_file')).toEqual([]);

      // Decided on the page the client declined to open (any surface would do); the retry gets the result.
      expect((await decideOnPage(alice.asked[0]!.url)).status).toBeLessThan(300);
      const retried = await alice.call('delete_file', { path: '/tmp/b' });
      expect(textOf(retried)).toBe('deleted /tmp/b');
      expect(log.calls('delete_file')).toHaveLength(1);
    },
  );

  it('a link token works once, and only for the call it was sent for', async () => {
    const { gateway, log, endpoint } = await servedGateway();
    const alice = await elicitingClient(endpoint, 'accept');
    const bob = await elicitingClient(endpoint, 'accept', 'bob-mcp-token-0123456789');
    const aliceCall = alice.call('delete_file', { path: '/tmp/alice' });
    const bobCall = bob.call('delete_file', { path: '/tmp/bob' });
    await Promise.all([alice.askedTimes(1), bob.askedTimes(1)]);
    const aliceUrl = alice.asked[0]!.url;
    expect(aliceUrl).not.toBe(bob.asked[0]!.url);

    expect((await decideOnPage(aliceUrl)).status).toBeLessThan(300);
    expect(textOf(await aliceCall)).toBe('deleted /tmp/alice');
    // Replayed: refused, and nothing more runs; bob's call is still waiting for its own decision.
    const replayed = await decideOnPage(aliceUrl);
    expect(replayed.status).toBeGreaterThanOrEqual(400);
    expect(log.calls('delete_file')).toEqual([{ tool: 'delete_file', args: { path: '/tmp/alice' } }]);
    const [stillPending] = (await gateway.runtime.pending()).items;
    expect(stillPending).toMatchObject({ requestedBy: 'mcp:bob', request: { args: { path: '/tmp/bob' } } });

    // A forged token (alice's, altered) decides nothing either.
    const forged = `${aliceUrl.slice(0, -4)}AAAA`;
    expect((await decideOnPage(forged)).status).toBeGreaterThanOrEqual(400);
    expect((await decideOnPage(bob.asked[0]!.url)).status).toBeLessThan(300);
    expect(textOf(await bobCall)).toBe('deleted /tmp/bob');
  });

  it('a client without elicitation keeps the pending answer after waitMs', async () => {
    const { gateway, endpoint } = await servedGateway({ waitMs: 200 });
    const plain = new Client({ name: 'plain', version: '1.0.0' });
    await plain.connect(
      new StreamableHTTPClientTransport(endpoint, { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
    );
    closing.push(() => plain.close());
    const answer = (await pausedCall(gateway.runtime, () =>
      plain.callTool({ name: 'delete_file', arguments: { path: '/tmp/c' } }),
    )) as CallToolResult;
    expect(textOf(answer)).toMatch(/^Approval pending/);
    expect((await gateway.runtime.pending()).items).toHaveLength(1);
  });
});
