import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ConfigError, ConnectorUnavailableError } from '../errors.js';
import { clientLink } from './mcp-link.js';
import { type McpConnection, openConnection } from './mcp-connection.js';
import { type McpServerOptions, type McpToolOptions, readServerOptions, readToolOptions } from './mcp-options.js';
import { clientOpener } from './open-client.js';
import { reconnectingLink } from './reconnecting-link.js';

/**
 * Connects to an MCP server (started over stdio, or over HTTP) and resolves
 * once its tools are listed. A lost connection is made again with backoff;
 * the tools' `connectorStatus` and `on('status')` report where it stands.
 * Throws a `ConfigError` for bad options, for a `toolNames` or
 * `requireApproval` entry the server does not offer, and a
 * `ConnectorUnavailableError` when the first connection fails.
 *
 * @example
 * const files = await connectMcpServer({
 *   name: 'files',
 *   command: 'npx',
 *   args: ['-y', '@modelcontextprotocol/server-filesystem', '/srv/data'],
 *   requireApproval: ['write_file', 'move_file'],
 * });
 * const agent = createAgent({ name: 'clerk', model, tools: [files] });
 */
export async function connectMcpServer(options: McpServerOptions): Promise<McpConnection> {
  const { address, tools, reconnect } = readServerOptions(options);
  // Starting a server (npx, a container) can take longer than a call may: the handshake gets at least 10 s.
  const open = clientOpener(
    address,
    Math.max(tools.callTimeoutMs, 10_000),
    tools.elicitations === undefined ? {} : { elicitation: { form: {}, url: {} } },
  );
  return openConnection('connectMcpServer', tools, async (ready) => {
    try {
      return await reconnectingLink({ open, ready, reconnect, pingTimeoutMs: tools.callTimeoutMs });
    } catch (error) {
      const where = address.kind === 'stdio' ? `command ${address.command}` : address.url.host;
      throw new ConnectorUnavailableError(
        tools.name,
        'disconnected',
        `connectMcpServer: could not connect to MCP server ${tools.name} (${where}): ${(error as Error).message}`,
        {
          cause: error,
        },
      );
    }
  });
}

/**
 * The tools of an MCP server through a `Client` the app connected itself.
 * The app owns the client: countersign does not reconnect or close it, and
 * replaces its handler of `notifications/tools/list_changed` to keep the
 * tools current. A call made while it is closed fails at once.
 *
 * @example
 * const client = new Client({ name: 'my-app', version: '1.0.0' });
 * await client.connect(new StreamableHTTPClientTransport(new URL('https://mcp.example.com/mcp')));
 * const crm = await mcpTools(client, { name: 'crm', requireApproval: { always: ['delete_contact'] } });
 */
export async function mcpTools(client: Client, options: McpToolOptions): Promise<McpConnection> {
  const settings = readToolOptions(options);
  if (client?.transport === undefined)
    throw new ConfigError(
      'mcpTools: the client is not connected; await client.connect(transport) first.',
      'invalid_config',
    );
  return openConnection('mcpTools', settings, async (ready) => {
    await ready(client);
    return clientLink(client);
  });
}
