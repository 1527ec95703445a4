import { randomUUID } from 'node:crypto';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type Agent, createRuntime, type LinkedRuntime, type Runtime } from '../index.js';
import { oneCallAgent, optionsObject, parseOptions } from '../kit/index.js';
import { connectMcpServer } from './connect.js';
import { gatewayAgentName } from './gateway-agent.js';
import { gatewayCalls } from './gateway-calls.js';
import { runFollower } from './gateway-follower.js';
import { httpGuard } from './gateway-http-guard.js';
import { GATEWAY_CALL_ID } from './gateway-call-id.js';
import { clientName, type McpGatewayOptions, type McpGatewaySettings, readGatewayOptions } from './gateway-options.js';
import { startRecovery } from './gateway-recovery.js';
import { gatewayServer } from './gateway-server.js';
import { gatewaySessions } from './gateway-sessions.js';
import type { McpConnection } from './mcp-connection.js';

const connectSchema = optionsObject({ client: clientName.optional() });

/**
 * An MCP server in front of another: it offers the upstream's tools and
 * forwards a `tools/call` only once the policy or a person allows it.
 *
 * @example
 * const gateway = await createMcpGateway({ name: 'files', command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/srv'] });
 * await gateway.connect(new StdioServerTransport());
 */
export interface McpGateway<R extends Runtime = Runtime> {
  /** The runtime every call is a run of: decide with `createApprovalApp(gateway.runtime)`, the CLI or a channel. */
  readonly runtime: R;
  /** The agent of those runs (named `mcp-gateway.<name>`). */
  readonly agent: Agent;
  /** The connection to the upstream server. */
  readonly connection: McpConnection;
  /**
   * Serves MCP over `transport` (stdio, or any other); each transport gets its own SDK `Server`, which is returned.
   * `client` names the one client at its other end (its calls' key and their `requestedBy`, `mcp:<client>`): name it
   * when the same client comes back over a new transport (stdio after a restart), so its retry finds its call.
   * Default: a new name for each transport.
   */
  connect(transport: Transport, options?: { readonly client?: string }): Promise<Server>;
  /**
   * Serves MCP Streamable HTTP (with sessions, so list_changed reaches the
   * clients) for a Fetch `Request`: mount it at `/mcp` of any Fetch server.
   * Each request must carry a client's token (`clientTokens`, or an OAuth
   * access token `oauth` verifies), a `Host` of `allowedHosts` and no `Origin`
   * but `allowedOrigins` or one of those hosts, within `maxBodyBytes`. With
   * `oauth`, it also serves the protected resource metadata (RFC 9728).
   */
  fetch(request: Request): Promise<Response>;
  /** Stops following and recovering runs, closes every client's session, and the upstream connection when the gateway opened it. */
  close(): Promise<void>;
}

/**
 * Puts countersign's policy, approvals, audit and channels in front of any
 * MCP server. Every `tools/call` becomes a run of one agent whose tools are
 * the upstream's, in `gateway.runtime`: allowed calls go through, calls that
 * ask wait up to `waitMs` for a person (then answer "approval pending" with
 * the approval id; the client retries the identical call to get the
 * decision, without asking again), denied and expired ones are tool errors
 * that say who refused and why. A client that declared URL-mode elicitation
 * is sent the link page of its call's approval instead (with `links` and
 * `approvalUrl`) and its call waits for the decision; a client that calls as
 * a task gets the task at once. The upstream's own questions (elicitation)
 * are asked of people in `gateway.runtime`. A call is its client's: another client's
 * identical call is asked about on its own. The gateway follows each run
 * until it ends, every `followEveryMs`, and picks up the unfinished runs of
 * its agent from its store at start and every `recoverEveryMs`: a decision
 * recorded elsewhere (mode `'record'`) is carried out and an expiry applied
 * even when no client waits, also after a restart. Throws `ConfigError` for
 * bad options and `ConnectorUnavailableError` when the upstream cannot be reached.
 *
 * @example
 * import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
 * import { createApprovalApp, serve } from 'countersign/http';
 *
 * const gateway = await createMcpGateway({
 *   name: 'github',
 *   url: 'https://mcp.example.com/mcp',
 *   policy: { rules: [{ tool: 'list_*', action: 'allow' }, { tool: 'delete_*', action: 'deny', reason: 'never from an agent' }] },
 * });
 * await serve(createApprovalApp(gateway.runtime, { bearerToken: process.env.APPROVALS_TOKEN! }), { port: 8787 });
 * await gateway.connect(new StdioServerTransport());
 */
