import type { AddressInfo } from 'node:net';
import { serve as nodeServe, type ServerType } from '@hono/node-server';

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
 *
 * @example
 * const app = createApprovalApp(runtime, { bearerToken });
 * const server = await serve(app, { port: 0, hostname: '127.0.0.1' });
 * await fetch(`${server.url}/healthz`);
 * await server.close();
 */
export function serve(
  app: { fetch: (request: Request, ...rest: any[]) => Response | Promise<Response> },
  options: { readonly port: number; readonly hostname?: string },
): Promise<ServeHandle> {
  const hostname = options.hostname ?? '127.0.0.1';
  return new Promise((resolve, reject) => {
    const server = nodeServe({ fetch: app.fetch, port: options.port, hostname }, (info: AddressInfo) => {
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
