// One connected MCP client for a server address: stdio, Streamable HTTP, or the old HTTP+SSE transport for a server
// that answers Streamable HTTP's first POST with 400, 404 or 405 (what the MCP spec's backwards-compatibility section
// prescribes). Which HTTP transport worked is remembered, so a reconnect does not try the other one again.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ServerAddress } from './mcp-options.js';

const clientInfo = { name: 'countersign', version: '0.1.0' };

/** What countersign's client declares: elicitation (form and URL) only when someone answers the server's questions. */
export type ClientCapabilities = ConstructorParameters<typeof Client>[1] extends infer O
  ? O extends { capabilities?: infer C }
    ? NonNullable<C>
    : never
  : never;

/** Opens a new client for `address` each time it is called; `timeoutMs` bounds the handshake. */
export function clientOpener(
  address: ServerAddress,
  timeoutMs: number,
  capabilities: ClientCapabilities = {},
): () => Promise<Client> {
  const connect = (transport: Transport, ms: number) => connectClient(transport, ms, capabilities);
  if (address.kind === 'stdio') {
    return () =>
      connect(
        new StdioClientTransport({
          command: address.command,
          args: [...address.args],
          ...(address.env === undefined ? {} : { env: { ...address.env } }),
          ...(address.cwd === undefined ? {} : { cwd: address.cwd }),
        }),
        timeoutMs,
      );
  }
  const requestInit = { headers: { ...address.headers } };
  let legacy = false;
  return async () => {
    if (legacy)
      return connect(
        new SSEClientTransport(address.url, { requestInit, eventSourceInit: { fetch: withHeaders(address.headers) } }),
        timeoutMs,
      );
    try {
      // The transport's own stream reconnects are left out: a lost stream means a lost server here, and the
      // connection's backoff (with its statuses) takes over.
      return await connect(
        new StreamableHTTPClientTransport(address.url, { requestInit, reconnectionOptions: noStreamRetries }),
        timeoutMs,
      );
    } catch (error) {
      if (!(error instanceof StreamableHTTPError) || ![400, 404, 405].includes(error.code ?? 0)) throw error;
      legacy = true;
      return connect(
        new SSEClientTransport(address.url, { requestInit, eventSourceInit: { fetch: withHeaders(address.headers) } }),
        timeoutMs,
      );
    }
  };
}

const noStreamRetries = {
  maxRetries: 0,
  initialReconnectionDelay: 0,
  maxReconnectionDelay: 0,
  reconnectionDelayGrowFactor: 1,
};

async function connectClient(
  transport: Transport,
  timeoutMs: number,
  capabilities: ClientCapabilities,
): Promise<Client> {
  const client = new Client(clientInfo, { capabilities });
  await client.connect(transport, { timeout: timeoutMs });
  return client;
}

/** The SSE transport's GET goes through EventSource, which takes headers only through its fetch. */
function withHeaders(headers: Readonly<Record<string, string>>): typeof fetch {
  return (input, init) => {
    const merged = new Headers(init?.headers);
    for (const [name, value] of Object.entries(headers)) merged.set(name, value);
    return fetch(input, { ...init, headers: merged });
  };
}
