// One SDK `Server` of the gateway for one client: it lists the upstream's tools as the gateway offers them and answers
// each tools/call through the gateway's calls.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  type CallToolResult,
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type Tool as McpToolListing,
} from '@modelcontextprotocol/sdk/types.js';
import type { CallOptions } from './gateway-calls.js';
import { type LinkPageSettings, linkPageAsk } from './gateway-link-elicitation.js';
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

/** The upstream's listings the gateway offers, under the names it offers them by (prefix included). */
export function gatewayListings(connection: McpConnection): McpToolListing[] {
  const offered = new Set(connection.tools.map((tool) => tool.name));
  return connection.serverTools
    .map((listing) => ({ ...listing, name: `${connection.prefix}${listing.name}` }))
    .filter((listing) => offered.has(listing.name));
}

/** A new `Server` for the client named `client`, not yet connected to a transport. */
export function gatewayServer({ connection, call, busy, linkPage }: GatewayServerSettings, client: string): Server {
  const server = new Server(
    { name: `countersign-gateway-${connection.name}`, version: '0.1.0' },
    { capabilities: { tools: { listChanged: true } } },
  );
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
    const done = busy(extra.sessionId);
    // The client's trace, when it sent a well-formed one: the run's spans continue it (and so does the upstream's).
    const traceparent = traceparentSchema.safeParse(request.params._meta?.['traceparent']).data;
    const asker = linkPage === undefined ? undefined : linkPageAsk(linkPage, server, extra);
    return call(client, name, args, { signal: extra.signal, traceparent, asker }).finally(done);
  });
  return server;
}
