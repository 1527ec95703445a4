// A connection to one MCP server as countersign uses it: the server's tools as countersign tools (a ToolSource the
// agent re-reads each turn), kept up to date on notifications/tools/list_changed and on every reconnect, its status,
// and raw calls for those who want the server's own results.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  type CallToolResult,
  ElicitRequestSchema,
  type Tool as McpToolListing,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { ConfigError, ConnectorUnavailableError } from '../errors.js';
import type { AnyTool, ToolSource, ConnectorStatus } from '../index.js';
import { checkNamedTools } from './approval-setting.js';
import { callThrough } from './call-through.js';
import type { McpArguments } from './input-schema.js';
import { Listeners, type McpLink } from './mcp-link.js';
import type { McpElicitationOptions, ToolSettings } from './mcp-options.js';
import { elicitationHandler } from './upstream-elicitation.js';
import { mcpTool, type ToolHost, trustedIdempotent, usableToolName } from './mcp-tool.js';

/**
 * A connected MCP server. Give it to `createAgent({ tools: [connection] })`:
 * the agent offers the model the server's tools as they are at each turn.
 *
 * @example
 * const github = await connectMcpServer({ name: 'github', url: 'https://mcp.example.com/mcp', requireApproval: ['create_issue'] });
 * const stop = github.on('status', (status) => console.log('github is', status));
 * const agent = createAgent({ name: 'triage', model, tools: [github] });
 */
export interface McpConnection extends ToolSource {
  /** The server's name, also its tools' `connector`. */
  readonly name: string;
  /** What goes before each of the server's tool names in `tools` (`''` for none). */
  readonly prefix: string;
  readonly status: ConnectorStatus;
  /** The countersign tools, a new array whenever the server's tools change. */
  readonly tools: readonly AnyTool[];
  /** The server's own listings of the tools offered (after `toolNames`). */
  readonly serverTools: readonly McpToolListing[];
  /** Listens for status changes or a new tool list; returns the function that stops listening. */
  on(event: 'status', listener: (status: ConnectorStatus) => void): () => void;
  on(event: 'tools', listener: (tools: readonly AnyTool[]) => void): () => void;
  /**
   * Calls a tool by the server's name for it and answers the server's raw
   * result (an `isError` result included). Waits up to `callTimeoutMs`, for
   * the server to come back included; then throws `ConnectorUnavailableError`
   * (not sent) or `OutcomeUnknownError` (sent, cut off). A `traceparent` goes in the request's `_meta`, so the server
   * continues the caller's trace.
   */
  callTool(
    toolName: string,
    args?: McpArguments,
    options?: { readonly signal?: AbortSignal; readonly traceparent?: string },
  ): Promise<CallToolResult>;
  /** Lists the server's tools again (also done on list_changed and on every reconnect). */
  refresh(): Promise<void>;
  /** Stops listening and reconnecting; closes the client countersign opened (never an app's own). */
  close(): Promise<void>;
}

/** Has people answer the server's `elicitation/create` on `client`, which must have declared elicitation. */
function answerElicitations(where: string, client: Client, name: string, options: McpElicitationOptions): void {
  try {
    client.setRequestHandler(ElicitRequestSchema, elicitationHandler(name, options));
  } catch (error) {
    throw new ConfigError(
      `${where}: elicitations needs a client that declares them (${(error as Error).message}): new Client(info, { capabilities: { elicitation: { form: {}, url: {} } } }).`,
    );
  }
}

/** Pages of a tool list read at most: a server whose cursor never ends is refused, not read forever. */
const MAX_TOOL_PAGES = 100;

