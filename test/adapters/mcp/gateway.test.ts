// The approval gateway driven by the SDK's own MCP client, in front of the fixture MCP server (which logs every call
// it receives): what is forwarded, what is not, and what a client that retries sees.
import { afterEach, describe, expect, it } from 'vitest';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { ConfigError } from 'countersign';
import { createApprovalApp, serve } from 'countersign/http';
import { createMcpGateway, mcpGatewayAgent } from 'countersign/mcp';
import { closeGateways, gatewayWithClient, nextPending, pausedCall, textOf } from '../../support/mcp-gateway-kit.js';

afterEach(closeGateways);

describe('createMcpGateway', () => {
  it('lists the upstream tools as the upstream gives them, and forwards an approved call exactly once', async () => {
    const { gateway, log, client, call } = await gatewayWithClient({ waitMs: 10_000 });
    const { tools } = await client.listTools();
    expect(tools.find((tool) => tool.name === 'delete_file')).toMatchObject({
      description: 'Delete a file',
      annotations: { title: 'Delete a file', destructiveHint: true, readOnlyHint: false },
      inputSchema: { type: 'object', required: ['path'] },
    });
    const answer = call('delete_file', { path: '/a' });
    const { runId, request } = await nextPending(gateway.runtime);
    expect(request).toMatchObject({ toolName: 'delete_file', args: { path: '/a' }, connector: 'fixture' });
    await gateway.runtime.respond(runId, { approvalId: request.approvalId, approved: true, approvedBy: 'alice' });
    expect(await answer).toEqual({ content: [{ type: 'text', text: 'deleted /a' }] });
    expect(log.calls('delete_file')).toEqual([{ tool: 'delete_file', args: { path: '/a' } }]);
    expect((await gateway.runtime.get(runId)).audit).toMatchObject([
      { decision: 'approved', by: 'alice', source: 'human' },
    ]);
  });

  it('never forwards a denied call, and tells the client who denied it and why', async () => {
    const { gateway, log, call } = await gatewayWithClient({ waitMs: 10_000 });
    const answer = call('delete_file', { path: '/etc' });
    const { runId, request } = await nextPending(gateway.runtime);
    await gateway.runtime.respond(runId, {
      approvalId: request.approvalId,
      approved: false,
      approvedBy: 'bob',
      reason: 'not the system folder',
    });
    const result = await answer;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^Denied by bob: not the system folder\. The call was not made\. Do not retry it/);
    expect(log.calls('delete_file')).toEqual([]);
  });

  it('answers "pending" when the decision takes longer than waitMs; a retried identical call asks no second time and gets the decision', async () => {
    const { gateway, log, call } = await gatewayWithClient({ waitMs: 100 });
    const [first, concurrent] = await pausedCall(gateway.runtime, () =>
      Promise.all([call('delete_file', { path: '/b' }), call('delete_file', { path: '/b' })]),
    );
    const { items } = await gateway.runtime.pending();
    expect(items).toHaveLength(1);
    const { runId, request } = items[0]!;
    const pendingText = `Approval pending (approval id ${request.approvalId}); a person has been asked. Call this tool again with the same arguments to get the decision.`;
    expect(first).toEqual({ isError: true, content: [{ type: 'text', text: pendingText }] });
    expect(concurrent).toEqual(first);
    expect(textOf(await call('delete_file', { path: '/b' }))).toBe(pendingText);
    expect((await gateway.runtime.pending()).items).toHaveLength(1);
    // Recorded only, as a process without the upstream records it: the retry carries the run on here.
    await gateway.runtime.respond(
      runId,
      { approvalId: request.approvalId, approved: true, approvedBy: 'carol' },
      { mode: 'record' },
    );
    expect(log.calls('delete_file')).toEqual([]);
    expect(await call('delete_file', { path: '/b' })).toEqual({ content: [{ type: 'text', text: 'deleted /b' }] });
    expect(log.calls('delete_file')).toHaveLength(1);
  });

  it('asks again for an identical call made after the first was answered', async () => {
    const { gateway, log, call } = await gatewayWithClient({ waitMs: 10_000 });
    const approveNext = async () => {
      const { runId, request } = await nextPending(gateway.runtime);
      await gateway.runtime.respond(runId, { approvalId: request.approvalId, approved: true });
      return runId;
    };
    const [firstResult, firstRun] = await Promise.all([call('delete_file', { path: '/c' }), approveNext()]);
    const [secondResult, secondRun] = await Promise.all([call('delete_file', { path: '/c' }), approveNext()]);
    expect(textOf(firstResult)).toBe('deleted /c');
    expect(textOf(secondResult)).toBe('deleted /c');
    expect(secondRun).not.toBe(firstRun);
    expect(log.calls('delete_file')).toHaveLength(2);
  });

  it('answers an expired approval as a tool error, and never forwards it', async () => {
    const { log, call } = await gatewayWithClient({ waitMs: 10_000, approvalTtlMs: 300 });
    const result = await call('delete_file', { path: '/d' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^Nobody approved this call before its approval expired.*Do not retry it/);
    expect(log.calls('delete_file')).toEqual([]);
  });

  it('answers a dismissed request as a tool error saying nobody decided, and never forwards it', async () => {
    const { gateway, log, call } = await gatewayWithClient({ waitMs: 10_000 });
    const dismiss = async () => {
      const { runId, request } = await nextPending(gateway.runtime);
      await gateway.runtime.respond(runId, {
        approvalId: request.approvalId,
        approved: false,
        dismissed: true,
        approvedBy: 'carol',
      });
    };
    const [result] = await Promise.all([call('delete_file', { path: '/e' }), dismiss()]);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(
      /^Nobody decided on this call: carol closed the request without approving or denying it\..*Do not retry it/,
    );
    expect(log.calls('delete_file')).toEqual([]);
  });

  it('applies policy rules: allowed calls go through at once, a denying rule refuses with its reason', async () => {
    const { gateway, log, call } = await gatewayWithClient({
      policy: {
        rules: [
          { tool: 'read_*', action: 'allow' },
          { id: 'no-deletes', tool: 'delete_*', action: 'deny', reason: 'deletes are off this week' },
        ],
      },
    });
    expect(await call('read_file', { path: '/r' })).toEqual({ content: [{ type: 'text', text: 'contents of /r' }] });
    const refused = await call('delete_file', { path: '/r' });
    expect(textOf(refused)).toMatch(/^Refused by the approval policy \(rule no-deletes\): deletes are off this week\./);
    expect(log.calls()).toEqual([{ tool: 'read_file', args: { path: '/r' } }]);
    expect((await gateway.runtime.pending()).items).toEqual([]);
  });

  it("passes the upstream's results through: structured output, images, errors; invalid arguments never leave", async () => {
    const { log, call } = await gatewayWithClient({ policy: { default: 'allow' } });
    expect(await call('weather', { city: 'Oslo' })).toEqual({
      content: [{ type: 'text', text: '{"city":"Oslo","tempC":21}' }],
      structuredContent: { city: 'Oslo', tempC: 21 },
    });
    const screenshot = await call('screenshot', {});
    expect(screenshot.content).toMatchObject([
      { type: 'text', text: 'the screen' },
      { type: 'image', mimeType: 'image/png' },
    ]);
    const failed = await call('fail', {});
    expect(failed.isError).toBe(true);
    expect(textOf(failed)).toContain('the disk is full');
    const invalid = await call('read_file', { path: '' });
    expect(invalid.isError).toBe(true);
    expect(textOf(invalid)).toContain('Invalid arguments for read_file');
    expect(log.calls().map((entry) => entry['tool'])).toEqual(['weather', 'screenshot', 'fail']);
  });

  it('refuses a tool the upstream does not offer, and follows its list_changed', async () => {
    const { client, call } = await gatewayWithClient({ policy: { default: 'allow' } });
    await expect(client.callTool({ name: 'nope', arguments: {} })).rejects.toThrow(/Unknown tool nope/);
    const changed = new Promise<void>((resolve) =>
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()),
    );
    expect(textOf(await call('add_tool', { name: 'echo_x' }))).toBe('added');
    await changed;
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('echo_x');
    expect(await call('echo_x', { q: 'hi' })).toEqual({ content: [{ type: 'text', text: 'echo_x:hi' }] });
  });

  it('takes the decision from the HTTP approval app over a real socket', async () => {
    const { gateway, call } = await gatewayWithClient({ waitMs: 10_000 });
    const token = 'gateway-test-token-0123456789';
    const server = await serve(createApprovalApp(gateway.runtime, { bearerToken: token }), { port: 0 });
    try {
      const answer = call('delete_file', { path: '/h' });
      const { runId, request } = await nextPending(gateway.runtime);
      const response = await fetch(`${server.url}/runs/${runId}/approvals/${request.approvalId}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ approved: false, approvedBy: 'dana', reason: 'use the trash instead' }),
      });
      expect(response.status).toBe(200);
      expect(textOf(await answer)).toMatch(/^Denied by dana: use the trash instead\./);
    } finally {
      await server.close();
    }
  });

  it('refuses unknown options by name before connecting', async () => {
    const error = await createMcpGateway({ name: 'x', command: 'does-not-exist', waitMS: 5 } as never).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/^createMcpGateway: options has an unknown option waitMS\./);
    const zero = await createMcpGateway({ name: 'x', command: 'does-not-exist', maxSessions: 0 }).catch(
      (caught: unknown) => caught,
    );
    expect(zero).toBeInstanceOf(ConfigError);
    expect((zero as Error).message).toContain('maxSessions');
    expect(() => mcpGatewayAgent({ name: 'files', secret: 'x' } as never)).toThrow(
      /^mcpGatewayAgent: options has an unknown option secret\./,
    );
  });
});
