// `countersign mcp-gateway`: createMcpGateway from the command line. MCP over stdio (--serve-stdio; stdout then
// carries MCP only, everything else goes to stderr) and/or over Streamable HTTP at /mcp beside the approval app
// (--port), so a person can decide in the app's console, over its API, or from another process sharing --redis.
import { randomBytes } from 'node:crypto';
import type { Readable, Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { ConfigError } from '../errors.js';
import type { McpGateway } from '../mcp/create-gateway.js';
import type { McpGatewayOptions } from '../mcp/gateway-options.js';
import type { SnapshotStore } from '../ports/snapshot-store.js';
import { warnOfUnsignedAgents } from '../runtime/unsigned-agents-warning.js';
import { splitCommandLine } from './command-line.js';
import { formatRequest, inert } from './format.js';
import { importIoredis } from './import-ioredis.js';
import { readClientsFile } from './clients-file.js';
import { readRulesFile } from './rules-file.js';
import { UsageError } from '../errors.js';

export interface GatewayIo {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  readonly stdin: NodeJS.ReadableStream;
  readonly env: Record<string, string | undefined>;
  /** Stops the gateway (the CLI ties it to SIGINT and SIGTERM). */
  readonly signal?: AbortSignal;
}

export const GATEWAY_USAGE = `  mcp-gateway --upstream "<command line>" | --upstream-url URL --name NAME [--rules FILE] [--redis URL]
              [--prefix P] [--wait-ms N] [--lease-ms N] [--approval-ttl-ms N] [--serve-stdio] [--port N]
              [--host H --allowed-host NAME...] [--clients FILE] [--approval-url URL] [--elicitation-wait-ms N]
              [--follow-every-ms N] [--session-idle-ms N] [--max-sessions N]
                                              an MCP server in front of another: offers its tools, forwards
                                              only calls the rules or a person allow (a request expires after
                                              --approval-ttl-ms, none by default). --serve-stdio: MCP on
                                              stdin/stdout; --port: MCP at /mcp and the approval app on one
                                              port (loopback; MCP clients send the bearer token of env
                                              COUNTERSIGN_MCP_TOKEN, one is made and printed when unset; env
                                              COUNTERSIGN_APPROVALS_TOKEN and/or COUNTERSIGN_WEBHOOK_SECRET
                                              guard the app, COUNTERSIGN_LINK_SECRET enables its links,
                                              COUNTERSIGN_DECISION_SECRET signs requests). --clients: a JSON
                                              file of client name to token; --host (not loopback) only with
                                              credentials chosen (--clients or COUNTERSIGN_MCP_TOKEN), and
                                              --allowed-host for each name clients reach it by; --approval-url
                                              (with COUNTERSIGN_LINK_SECRET): clients that take URL-mode
                                              elicitation are sent the link page and wait for the decision)`;

/** The name of the MCP client over HTTP (its calls' `requestedBy` is `mcp:http`). */
const HTTP_CLIENT = 'http';

const options = {
  upstream: { type: 'string' },
  'upstream-url': { type: 'string' },
  name: { type: 'string' },
  rules: { type: 'string' },
  redis: { type: 'string' },
  prefix: { type: 'string' },
  'wait-ms': { type: 'string' },
  'lease-ms': { type: 'string' },
  'approval-ttl-ms': { type: 'string' },
  'serve-stdio': { type: 'boolean' },
  port: { type: 'string' },
  host: { type: 'string' },
  'allowed-host': { type: 'string', multiple: true },
  clients: { type: 'string' },
  'approval-url': { type: 'string' },
  'elicitation-wait-ms': { type: 'string' },
  'follow-every-ms': { type: 'string' },
  'session-idle-ms': { type: 'string' },
  'max-sessions': { type: 'string' },
} as const;

type GatewayValues = ReturnType<typeof parseArgs<{ options: typeof options }>>['values'];

/** The command line's numbers and credentials, checked. */
interface GatewayArgs {
  readonly port: number | undefined;
  readonly waitMs: number | undefined;
  readonly leaseMs: number | undefined;
  readonly approvalTtlMs: number | undefined;
  /** The gateway's settings that are plain numbers on the command line. */
  readonly tuning: Pick<McpGatewayOptions, 'elicitationWaitMs' | 'followEveryMs' | 'sessionIdleMs' | 'maxSessions'>;
  readonly mcpToken: string | undefined;
  readonly auth: { readonly bearerToken?: string; readonly webhookSecret?: string };
}

/** Runs the gateway until `io.signal` aborts or, serving stdio (with or without --port), its client closes stdin. */
export async function runMcpGateway(argv: readonly string[], io: GatewayIo): Promise<number> {
  const values = parseGatewayArgv(argv);
  const say = (text: string) => io.stderr.write(`${inert(text)}\n`);
  const args = checkGatewayArgs(values, io.env);
  const { port, auth } = args;
  const name = values.name!;
  const rules = values.rules === undefined ? undefined : await readRulesFile(values.rules);
  const clients = values.clients === undefined ? undefined : await readClientsFile(values.clients);
  const upstream = upstreamOf(values, io.env);

  const { createMcpGateway, mcpGatewayAgent } = await import('../mcp/index.js');
  const redis = values.redis === undefined ? undefined : await redisStore(values.redis, values.prefix);
  const gatewayOptions = gatewayOptionsOf(values, args, io.env, { upstream, rules, clients, store: redis?.store, say });
  // Said before the gateway's runtime would say it in code's terms (createAgent), which a command line cannot set.
  if (redis !== undefined && !gatewayOptions.decisionSecret) {
    warnOfUnsignedAgents(
      redis.store,
      [mcpGatewayAgent({ name })],
      'Set the environment variable COUNTERSIGN_DECISION_SECRET',
    );
  }
  const stops: (() => Promise<unknown>)[] = [];
  try {
    const gateway = await createMcpGateway(gatewayOptions);
    stops.push(() => gateway.close());
    gateway.runtime.subscribe((event) => {
      if (event.type === 'approval-requested')
        say(`approval requested:\n${formatRequest(event, event.request, Date.now())}`);
    });
    const stopped = new Promise<void>((resolve) => {
      if (io.signal?.aborted) resolve();
      io.signal?.addEventListener('abort', () => resolve(), { once: true });
      // Serving stdio, the gateway ends with its client, also with --port: an MCP client that started it (through npx,
      // which leaves it orphaned) closes its stdin and starts another next time, which needs the port.
      if (values['serve-stdio']) io.stdin.once('end', () => resolve());
    });
    if (port !== undefined) {
      const server = await serveHttp(gateway, { port, hostname: values.host ?? '127.0.0.1' }, auth);
      stops.unshift(() => server.close());
      sayHowToReach(
        say,
        name,
        server.url,
        args.mcpToken === undefined && clients === undefined ? gatewayOptions.clientTokens![HTTP_CLIENT] : undefined,
      );
    }
    if (values['serve-stdio']) {
      const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
      // The one client over stdio is the process that started the gateway, again after a restart: its retry finds its call.
      await gateway.connect(new StdioServerTransport(io.stdin as Readable, io.stdout as Writable), { client: 'stdio' });
      say(`mcp-gateway ${name}: MCP on stdin/stdout`);
    }
    if (port === undefined)
      say(
        `decide from a process on the same Redis, e.g. countersign pending / approve with a runtime module using mode 'record'`,
      );
    await stopped;
    return 0;
  } finally {
    for (const stop of stops) await stop().catch(() => undefined);
    await redis?.quit();
  }
}

/** The command line's options; an unknown or malformed one is a `UsageError`. */
function parseGatewayArgv(argv: readonly string[]): GatewayValues {
  try {
    return parseArgs({ args: [...argv], options, strict: true }).values;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** The options checked together (a `UsageError` says what is missing or wrong), with their numbers and the app's credentials. */
function checkGatewayArgs(values: GatewayValues, env: Record<string, string | undefined>): GatewayArgs {
  if ((values.upstream === undefined) === (values['upstream-url'] === undefined))
    throw new UsageError('mcp-gateway takes --upstream "<command line>" or --upstream-url URL (one of them)');
  if (values.name === undefined)
    throw new UsageError("mcp-gateway needs --name NAME (the upstream server's name, e.g. --name github)");
  if (values.prefix !== undefined && values.redis === undefined)
    throw new UsageError('--prefix is the Redis key prefix; it goes with --redis URL');
  const port = values.port === undefined ? undefined : Number(values.port);
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65_535))
    throw new UsageError('--port must be a port number (0 to 65535)');
  const waitMs = wholeNumber(values, 'wait-ms', 0, 'a whole number of milliseconds');
  const leaseMs = wholeNumber(values, 'lease-ms', 100, 'a whole number of milliseconds, at least 100');
  const approvalTtlMs = wholeNumber(
    values,
    'approval-ttl-ms',
    1,
    'a whole number of milliseconds, e.g. --approval-ttl-ms 3600000 (an hour)',
  );
  const tuning = {
    elicitationWaitMs: wholeNumber(values, 'elicitation-wait-ms', 0, 'a whole number of milliseconds'),
    followEveryMs: wholeNumber(values, 'follow-every-ms', 10, 'a whole number of milliseconds, at least 10'),
    sessionIdleMs: wholeNumber(values, 'session-idle-ms', 10, 'a whole number of milliseconds, at least 10'),
    maxSessions: wholeNumber(values, 'max-sessions', 1, 'a whole number, at least 1'),
  };
  const mcpToken = env['COUNTERSIGN_MCP_TOKEN'];
  if (mcpToken !== undefined && mcpToken.length < 16)
    throw new UsageError('COUNTERSIGN_MCP_TOKEN must be at least 16 characters of randomness');
  if (!values['serve-stdio'] && port === undefined)
    throw new UsageError('say how MCP clients reach the gateway: --serve-stdio, --port N, or both');
  if (port === undefined && values.redis === undefined) {
    throw new UsageError(
      'nobody could decide the calls: add --port N (the approval app) or --redis URL (decide from another process on the same Redis)',
    );
  }
  checkReach(values, mcpToken, env);
  const auth = {
    ...(env['COUNTERSIGN_APPROVALS_TOKEN'] ? { bearerToken: env['COUNTERSIGN_APPROVALS_TOKEN'] } : {}),
    ...(env['COUNTERSIGN_WEBHOOK_SECRET'] ? { webhookSecret: env['COUNTERSIGN_WEBHOOK_SECRET'] } : {}),
  };
  if (port !== undefined && Object.keys(auth).length === 0) {
    throw new UsageError(
      'the approval app on --port needs credentials: set COUNTERSIGN_APPROVALS_TOKEN (a bearer token, 16+ characters) and/or COUNTERSIGN_WEBHOOK_SECRET (whsec_...)',
    );
  }
  return {
    port,
    waitMs,
    leaseMs,
    approvalTtlMs,
    tuning: Object.fromEntries(Object.entries(tuning).filter(([, value]) => value !== undefined)),
    mcpToken,
    auth,
  };
}

/** The value of `--<flag>` as a whole number of at least `min`, or undefined when it is not given. */
function wholeNumber(values: GatewayValues, flag: keyof GatewayValues, min: number, what: string): number | undefined {
  const text = values[flag];
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min) throw new UsageError(`--${flag} must be ${what}`);
  return value;
}

