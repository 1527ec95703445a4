// The options of connectMcpServer and mcpTools: their types, their schemas, and the settings they make with defaults.
import type { Tool as McpToolListing } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { ConfigError } from '../errors.js';
import type { ApprovalRequirement, Approvers, Runtime } from '../index.js';
import { functionSchema, optionsObject, parseOptions } from '../kit/index.js';

/**
 * Which of a server's tools ask a person before they run (names are the
 * server's own, without the prefix):
 * - `true` / `false`: all of them / none of them;
 * - a list: the listed tools ask, the server's other tools run without asking;
 * - `{ always, never }`: those listed ask / run without asking, the agent's policy decides for the rest;
 * - a function of the server's listing of the tool and the validated arguments.
 *
 * Left out, the agent's policy decides for every tool (and asks by default).
 * Policy rules come first in every case.
 *
 * @example
 * const requireApproval: RequireApproval = (tool) => tool.annotations?.readOnlyHint !== true;
 */
export type RequireApproval =
  | boolean
  | readonly string[]
  | { readonly always?: readonly string[]; readonly never?: readonly string[] }
  | ((tool: McpToolListing, args: Record<string, unknown>) => ApprovalRequirement | Promise<ApprovalRequirement>);

/**
 * How a server's tools become countersign tools; `connectMcpServer` and
 * `mcpTools` take the same.
 *
 * @example
 * const options: McpToolOptions = { name: 'github', toolNames: ['list_issues', 'create_issue'], requireApproval: ['create_issue'] };
 */
export interface McpToolOptions {
  /** The server's name: the `connector` of its tools (for policy rules) and the prefix with `prefix: true`. Letters, digits, `_` and `-`. */
  readonly name: string;
  /** Offer only these of the server's tools (its own names); all of them when left out. */
  readonly toolNames?: readonly string[];
  readonly requireApproval?: RequireApproval;
  /**
   * Take the server's `readOnlyHint` and `idempotentHint` as facts: read-only
   * tools may then be allowed by the read-only preset, idempotent ones retried
   * after a lost connection. Otherwise annotations are only shown. Default false.
   */
  readonly trustAnnotations?: boolean;
  /** `true`: tools are named `<name>__<tool>`; a string: `<string><tool>`. Default: the server's names as they are. */
  readonly prefix?: boolean | string;
  /** The longest a call takes, waiting for the server to come back included. Default 30,000 ms. */
  readonly callTimeoutMs?: number;
  /** Who may decide calls of this server's tools; anyone when left out. */
  readonly approvers?: Approvers;
  /** Time a person has to decide a call of this server's tools; the agent's `approvalTtlMs` when left out. */
  readonly approvalTtlMs?: number;
  /**
   * Answer the server's own questions (`elicitation/create`, form or URL mode) by people on countersign's surfaces:
   * the client declares elicitation and each question becomes a request in `runtime`. Left out, the client declares
   * no elicitation and the server asks nobody.
   */
  readonly elicitations?: McpElicitationOptions;
}

/**
 * Where an MCP server's own questions go: a form becomes a question with a typed answer (`runtime.requestInput`), a
 * URL to open an approval that shows it (`runtime.requestApproval`), named `elicitation.<server>` for rules and asked
 * by `mcp-server:<server>`. The person's answer goes back to the server; a denial is `decline`, an expiry `cancel`.
 *
 * @example
 * let runtime: Runtime | undefined;
 * const files = await connectMcpServer({ name: 'files', command: 'files-server', elicitations: { runtime: () => runtime! } });
 * runtime = createRuntime({ agents: [createAgent({ name: 'clerk', model, tools: [files] })] });
 */
export interface McpElicitationOptions {
  /** The runtime whose people answer; a function when the runtime is made after the connection (its agent needs the tools). */
  readonly runtime: Runtime | (() => Runtime);
  /** Who may answer; whoever the runtime's policy admits when left out. */
  readonly approvers?: readonly string[];
  /** How long a person has to answer (then the server is told `cancel`). Default 10 minutes. */
  readonly expiresInMs?: number;
}

/** How a lost connection is tried again: jittered exponential backoff, then `failed` after `maxAttempts`. */
export interface ReconnectOptions {
  /** Wait before the first try; doubled for each next one, then 50 to 100 % of it is waited. Default 500 ms. */
  readonly initialDelayMs?: number;
  /** Longest wait between tries. Default 30,000 ms. */
  readonly maxDelayMs?: number;
  /** Tries before the connection is `failed` for good. Default: no limit. */
  readonly maxAttempts?: number;
  /**
   * A server over HTTP is pinged this often, so one that went away is noticed before the next call even when no
   * stream is open to it (a server without a GET stream). 0 turns it off; over stdio a server's exit is seen at once.
   * Default 30,000 ms.
   */
  readonly heartbeatMs?: number;
}

/**
 * An MCP server to connect to: a command countersign starts and talks to
 * over stdio, or a URL (Streamable HTTP, falling back to the old HTTP+SSE
 * transport for servers that predate it).
 *
 * @example
 * const local: McpServerOptions = { name: 'files', command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'] };
 * const remote: McpServerOptions = { name: 'github', url: 'https://mcp.example.com/mcp', headers: { authorization: `Bearer ${token}` } };
 */
export type McpServerOptions = McpToolOptions & { readonly reconnect?: ReconnectOptions } & (
    | {
        readonly command: string;
        readonly args?: readonly string[];
        readonly env?: Readonly<Record<string, string>>;
        readonly cwd?: string;
      }
    | { readonly url: string | URL; readonly headers?: Readonly<Record<string, string>> }
  );

const names = z.array(z.string().min(1)).readonly();

