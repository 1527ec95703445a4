// The gateway as the gateway tests drive it: in front of the fixture MCP server (spawned over stdio, counting its
// calls), with the SDK's own Client connected to it in memory; a wait for the gateway's next pending approval and for
// a run's end; and a runtime of another process on the gateway's store, which can decide but has no upstream.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { vi } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  type AgentSnapshot,
  createRuntime,
  type PendingApprovalEntry,
  type Runtime,
  type SnapshotStore,
} from 'countersign';
import { createMcpGateway, type McpGateway, type McpGatewaySettings, mcpGatewayAgent } from 'countersign/mcp';
import { callLog, stdioFixture } from './mcp-fixture.js';

const open: { close(): Promise<void> }[] = [];

/** Closes every gateway and client made since the last call (for afterEach). */
export async function closeGateways(): Promise<void> {
  await Promise.all(open.splice(0).map((item) => item.close()));
}

/** A gateway in front of the fixture, its call log, and an MCP client of it. */
export async function gatewayWithClient(settings: McpGatewaySettings = {}) {
  const log = callLog();
  const gateway = await createMcpGateway({ name: 'fixture', ...stdioFixture(log.file), ...settings });
  open.push(gateway);
  const client = await clientOf(gateway);
  const call = (name: string, args: Record<string, unknown>) =>
    client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
  return { gateway, log, client, call };
}

/** A new SDK client connected to the gateway in memory, as the client named `name` when given. */
export async function clientOf(gateway: McpGateway, name?: string): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await gateway.connect(serverSide, name === undefined ? {} : { client: name });
  const client = new Client({ name: 'test-client', version: '1.0.0' });
  await client.connect(clientSide);
  open.push(client);
  return client;
}

/** A new SDK client of the gateway at `endpoint` (`…/mcp`) over Streamable HTTP, sending `token` as its bearer token. */
export async function httpClientOf(
  endpoint: URL,
  token: string,
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(endpoint, {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: 'http-client', version: '1.0.0' });
  await client.connect(transport);
  open.push(client);
  return { client, transport };
}

/** The first pending approval, once there is one. */
export async function nextPending(runtime: Runtime): Promise<PendingApprovalEntry> {
  for (;;) {
    const [first] = (await runtime.pending()).items;
    if (first !== undefined) return first;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * What `call` answers when the call pauses its run on an approval nobody decides: "Approval pending" once waitMs has
 * passed. The gateway measures waitMs by `Date`, so the clock stands still (fake `Date`, real timers) until `runtime`
 * has `paused` more approvals waiting than before, however long a busy machine takes to get there; then it runs on,
 * and the wait ends. Without it, a waitMs short enough for a test could end before the run even asked.
 */
export async function pausedCall<T>(runtime: Runtime, call: () => Promise<T>, paused = 1): Promise<T> {
  const before = (await runtime.pending()).items.length;
  vi.useFakeTimers({ toFake: ['Date'] });
  try {
    const answer = call();
    answer.catch(() => undefined);
    // A deadlock guard, not a speed assertion (on the real clock: Date stands still here).
    const guard = performance.now() + 20_000;
    while ((await runtime.pending()).items.length < before + paused) {
      if (performance.now() > guard)
        throw new Error(`The call never paused on an approval (${before} waiting before it).`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return await new Promise<T>((resolve, reject) => {
      vi.useRealTimers();
      answer.then(resolve, reject);
    });
  } finally {
    vi.useRealTimers();
  }
}

/** The text of a result's first content block. */
export function textOf(result: CallToolResult): string {
  const first = result.content[0];
  return first?.type === 'text' ? first.text : '';
}

/** The run once it ended, as the runtime that carried it on announces it. */
export function runEnded(runtime: Runtime, runId: string): Promise<AgentSnapshot> {
  return new Promise((resolve, reject) => {
    const check = () =>
      runtime.get(runId).then((run) => {
        if (run.status !== 'completed' && run.status !== 'failed' && run.status !== 'cancelled') return;
        stop();
        resolve(run);
      }, reject);
    const stop = runtime.subscribe((event) => event.runId === runId && event.type.startsWith('run-') && void check());
    void check();
  });
}

/** A runtime on `store` as an approval app in another process makes it: the gateway's agent without the upstream. */
export function deciderRuntime(gateway: McpGateway, store: SnapshotStore): Runtime {
  return createRuntime({ agents: [mcpGatewayAgent({ name: gateway.connection.name })], store });
}