export async function createMcpGateway(
  options: McpGatewayOptions & { readonly links: NonNullable<McpGatewayOptions['links']> },
): Promise<McpGateway<LinkedRuntime>>;
export async function createMcpGateway(options: McpGatewayOptions): Promise<McpGateway>;
export async function createMcpGateway(options: McpGatewayOptions): Promise<McpGateway> {
  const { upstream, settings } = readGatewayOptions(options);
  const owned = !('callTool' in upstream);
  // Where the policy's default is to ask, a call no rule and no requireApproval decides says why a person is asked.
  const asks = settings.policy?.default === undefined || settings.policy.default === 'ask';
  // The upstream's own questions are asked in the gateway's runtime, made once the upstream's tools are known.
  let runtime: Runtime | undefined;
  const elicitations = { runtime: () => runtime! };
  const connection = owned
    ? await connectMcpServer({
        ...(asks ? { requireApproval: askWhenNoRuleMatches } : {}),
        elicitations,
        ...upstream,
      })
    : upstream;
  const agent = gatewayAgent(connection, settings);
  runtime = gatewayRuntime(agent, settings);
  const follower = runFollower({
    runtime,
    everyMs: settings.followEveryMs ?? 1000,
    report: (error, runId) => report(settings, error, { operation: 'mcp-gateway follow', runId }),
  });
  // A call's key outlives its approval by an hour, so a retry after an expiry the follower applied still gets it.
  const keyTtlMs = settings.approvalTtlMs === undefined ? 86_400_000 : settings.approvalTtlMs + 3_600_000;
  const call = gatewayCalls({
    runtime,
    agentName: agent.name,
    waitMs: settings.waitMs ?? 25_000,
    elicitationWaitMs: settings.elicitationWaitMs ?? 600_000,
    keyTtlMs,
    follower,
  });
  const recovery = startRecovery({
    store: runtime.store,
    agentName: agent.name,
    everyMs: settings.recoverEveryMs ?? 30_000,
    follow: follower.follow,
    report: (error) => report(settings, error, { operation: 'mcp-gateway recover' }),
  });
  await recovery.started;

  const servers = new Set<Server>();
  const linkPage =
    settings.approvalUrl === undefined
      ? undefined
      : { runtime: runtime as LinkedRuntime, approvalUrl: settings.approvalUrl };
  const serverSettings = {
    connection,
    call,
    linkPage,
    busy: (sessionId: string | undefined) => sessions.busy(sessionId),
  };
  // The upstream's tools changed: every client is told, and lists them again.
  const stopListening = connection.on('tools', () => {
    for (const server of servers) void server.sendToolListChanged().catch(() => undefined);
  });
  const serve = async (transport: Transport, client: string) => {
    const server = gatewayServer(serverSettings, client);
    servers.add(server);
    const closing = server.onclose;
    server.onclose = () => {
      servers.delete(server);
      closing?.();
    };
    await server.connect(transport);
    return server;
  };
  const connect = (transport: Transport, options: { readonly client?: string } = {}) =>
    serve(
      transport,
      parseOptions(connectSchema, options, 'gateway.connect').client ?? `client-${randomUUID().slice(0, 8)}`,
    );
  const sessions = gatewaySessions({
    idleMs: settings.sessionIdleMs ?? 1_800_000,
    maxSessions: settings.maxSessions ?? 1000,
    admit: gatewayGuard(settings),
    connect: serve,
  });

  return {
    runtime,
    agent,
    connection,
    connect,
    fetch: sessions.fetch,
    async close() {
      stopListening();
      recovery.close();
      follower.close();
      await sessions.close();
      await Promise.all([...servers].map((server) => server.close()));
      if (owned) await connection.close();
    },
  };
}

/** The one agent of the gateway's runs: its tools are the upstream's, one call a run. */
function gatewayAgent(connection: McpConnection, settings: McpGatewaySettings): Agent {
  // A gateway run is one client call, as a request from outside the loop is: "approve for this run" covers nothing more.
  return oneCallAgent({
    name: gatewayAgentName(connection.name),
    callId: GATEWAY_CALL_ID,
    tools: [connection],
    ...(settings.leaseMs === undefined ? {} : { leaseMs: settings.leaseMs }),
    ...(settings.policy === undefined ? {} : { policy: settings.policy }),
    ...(settings.ruleStore === undefined ? {} : { ruleStore: settings.ruleStore }),
    ...(settings.approvalTtlMs === undefined ? {} : { approvalTtlMs: settings.approvalTtlMs }),
    ...(settings.decisionSecret === undefined ? {} : { decisionSecret: settings.decisionSecret }),
  });
}

/** The runtime of the gateway's runs, on the settings' store, notifier and links. */
function gatewayRuntime(agent: Agent, settings: McpGatewaySettings): Runtime {
  return createRuntime({
    agents: [agent],
    ...(settings.store === undefined ? {} : { store: settings.store }),
    ...(settings.notifier === undefined ? {} : { notifier: settings.notifier }),
    ...(settings.telemetry === undefined ? {} : { telemetry: settings.telemetry }),
    ...(settings.links === undefined ? {} : { links: settings.links }),
    ...(settings.onError === undefined ? {} : { onError: settings.onError }),
  });
}

/** Who may reach the gateway over HTTP: the settings' client tokens, hosts, origins and body size, or their defaults. */
function gatewayGuard(settings: McpGatewaySettings) {
  return httpGuard({
    clientTokens: settings.clientTokens ?? {},
    allowedHosts: settings.allowedHosts ?? ['localhost', '127.0.0.1', '[::1]'],
    allowedOrigins: settings.allowedOrigins ?? [],
    maxBodyBytes: settings.maxBodyBytes ?? 1_048_576,
    oauth: settings.oauth,
  });
}

/** Tells the settings' `onError` of a failure of following or recovering; a run is looked at again on the next pass. */
function report(
  settings: McpGatewaySettings,
  error: unknown,
  context: Parameters<NonNullable<McpGatewaySettings['onError']>>[1],
): void {
  try {
    settings.onError?.(error, context);
  } catch {
    // The reporter's own failure has nowhere left to go; the next pass tries again.
  }
}

/** The gateway's own default: every call no rule decides asks a person, saying that no rule matched. */
const askWhenNoRuleMatches = () => ({
  required: true,
  reason: 'no rule matched; the gateway asks for every call by default',
});