const toolOptionsShape = {
  name: z
    .string()
    .regex(
      /^[A-Za-z0-9_-]{1,64}$/,
      'must be 1 to 64 letters, digits, "_" or "-" (it names the connector and may prefix tool names)',
    ),
  toolNames: names.optional(),
  requireApproval: z
    .union([z.boolean(), names, optionsObject({ always: names.optional(), never: names.optional() }), functionSchema()])
    .optional(),
  trustAnnotations: z.boolean().optional(),
  prefix: z
    .union([z.boolean(), z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'must be letters, digits, "_", "-" or "."')])
    .optional(),
  callTimeoutMs: z.number().int('must be a whole number').min(1).max(86_400_000).optional(),
  approvers: z.union([z.array(z.string()), functionSchema()]).optional(),
  approvalTtlMs: z.number().int('must be a whole number').positive().optional(),
  elicitations: optionsObject({
    runtime: z.custom<Runtime | (() => Runtime)>(
      (value) => typeof value === 'function' || typeof (value as Runtime | undefined)?.requestInput === 'function',
      'must be a runtime (createRuntime) or a function that returns one',
    ),
    approvers: z.array(z.string().min(1)).min(1).optional(),
    expiresInMs: z.number().int('must be a whole number').min(1000).max(2_147_483_647).optional(),
  }).optional(),
};

const delayMs = z.number().int('must be a whole number').min(0).max(3_600_000).optional();
/** The schema of `connectMcpServer`'s options (the gateway extends it). */
export const serverSchema = optionsObject({
  ...toolOptionsShape,
  reconnect: optionsObject({
    initialDelayMs: delayMs,
    maxDelayMs: delayMs,
    maxAttempts: z.number().int().min(0).optional(),
    heartbeatMs: z.number().int('must be a whole number').min(0).max(3_600_000).optional(),
  }).optional(),
  command: z.string().min(1).optional(),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().min(1).optional(),
  url: z.union([z.url({ protocol: /^https?$/ }), z.instanceof(URL)]).optional(),
  headers: z.record(z.string(), z.string()).optional(),
});
const toolsSchema = optionsObject(toolOptionsShape);

/** The checked tool options with the defaults filled in. */
export interface ToolSettings extends Omit<McpToolOptions, 'prefix' | 'callTimeoutMs'> {
  /** What goes before each server tool's name ('' for none). */
  readonly prefix: string;
  readonly callTimeoutMs: number;
}

/** How to reach a server, once checked. */
export type ServerAddress =
  | {
      readonly kind: 'stdio';
      readonly command: string;
      readonly args: readonly string[];
      readonly env?: Readonly<Record<string, string>>;
      readonly cwd?: string;
    }
  | { readonly kind: 'http'; readonly url: URL; readonly headers: Readonly<Record<string, string>> };

/** The reconnect backoff, with its defaults. */
export interface ReconnectSettings {
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
  readonly maxAttempts: number;
  /** 0 for none (and always over stdio). */
  readonly heartbeatMs: number;
}

function toolSettings(options: McpToolOptions): ToolSettings {
  const { prefix, callTimeoutMs, ...rest } = options;
  return {
    ...rest,
    prefix: prefix === true ? `${options.name}__` : typeof prefix === 'string' ? prefix : '',
    callTimeoutMs: callTimeoutMs ?? 30_000,
  };
}

/** `mcpTools`' options, checked. */
export function readToolOptions(options: McpToolOptions): ToolSettings {
  return toolSettings(
    parseOptions(toolsSchema, options, 'mcpTools', {
      hint: 'Pass { name } and optionally toolNames, requireApproval, trustAnnotations, prefix.',
    }) as McpToolOptions,
  );
}

/** `connectMcpServer`'s options, checked: where the server is, how its tools are made, how a lost connection is retried. */
export function readServerOptions(options: McpServerOptions): {
  address: ServerAddress;
  tools: ToolSettings;
  reconnect: ReconnectSettings;
} {
  const parsed = parseOptions(serverSchema, options, 'connectMcpServer', {
    hint: 'Pass { name, command, args } for a local server or { name, url } for a remote one.',
  });
  const { command, args, env, cwd, url, headers, reconnect, ...tools } = parsed;
  if ((command === undefined) === (url === undefined)) {
    throw new ConfigError(
      'connectMcpServer: give either command (a server started over stdio) or url (a server over HTTP), not both and not neither.',
      'missing_option',
    );
  }
  const misplaced =
    command === undefined
      ? (['args', 'env', 'cwd'] as const).filter((key) => parsed[key] !== undefined)
      : headers === undefined
        ? []
        : ['headers'];
  if (misplaced.length > 0) {
    const belongs = command === undefined ? 'command (a server over stdio)' : 'url (a server over HTTP)';
    throw new ConfigError(
      `connectMcpServer: ${misplaced.join(', ')} only go${misplaced.length > 1 ? '' : 'es'} with ${belongs}; remove ${misplaced.length > 1 ? 'them' : 'it'}.`,
    );
  }
  const address: ServerAddress =
    command === undefined
      ? { kind: 'http', url: new URL(url!), headers: headers ?? {} }
      : {
          kind: 'stdio',
          command,
          args: args ?? [],
          ...(env === undefined ? {} : { env }),
          ...(cwd === undefined ? {} : { cwd }),
        };
  return {
    address,
    tools: toolSettings(tools as McpToolOptions),
    reconnect: {
      initialDelayMs: reconnect?.initialDelayMs ?? 500,
      maxDelayMs: reconnect?.maxDelayMs ?? 30_000,
      maxAttempts: reconnect?.maxAttempts ?? Number.POSITIVE_INFINITY,
      heartbeatMs: address.kind === 'http' ? (reconnect?.heartbeatMs ?? 30_000) : 0,
    },
  };
}
