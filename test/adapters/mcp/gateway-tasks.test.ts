// Gated calls as MCP tasks (2025-11-25, experimental in the SDK), with the SDK's own Client over real loopback HTTP:
// the client gets a task at once, polls it, and gets the upstream's result once a person approved; cancelling the
// task withdraws the call's request (nobody can approve it any longer, the upstream is never called); a task is its
// client's (another client cannot read it).
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { serve } from 'countersign/http';
import {
  closeGateways,
  gatewayWithClient,
  httpClientOf,
  nextPending,
  runEnded,
  textOf,
} from '../../support/mcp-gateway-kit.js';

const alice = 'alice-mcp-token-0123456789';
const bob = 'bob-mcp-token-0123456789';
const closing: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
  await closeGateways();
});

async function servedGateway() {
  const { gateway, log } = await gatewayWithClient({ clientTokens: { alice, bob }, waitMs: 0 });
  const server = await serve({ fetch: gateway.fetch }, { port: 0 });
  closing.push(() => server.close());
  return { gateway, log, endpoint: new URL(`${server.url}/mcp`) };
}

describe('createMcpGateway: gated calls as tasks', () => {
  it('lists every tool as taskable, answers with a task at once, and the task ends with the upstream result once a person approved', async () => {
    const { gateway, log, endpoint } = await servedGateway();
    const { client } = await httpClientOf(endpoint, alice);
    const { tools } = await client.listTools();
    expect(tools.find((tool) => tool.name === 'delete_file')?.execution).toEqual({ taskSupport: 'optional' });

    const stream = client.experimental.tasks.callToolStream(
      { name: 'delete_file', arguments: { path: '/tmp/t' } },
      CallToolResultSchema,
      { task: { ttl: 120_000 } },
    );
    const first = await stream.next();
    expect(first.value).toMatchObject({ type: 'taskCreated', task: { status: 'working' } });
    const { runId, request, requestedBy } = await nextPending(gateway.runtime);
    expect(requestedBy).toBe('mcp:alice');
    expect(log.calls('delete_file')).toEqual([]);
    await gateway.runtime.respond(runId, { approvalId: request.approvalId, approved: true, approvedBy: 'erin' });
    let result: unknown;
    for await (const message of stream) if (message.type === 'result') result = message.result;
    expect(textOf(result as never)).toBe('deleted /tmp/t');
    expect(log.calls('delete_file')).toHaveLength(1);
  });

  it("cancelling the task withdraws the call's request: nobody can approve it, the upstream is never called", async () => {
    const { gateway, log, endpoint } = await servedGateway();
    const { client } = await httpClientOf(endpoint, alice);
    const stream = client.experimental.tasks.callToolStream(
      { name: 'delete_file', arguments: { path: '/tmp/u' } },
      CallToolResultSchema,
      { task: { ttl: 120_000 } },
    );
    const created = (await stream.next()).value as { task: { taskId: string } };
    const { runId, request } = await nextPending(gateway.runtime);
    await client.experimental.tasks.cancelTask(created.task.taskId);
    expect((await runEnded(gateway.runtime, runId)).status).toBe('cancelled');
    expect((await gateway.runtime.pending()).items).toEqual([]);
    await expect(
      gateway.runtime.respond(runId, { approvalId: request.approvalId, approved: true, approvedBy: 'erin' }),
    ).rejects.toThrow();
    expect(log.calls('delete_file')).toEqual([]);
    void stream.return(undefined);
  });

  it("another client cannot read or cancel a client's task", async () => {
    const { gateway, endpoint } = await servedGateway();
    const { client } = await httpClientOf(endpoint, alice);
    const { client: other } = await httpClientOf(endpoint, bob);
    const stream = client.experimental.tasks.callToolStream(
      { name: 'delete_file', arguments: { path: '/tmp/v' } },
      CallToolResultSchema,
      { task: { ttl: 120_000 } },
    );
    const created = (await stream.next()).value as { task: { taskId: string } };
    await expect(other.experimental.tasks.getTask(created.task.taskId)).rejects.toThrow();
    await expect(other.experimental.tasks.cancelTask(created.task.taskId)).rejects.toThrow();
    const { runId } = await nextPending(gateway.runtime);
    expect((await gateway.runtime.get(runId)).status).toBe('awaitingApproval');
    void stream.return(undefined);
  });
});
