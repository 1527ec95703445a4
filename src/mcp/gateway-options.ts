// The options of createMcpGateway: an upstream (the options of connectMcpServer, or a connection the app made), and
// what the gateway's runtime and agent take (policy, store, channels, links, how long a call waits).
import { z } from 'zod';
import { ConfigError } from '../errors.js';
import type {
  Telemetry,
  ApprovalLinkOptions,
  PolicyConfig,
  Notifier,
  RuleStore,
  SnapshotStore,
  RuntimeOptions,
} from '../index.js';
import {
  functionSchema,
  optionsObject,
  parseOptions,
  policyOptionsShape,
  runtimeOptionsSchema,
  maxBodyBytesSchema,
} from '../kit/index.js';
import type { McpConnection } from './mcp-connection.js';
import { type McpServerOptions, serverSchema } from './mcp-options.js';

/**
 * What the gateway's runtime and agent take, whichever way the upstream is given.
 *
 * @example
 * const settings: McpGatewaySettings = { policy: { rules: [{ tool: 'read_*', action: 'allow' }] }, waitMs: 20_000 };
 */
export interface McpGatewaySettings {
  /** Rules checked before each call (deny beats ask beats allow); with none matching, the tool's approval setting, then ask. */
  readonly policy?: PolicyConfig;
  /** Rules added and removed at run time. */
  readonly ruleStore?: RuleStore;
  /** Where the calls' runs live. Default: in memory (this process only); `createRedisStore` to decide from elsewhere. */
  readonly store?: SnapshotStore;
  /** Told of every approval requested and decided (a channel, a webhook). */
  readonly notifier?: Notifier;
  /** One-click links for channels and the approval app's pages; `gateway.runtime` is then a `LinkedRuntime`. */
  readonly links?: Omit<ApprovalLinkOptions, 'clock'>;
  /** Time a person has to decide a call. No expiry when left out. */
  readonly approvalTtlMs?: number;
  /** How long a tools/call waits for the decision (and the upstream) before answering "pending". Default 25,000 ms. */
  readonly waitMs?: number;
  /**
   * How often the gateway looks at each run it follows (until the run ends): a run decided elsewhere with mode
   * `'record'` is carried out here, an expired approval applied, with no client waiting. Default 1,000 ms.
   */
  readonly followEveryMs?: number;
  /** An MCP HTTP session with no request and no call in flight for this long is closed. Default 30 minutes. */
  readonly sessionIdleMs?: number;
  /** MCP HTTP sessions open at once; a new one beyond is refused with 503. Default 1,000. */
  readonly maxSessions?: number;
  /**
   * The MCP clients that may call over HTTP (`gateway.fetch`), by name: `{ 'claude-desktop': token }`, each token
   * at least 16 characters, sent as `Authorization: Bearer <token>`. Without it every HTTP request is refused with
   * 401. A client's name keys its calls (a retry finds its own call, never another client's) and is the runs'
   * `requestedBy` (`mcp:<name>`); give each client its own token.
   */
  readonly clientTokens?: Readonly<Record<string, string>>;
  /**
   * Host names (without port) an HTTP request's `Host` header may name; others get 403 (DNS rebinding). Default
   * `['localhost', '127.0.0.1', '[::1]']`: add the names the gateway is reached by when it is not on loopback.
   */
  readonly allowedHosts?: readonly string[];
  /**
   * `Origin` values an HTTP request may carry besides those of `allowedHosts` (exact, e.g. `https://app.example.com`);
   * a request with another gets 403. MCP clients send no `Origin`, browsers do.
   */
  readonly allowedOrigins?: readonly string[];
  /**
   * OAuth 2.1 for `/mcp`, as the MCP authorization specification describes it: the gateway publishes its protected
   * resource metadata (RFC 9728) at `/.well-known/oauth-protected-resource<path of resource>` and names it in every
   * 401's `WWW-Authenticate`, so an OAuth-capable client finds the authorization server and asks it for a token. A
   * bearer token that is none of `clientTokens` is given to `verifyAccessToken`; the client it names is the caller.
   */
  readonly oauth?: McpGatewayOAuth;
  /**
   * The public base URL of the approval app that serves the gateway's one-click links (`createApprovalApp` of
   * `gateway.runtime`, e.g. `https://approvals.example.com`). With `links`, a client that declared URL-mode
   * elicitation is sent the link page of each call it must wait for (`elicitation/create`, mode `url`) and its call
   * waits for the person's decision; what the client answers to the elicitation never decides the call.
   */
  readonly approvalUrl?: string;
  /**
   * How long a call whose client was sent the link page waits for the decision (and the upstream) before it
   * answers "pending", as a call without elicitation does after `waitMs`. Default 10 minutes.
   */
  readonly elicitationWaitMs?: number;
  /** Largest HTTP request body, in bytes; a longer one is refused with 413 before it is parsed. Default 1 MiB. */
  readonly maxBodyBytes?: number;
  /**
   * How long a call to the upstream is leased to this gateway: a gateway restarted after dying mid-call takes the
   * call over (asks a person again, or resends an idempotent one) once the lease ends. Keep it above the upstream's
   * `callTimeoutMs`. Default 5 minutes.
   */
  readonly leaseMs?: number;
  /**
   * How often the gateway looks in its store for runs of its agent it does not follow (left by a gateway that
   * stopped, or decided while none ran) and follows them; also once at start. Default 30,000 ms.
   */
  readonly recoverEveryMs?: number;
  /** Signs every approval request; decisions must echo the signature. */
  readonly decisionSecret?: string;
  /** Failures that must not stop a call (a notifier that threw), as `createRuntime`'s `onError`. */
  readonly onError?: RuntimeOptions['onError'];
  /**
   * Traces and metrics of the calls' runs (`openTelemetry()` of `countersign/otel`), as `createRuntime`'s. A client's
   * `_meta.traceparent` is continued by the run and passed on to the upstream (unchanged when nothing traces here).
   */
  readonly telemetry?: Telemetry;
}