/** Leaving loopback takes credentials someone chose, and the names clients reach it by; links need their secret. */
function checkReach(values: GatewayValues, mcpToken: string | undefined, env: Record<string, string | undefined>) {
  if (values.host !== undefined) {
    if (values.port === undefined) throw new UsageError('--host is where --port listens; it goes with --port N');
    if (mcpToken === undefined && values.clients === undefined) {
      throw new UsageError(
        '--host serves MCP beyond this machine: choose its clients first, with --clients FILE (a token per client) or COUNTERSIGN_MCP_TOKEN (16+ random characters)',
      );
    }
  }
  if ((values['allowed-host'] ?? []).length > 0 && values.port === undefined)
    throw new UsageError('--allowed-host names a Host of /mcp over HTTP; it goes with --port N');
  if (values['approval-url'] !== undefined && !env['COUNTERSIGN_LINK_SECRET']) {
    throw new UsageError(
      '--approval-url sends clients one-click link pages, which need COUNTERSIGN_LINK_SECRET (16+ random characters, the same wherever the links are spent)',
    );
  }
}

/** The options `createMcpGateway` gets from the command line, the environment, the rules file and the Redis store. */
function gatewayOptionsOf(
  values: GatewayValues,
  { port, waitMs, leaseMs, approvalTtlMs, tuning, mcpToken }: GatewayArgs,
  env: Record<string, string | undefined>,
  {
    upstream,
    rules,
    clients,
    store,
    say,
  }: {
    upstream: ReturnType<typeof upstreamOf>;
    rules: Awaited<ReturnType<typeof readRulesFile>> | undefined;
    clients: Record<string, string> | undefined;
    store: SnapshotStore | undefined;
    say: (text: string) => void;
  },
): McpGatewayOptions {
  const linkSecret = env['COUNTERSIGN_LINK_SECRET'];
  const decisionSecret = env['COUNTERSIGN_DECISION_SECRET'];
  return {
    name: values.name!,
    ...upstream,
    ...(rules === undefined ? {} : { policy: { rules } }),
    ...(store === undefined ? {} : { store }),
    ...(waitMs === undefined ? {} : { waitMs }),
    ...(leaseMs === undefined ? {} : { leaseMs }),
    ...(approvalTtlMs === undefined ? {} : { approvalTtlMs }),
    ...tuning,
    ...(port === undefined ? {} : { clientTokens: clientTokensOf(clients, mcpToken) }),
    ...(values['allowed-host'] === undefined
      ? {}
      : { allowedHosts: ['localhost', '127.0.0.1', '[::1]', ...values['allowed-host']] }),
    ...(values['approval-url'] === undefined ? {} : { approvalUrl: values['approval-url'] }),
    ...(linkSecret ? { links: { secret: linkSecret } } : {}),
    ...(decisionSecret ? { decisionSecret } : {}),
    onError: (error, context) =>
      say(
        `mcp-gateway: ${context.operation}${context.runId ? ` run ${context.runId}` : ''}: ${(error as Error)?.message ?? String(error)}`,
      ),
  };
}