/** The connection over `link`, made by `open(ready)`, which runs `ready` on each new client before it counts as connected. */
export async function openConnection(
  where: string,
  settings: ToolSettings,
  open: (ready: (client: Client) => Promise<void>) => Promise<McpLink>,
): Promise<McpConnection> {
  const toolEvents = new Listeners<readonly AnyTool[]>();
  const catalogue = new ToolCatalogue();
  let queue: Promise<void> = Promise.resolve();
  let link: McpLink | undefined;

  const load = async (client: Client) => {
    const changed = catalogue.update(await listAllTools(client, settings.name), settings, host);
    if (changed && link !== undefined) toolEvents.emit(catalogue.tools);
  };

  const refreshWith = (client: Client) => {
    queue = queue.catch(() => undefined).then(() => load(client));
    return queue;
  };

  const ready = async (client: Client) => {
    if (settings.elicitations !== undefined) answerElicitations(where, client, settings.name, settings.elicitations);
    // Refreshes when the server says its tools changed; a failure there is a lost connection, which reconnects and lists again.
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => refreshWith(client).catch(() => undefined));
    await refreshWith(client);
  };

  const host = {
    get status() {
      return link?.status ?? 'connecting';
    },
    offers: (toolName: string) => catalogue.offered.has(toolName),
    callTool: (
      toolName: string,
      args: McpArguments,
      options: { readonly signal?: AbortSignal; readonly traceparent?: string },
    ) => {
      const listing = catalogue.listings.find((item) => item.name === toolName);
      if (listing === undefined)
        throw new ConfigError(
          `MCP server ${settings.name} offers no tool ${toolName} (it offers: ${[...catalogue.offered].join(', ') || '(none)'}).`,
        );
      return callThrough(link!, { name: settings.name, timeoutMs: settings.callTimeoutMs }, toolName, args, {
        signal: options.signal,
        idempotent: trustedIdempotent(settings, listing),
        traceparent: options.traceparent,
      });
    },
  };

  link = await open(ready);
  try {
    checkListedNames(where, settings, catalogue);
  } catch (error) {
    await link.close();
    throw error;
  }
  const connected = link;

  return {
    name: settings.name,
    prefix: settings.prefix,
    get status() {
      return connected.status;
    },
    get tools() {
      return catalogue.tools;
    },
    get serverTools() {
      return catalogue.listings;
    },
    on: ((event: 'status' | 'tools', listener: (value: never) => void) => {
      if (event === 'status') return connected.onStatus(listener as (status: ConnectorStatus) => void);
      if (event === 'tools') return toolEvents.add(listener as (tools: readonly AnyTool[]) => void);
      throw new ConfigError(`${where}: connection.on takes 'status' or 'tools', not ${JSON.stringify(event)}.`);
    }) as McpConnection['on'],
    callTool: async (toolName, args = {}, options = {}) => host.callTool(toolName, args, options),
    refresh: async () => {
      const client = connected.client;
      if (client === undefined) {
        const status = connected.status === 'connected' ? 'disconnected' : connected.status;
        throw new ConnectorUnavailableError(
          settings.name,
          status,
          `connector ${settings.name} is ${status}; its tools cannot be listed now.`,
        );
      }
      await refreshWith(client);
    },
    close: () => connected.close(),
  };
}

/** The server's tools as last listed: their listings (after `toolNames`), as countersign tools, and the names the core cannot take. */
class ToolCatalogue {
  listings: readonly McpToolListing[] = [];
  unusable: readonly string[] = [];
  tools: readonly AnyTool[] = [];
  offered = new Set<string>();
  allNames: readonly string[] = [];
  #listed = '';

  /** Takes the server's full list; answers whether the tools offered changed. */
  update(all: readonly McpToolListing[], settings: ToolSettings, host: ToolHost): boolean {
    this.allNames = all.map((listing) => listing.name);
    const wanted =
      settings.toolNames === undefined ? all : all.filter((listing) => settings.toolNames!.includes(listing.name));
    const key = JSON.stringify(wanted);
    if (key === this.#listed) return false;
    this.#listed = key;
    this.listings = Object.freeze(wanted);
    this.offered = new Set(wanted.map((listing) => listing.name));
    // A name the core cannot take is refused when the connection is made; one a server adds later is left out.
    this.unusable = wanted
      .map((listing) => `${settings.prefix}${listing.name}`)
      .filter((name) => !usableToolName.test(name));
    this.tools = Object.freeze(
      wanted
        .filter((listing) => usableToolName.test(`${settings.prefix}${listing.name}`))
        .map((listing) => mcpTool(listing, settings, host)),
    );
    return true;
  }
}

/** Every page of the server's tool list (at most `MAX_TOOL_PAGES`). */
async function listAllTools(client: Client, name: string): Promise<McpToolListing[]> {
  const all: McpToolListing[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages === 0 || cursor !== undefined; pages++) {
    if (pages === MAX_TOOL_PAGES) {
      throw new ConnectorUnavailableError(
        name,
        'failed',
        `connector ${name} lists its tools on more than ${MAX_TOOL_PAGES} pages; check the server.`,
      );
    }
    const page = await client.listTools(cursor === undefined ? {} : { cursor });
    all.push(...page.tools);
    cursor = page.nextCursor;
  }
  return all;
}

/** Throws `ConfigError` when a tool named in the settings is not the server's, or a listed name is not usable. */
function checkListedNames(where: string, settings: ToolSettings, catalogue: ToolCatalogue): void {
  checkNamedTools(where, settings, catalogue.allNames);
  if (catalogue.unusable.length > 0) {
    throw new ConfigError(
      `${where}: the tool name ${catalogue.unusable[0]} is not usable (1 to 128 letters, digits, "_", "-" or "."); leave it out with toolNames, or choose another prefix.`,
    );
  }
}