/**
 * OAuth 2.1 for the gateway's `/mcp`: where tokens come from, and how the gateway checks one.
 *
 * @example
 * const oauth: McpGatewayOAuth = {
 *   resource: 'https://mcp.example.com/mcp',
 *   authorizationServers: ['https://auth.example.com'],
 *   verifyAccessToken: async (token) => ((await introspect(token)).active ? { client: 'claude-desktop' } : undefined),
 * };
 */
export interface McpGatewayOAuth {
  /** The URL clients reach `/mcp` at, which every token must name as its audience (`https://mcp.example.com/mcp`). */
  readonly resource: string;
  /** The authorization servers that issue tokens for `resource` (their issuer URLs). */
  readonly authorizationServers: readonly string[];
  /** The scopes a client may ask for, published in the metadata. */
  readonly scopesSupported?: readonly string[];
  /**
   * Checks an access token (signature, expiry, and an audience naming `resource`) and answers the client it was
   * issued to, by a client name (letters, digits, `.`, `_`, `-`), or undefined to refuse it with 401. The client's
   * name keys its calls and is its runs' `requestedBy` (`mcp:<client>`), as a `clientTokens` name is.
   */
  readonly verifyAccessToken: (token: string) => Promise<{ readonly client: string } | undefined>;
}

/**
 * Options of `createMcpGateway`: the upstream as `connectMcpServer` takes it
 * (a command, or a URL, with the per-server tool options), or a `connection`
 * the app made; and the gateway's settings.
 *
 * @example
 * const options: McpGatewayOptions = { name: 'github', url: 'https://mcp.example.com/mcp', requireApproval: ['create_issue'], waitMs: 20_000 };
 */
export type McpGatewayOptions = McpGatewaySettings & (McpServerOptions | { readonly connection: McpConnection });

/** An MCP client's name, as `clientTokens` and `gateway.connect` take it. */
export const clientName = z
  .string()
  .regex(/^[A-Za-z0-9._-]{1,64}$/, 'must be 1 to 64 letters, digits, dots, dashes or underscores');