/** The clients of /mcp: those of --clients, and `http` with COUNTERSIGN_MCP_TOKEN; with neither, `http` with a token made now. */
function clientTokensOf(clients: Record<string, string> | undefined, mcpToken: string | undefined) {
  if (clients === undefined) return { [HTTP_CLIENT]: mcpToken ?? randomBytes(24).toString('base64url') };
  return mcpToken === undefined ? clients : { ...clients, [HTTP_CLIENT]: mcpToken };
}

/** The upstream to start (`--upstream`, a command line) or to reach (`--upstream-url`). */
function upstreamOf(values: GatewayValues, env: Record<string, string | undefined>) {
  return values.upstream === undefined
    ? { url: values['upstream-url']! }
    : (([command, ...args]) => ({ command: command!, args, env: definedEnv(env) }))(
        splitCommandLine(values.upstream, '--upstream'),
      );
}

/** MCP at /mcp and the approval app everywhere else, on `port`. */
async function serveHttp(
  gateway: McpGateway,
  { port, hostname }: { port: number; hostname: string },
  auth: GatewayArgs['auth'],
) {
  const { createApprovalApp, serve } = await import('../http/index.js');
  const app = createApprovalApp(gateway.runtime, auth);
  return serve(
    {
      fetch: (request: Request) =>
        new URL(request.url).pathname === '/mcp' ? gateway.fetch(request) : app.fetch(request),
    },
    { port, hostname },
  ).catch((error: unknown) => {
    throw (error as { code?: unknown }).code === 'EADDRINUSE' ? portInUse(port) : error;
  });
}

