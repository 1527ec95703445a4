// One SDK `Server` of the gateway for one client: it lists the upstream's tools as the gateway offers them and answers
// each tools/call through the gateway's calls.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  type CallToolResult,
  CallToolRequestSchema,
  type CreateTaskResult,
  type ServerNotification,
  type ServerRequest,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type Tool as McpToolListing,
} from '@modelcontextprotocol/sdk/types.js';
import type { CallOptions } from './gateway-calls.js';
import { type LinkPageSettings, linkPageAsk } from './gateway-link-elicitation.js';
import { CancellableTaskStore } from './gateway-task-store.js';
import type { McpConnection } from './mcp-connection.js';
import { traceparentSchema } from '../kit/index.js';

export interface GatewayServerSettings {
  readonly connection: McpConnection;
  /** Answers one tools/call of `client`. */
  readonly call: (
    client: string,
    tool: string,
    args: Record<string, unknown>,
    options: CallOptions,
  ) => Promise<CallToolResult>;
  /** Where a client that takes URL-mode elicitation is sent to approve (the gateway's links and approval app). */
  readonly linkPage: LinkPageSettings | undefined;
  /** Marks an HTTP session busy while a call of it runs; returns the function that ends that. */
  readonly busy: (sessionId: string | undefined) => () => void;
}

/**
 * The upstream's listings the gateway offers, under the names it offers them by (prefix included). Every tool may be
 * called as a task: the gateway, not the upstream, runs the task, whatever the upstream supports.
 */
export function gatewayListings(connection: McpConnection): McpToolListing[] {
  const offered = new Set(connection.tools.map((tool) => tool.name));
  return connection.serverTools
    .map((listing) => ({
      ...listing,
      name: `${connection.prefix}${listing.name}`,
      execution: { ...listing.execution, taskSupport: 'optional' as const },
    }))
    .filter((listing) => offered.has(listing.name));
}

/** How long a task waits for its run when the client asked no TTL, and the longest it waits at all. */
const TASK_WAIT_MS = 86_400_000;

/** A new `Server` for the client named `client`, not yet connected to a transport. */
export function gatewayServer({ connection, call, busy, linkPage }: GatewayServerSettings, client: string): Server {
  const taskStore = new CancellableTaskStore();
  const server = new Server(
    { name: `countersign-gateway-${connection.name}`, version: '0.1.0' },
    {
      capabilities: {
        tools: { listChanged: true },
        tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
      },
      taskStore,
    },
  );
  const closed = server.onclose;
  server.onclose = () => {
    taskStore.cleanup();
    closed?.();
  };
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: gatewayListings(connection) }));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    const { name, arguments: args = {} } = request.params;
    if (!connection.tools.some((tool) => tool.name === name)) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `Unknown tool ${name}; the tools are: ${
          gatewayListings(connection)
            .map((listing) => listing.name)
            .join(', ') || '(none)'
        }.`,
      );
    }
    // The client's trace, when it sent a well-formed one: the run's spans continue it (and so does the upstream's).
    const traceparent = traceparentSchema.safeParse(request.params._meta?.['traceparent']).data;
    if (request.params.task !== undefined && extra.taskStore !== undefined)
      return callAsTask(
        { call, busy, taskStore },
        { client, name, args, traceparent, ttl: request.params.task.ttl },
        extra,
      );
    const done = busy(extra.sessionId);
    const asker = linkPage === undefined ? undefined : linkPageAsk(linkPage, server, extra);
    return call(client, name, args, { signal: extra.signal, traceparent, asker }).finally(done);
  });
  return server;
}

/**
 * A tools/call the client asked to run as a task: the task is created and answered at once; the call waits for its
 * run (the person's decision, then the upstream) and stores its answer as the task's result. Cancelling the task
 * withdraws the call's request.
 */
async function callAsTask(
  { call, busy, taskStore }: Pick<GatewayServerSettings, 'call' | 'busy'> & { taskStore: CancellableTaskStore },
  asked: {
    client: string;
    name: string;
    args: Record<string, unknown>;
    traceparent?: string | undefined;
    ttl?: number | undefined;
  },
  extra: RequestHandlerExtra<ServerRequest, ServerNotification>,
): Promise<CreateTaskResult> {
  const tasks = extra.taskStore!;
  const task = await tasks.createTask({ ttl: asked.ttl ?? TASK_WAIT_MS, pollInterval: 1000 });
  const done = busy(extra.sessionId);
  const cancelled = taskStore.cancelled(task.taskId);
  void call(asked.client, asked.name, asked.args, {
    signal: cancelled,
    traceparent: asked.traceparent,
    detachedMs: Math.min(asked.ttl ?? TASK_WAIT_MS, TASK_WAIT_MS),
  })
    .then((result) => (cancelled.aborted ? undefined : tasks.storeTaskResult(task.taskId, 'completed', result)))
    .catch(() => undefined)
    .finally(() => {
      taskStore.settled(task.taskId);
      done();
    });
  return { task };
}
