import type { AddressInfo } from 'node:net';
import { serve as nodeServe, type ServerType } from '@hono/node-server';
import { ConfigError } from '../errors.js';

/**
 * Options of `serve`. The timeouts bound what a slow or stalled client can
 * hold: Node's own defaults let one take 300 s to send a request.
 *
 * @example
 * await serve(app, { port: 8787, hostname: '0.0.0.0', requestTimeoutMs: 60_000 });
 */
export interface ServeOptions {
  readonly port: number;
  /** Default `127.0.0.1` (loopback only); `'0.0.0.0'` or `'::'` for every interface. */
  readonly hostname?: string;
  /** Longest time to receive a whole request, headers and body (then 408 and the connection is closed). Default 30 s. */
  readonly requestTimeoutMs?: number;
  /** Longest time to receive the request headers; at most `requestTimeoutMs`. Default 10 s. */
  readonly headersTimeoutMs?: number;
  /** How long an idle keep-alive connection stays open for a next request. Default 5 s. */
  readonly keepAliveTimeoutMs?: number;
}

const TIMEOUT_DEFAULTS = { requestTimeoutMs: 30_000, headersTimeoutMs: 10_000, keepAliveTimeoutMs: 5_000 } as const;

function timeoutsOf(options: ServeOptions) {
  const timeouts = {
    requestTimeoutMs: options.requestTimeoutMs ?? TIMEOUT_DEFAULTS.requestTimeoutMs,
    headersTimeoutMs:
      options.headersTimeoutMs ?? Math.min(TIMEOUT_DEFAULTS.headersTimeoutMs, options.requestTimeoutMs ?? Infinity),
    keepAliveTimeoutMs: options.keepAliveTimeoutMs ?? TIMEOUT_DEFAULTS.keepAliveTimeoutMs,
  };
  for (const [name, value] of Object.entries(timeouts)) {
    if (!Number.isInteger(value) || value < 1)
      throw new ConfigError(`serve: ${name} must be a whole number of milliseconds, at least 1; got ${value}.`);
  }
  if (timeouts.headersTimeoutMs > timeouts.requestTimeoutMs) {
    throw new ConfigError(
      `serve: headersTimeoutMs (${timeouts.headersTimeoutMs}) must not exceed requestTimeoutMs (${timeouts.requestTimeoutMs}).`,
    );
  }
  return timeouts;
}

/**
 * A running server: where it listens and how to stop it.
 *
 * @example
 * const handle: ServeHandle = await serve(app, { port: 0 });
 * console.log(`approvals on ${handle.url}`);
 * process.once('SIGTERM', () => void handle.close());
 */
export interface ServeHandle {
  /** The bound port (the real one when you asked for port 0). */
  readonly port: number;
  readonly hostname: string;
  /** `http://hostname:port`. */
  readonly url: string;
  readonly server: ServerType;
  /** Stops accepting connections, ends open ones (event streams too) and resolves once closed. */
  close(): Promise<void>;
}

/**
 * Serves a Hono app (the approval app) on Node with @hono/node-server.
 * Resolves once the server listens. `hostname` defaults to `127.0.0.1`
 * (loopback only); pass `'0.0.0.0'` (or `'::'`) to listen on every interface.
 * A request must arrive whole within `requestTimeoutMs` (30 s), its headers
 * within `headersTimeoutMs` (10 s); idle keep-alive connections close after
 * `keepAliveTimeoutMs` (5 s). Event streams are responses, not requests, so
 * these do not end them.
 *
 * @example
 * const app = createApprovalApp(runtime, { bearerToken });
 * const server = await serve(app, { port: 0, hostname: '127.0.0.1' });
 * await fetch(`${server.url}/healthz`);
 * await server.close();
 */
export function serve(
  // biome-ignore lint/suspicious/noExplicitAny: whatever a Fetch app takes after the request (Hono's env and context), Node's bindings go there
  app: { fetch: (request: Request, ...rest: any[]) => Response | Promise<Response> },
  options: ServeOptions,
): Promise<ServeHandle> {
  const hostname = options.hostname ?? '127.0.0.1';
  return new Promise((resolve, reject) => {
    // Inside the executor: a bad option rejects the promise rather than throwing.
    const timeouts = timeoutsOf(options);
    const serverOptions = {
      requestTimeout: timeouts.requestTimeoutMs,
      headersTimeout: timeouts.headersTimeoutMs,
      keepAliveTimeout: timeouts.keepAliveTimeoutMs,
      // How often Node looks for requests past their timeouts (30 s by default, longer than the timeouts themselves).
      connectionsCheckingInterval: Math.max(10, Math.min(1_000, Math.floor(timeouts.headersTimeoutMs / 2))),
    };
    const server = nodeServe({ fetch: app.fetch, port: options.port, hostname, serverOptions }, (info: AddressInfo) => {
      server.off('error', reject);
      const host = info.family === 'IPv6' ? `[${info.address}]` : info.address;
      resolve({
        port: info.port,
        hostname: info.address,
        url: `http://${host}:${info.port}`,
        server,
        close: () =>
          new Promise<void>((done, fail) => {
            server.close((error) => (error ? fail(error) : done()));
            (server as { closeAllConnections?: () => void }).closeAllConnections?.();
          }),
      });
    });
    server.once('error', reject);
  });
}