/** Tells the person at the terminal where MCP clients and reviewers reach the gateway (and the token made, when one was). */
function sayHowToReach(say: (text: string) => void, name: string, url: string, madeToken: string | undefined): void {
  say(`mcp-gateway ${name}: MCP (Streamable HTTP) at ${url}/mcp`);
  if (madeToken !== undefined)
    say(`MCP clients send Authorization: Bearer ${madeToken} (set COUNTERSIGN_MCP_TOKEN to choose it)`);
  say(`approve or deny at ${url}/ (the approval app; bearer token from COUNTERSIGN_APPROVALS_TOKEN), e.g.`);
  say(
    `  curl -X POST ${url}/runs/RUN_ID/approvals/APPROVAL_ID -H "authorization: Bearer $COUNTERSIGN_APPROVALS_TOKEN" -H 'content-type: application/json' -d '{"approved":true,"approvedBy":"you"}'`,
  );
}

/** What to do when `--port` is taken, most often by an earlier gateway whose MCP client has gone. */
function portInUse(port: number): ConfigError {
  return new ConfigError(
    `port ${port} is in use (EADDRINUSE): another process listens there, perhaps an earlier mcp-gateway still running. ` +
      `Find it (lsof -iTCP:${port} -sTCP:LISTEN, or ss -ltnp 'sport = :${port}') and stop it, or give this gateway another --port.`,
  );
}

/**
 * The gateway's environment, for the upstream it starts: its tokens are set where the gateway is started (the SDK
 * would otherwise pass on only a few safe variables such as PATH and HOME).
 */
function definedEnv(env: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

/** The Redis store at `url`, under `prefix` (ioredis and countersign/redis are loaded only here). */
async function redisStore(
  url: string,
  prefix: string | undefined,
): Promise<{ store: SnapshotStore; quit(): Promise<unknown> }> {
  const [{ Redis }, { createRedisStore }] = await Promise.all([
    importIoredis('--redis'),
    import('../stores/redis/index.js'),
  ]);
  const redis = new Redis(url);
  redis.on('error', () => {});
  return { store: createRedisStore({ redis, ...(prefix === undefined ? {} : { prefix }) }), quit: () => redis.quit() };
}