const settingsShape = {
  ...policyOptionsShape,
  store: runtimeOptionsSchema.shape.store,
  notifier: runtimeOptionsSchema.shape.notifier,
  telemetry: runtimeOptionsSchema.shape.telemetry,
  links: runtimeOptionsSchema.shape.links,
  approvalTtlMs: z.number().int('must be a whole number').positive().optional(),
  waitMs: z.number().int('must be a whole number').min(0).max(3_600_000).optional(),
  followEveryMs: z.number().int('must be a whole number').min(10).max(3_600_000).optional(),
  sessionIdleMs: z.number().int('must be a whole number').min(10).optional(),
  maxSessions: z.number().int('must be a whole number').positive().optional(),
  clientTokens: z
    .record(clientName, z.string().min(16, 'use at least 16 characters of randomness').max(512))
    .refine(
      (tokens) => new Set(Object.values(tokens)).size === Object.keys(tokens).length,
      'gives two clients the same token; give each client its own',
    )
    .optional(),
  allowedHosts: z.array(z.string().min(1).max(255)).optional(),
  allowedOrigins: z.array(z.string().url('must be an origin such as https://app.example.com')).optional(),
  oauth: optionsObject({
    resource: z.url({ protocol: /^https?$/, error: 'must be the http(s) URL clients reach /mcp at' }),
    authorizationServers: z.array(z.url({ protocol: /^https?$/ })).min(1, 'name at least one authorization server'),
    scopesSupported: z.array(z.string().min(1)).optional(),
    verifyAccessToken: functionSchema(),
  }).optional(),
  approvalUrl: z.url({ protocol: /^https?$/, error: 'must be the http(s) base URL of the approval app' }).optional(),
  elicitationWaitMs: z.number().int('must be a whole number').min(0).max(86_400_000).optional(),
  maxBodyBytes: maxBodyBytesSchema.optional(),
  leaseMs: z.number().int('must be a whole number').min(100).optional(),
  recoverEveryMs: z.number().int('must be a whole number').min(10).max(3_600_000).optional(),
  decisionSecret: z.string().min(16, 'use at least 16 characters of randomness').optional(),
  onError: runtimeOptionsSchema.shape.onError,
};
const connectionSchema = z.custom<McpConnection>(
  (value) =>
    typeof (value as McpConnection | undefined)?.callTool === 'function' &&
    Array.isArray((value as McpConnection).serverTools),
  'must be a connection made with connectMcpServer or mcpTools',
);
const withConnection = optionsObject({ ...settingsShape, connection: connectionSchema });
const withUpstream = serverSchema.extend(settingsShape);

const settingKeys = Object.keys(settingsShape) as (keyof McpGatewaySettings)[];

/** The options checked and split: the upstream (to connect, or connected), and the settings. */
export function readGatewayOptions(options: McpGatewayOptions): {
  upstream: McpServerOptions | McpConnection;
  settings: McpGatewaySettings;
} {
  if (typeof options !== 'object' || options === null)
    throw new ConfigError('createMcpGateway: pass an options object, e.g. { name, command, args }.');
  const hasConnection = 'connection' in options;
  parseOptions(hasConnection ? withConnection : withUpstream, options, 'createMcpGateway', {
    hint: hasConnection
      ? 'With a connection, pass only the gateway settings (policy, store, waitMs, ...); its tool options were set when it was made.'
      : 'Pass { name, command, args } for a local server or { name, url } for a remote one.',
  });
  if (options.approvalUrl !== undefined && options.links === undefined) {
    throw new ConfigError(
      'createMcpGateway: approvalUrl needs links ({ secret }): the link page it points clients to spends a sealed link token.',
      'missing_option',
    );
  }
  const settings: Record<string, unknown> = {};
  const upstream: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options)) {
    // approvalTtlMs is the agent's, for every tool, so the connection's tools leave it to the agent.
    if ((settingKeys as string[]).includes(key)) settings[key] = value;
    else upstream[key] = value;
  }
  return {
    upstream: hasConnection ? options.connection : (upstream as unknown as McpServerOptions),
    settings: settings as McpGatewaySettings,
  };
}
