// What an HTTP request must show before the gateway's MCP transport sees it: a Host the gateway is reached by (a
// DNS-rebinding page names its own), no Origin but the allowed ones or one of those hosts (a browser page names its own), the bearer token
// of a named client (or an OAuth access token its verifier takes), and a body within the limit, one JSON-RPC message (a batch would ask a person many times in one
// request). Refusals are JSON-RPC errors with the HTTP status that says why.
import { createHash, timingSafeEqual } from 'node:crypto';
import { HttpProblem, readRawBody } from '../kit/index.js';
import { clientName, type McpGatewayOAuth } from './gateway-options.js';
import { bearerChallenge, metadataPath, metadataResponse } from './gateway-resource-metadata.js';

export interface GuardSettings {
  /** Client name to token. */
  readonly clientTokens: Readonly<Record<string, string>>;
  readonly allowedHosts: readonly string[];
  readonly allowedOrigins: readonly string[];
  readonly maxBodyBytes: number;
  readonly oauth?: McpGatewayOAuth | undefined;
}

/** A request let through: the client it came from, and its parsed body (POST only). */
export interface Admitted {
  readonly client: string;
  readonly body?: unknown;
}

/** A JSON-RPC error answer with an HTTP status. */
export const rpcError = (status: number, code: number, message: string, headers: Record<string, string> = {}) =>
  Response.json({ jsonrpc: '2.0', error: { code, message }, id: null }, { status, headers });

const digest = (text: string) => createHash('sha256').update(text).digest();

/** The host name of a Host header, without its port (`[::1]:8787` is `[::1]`). */
function hostName(host: string): string {
  const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : (host.split(':')[0] ?? '');
  return name.toLowerCase();
}

/** The host name of an Origin (`http://127.0.0.1:8787` is `127.0.0.1`), '' for one that is not a URL. */
function originHost(origin: string): string {
  try {
    return hostName(new URL(origin).host);
  } catch {
    return '';
  }
}

/** Checks a request as the file header says: the client and body it carries, or the refusal to answer with. */
export function httpGuard(settings: GuardSettings) {
  const clients = Object.entries(settings.clientTokens).map(([name, token]) => ({ name, token: digest(token) }));
  const hosts = new Set(settings.allowedHosts.map((host) => host.toLowerCase()));
  const origins = new Set(settings.allowedOrigins);

  const { oauth } = settings;
  const metadataAt = oauth === undefined ? undefined : metadataPath(oauth.resource);

  /** The client whose token `presented` is; every token is compared, in constant time, whichever matches; then OAuth's verifier. */
  const clientOf = async (presented: string): Promise<string | undefined> => {
    const seen = digest(presented);
    let found: string | undefined;
    for (const client of clients) if (timingSafeEqual(seen, client.token) && found === undefined) found = client.name;
    if (found !== undefined || oauth === undefined) return found;
    // A verifier that throws or names no usable client refuses the token, as a wrong one.
    const verified = await oauth.verifyAccessToken(presented).catch(() => undefined);
    return clientName.safeParse(verified?.client).data;
  };

  return async (request: Request): Promise<Admitted | Response> => {
    const host = request.headers.get('host') ?? new URL(request.url).host;
    if (!hosts.has(hostName(host))) {
      return rpcError(
        403,
        -32000,
        `Host ${JSON.stringify(host)} is not one this gateway is reached by; add its name to allowedHosts if it is yours.`,
      );
    }
    const origin = request.headers.get('origin');
    if (origin !== null && !origins.has(origin) && !hosts.has(originHost(origin))) {
      return rpcError(
        403,
        -32000,
        `Origin ${JSON.stringify(origin)} may not call this gateway; add it to allowedOrigins if it is yours.`,
      );
    }
    if (metadataAt !== undefined && request.method === 'GET' && new URL(request.url).pathname === metadataAt)
      return metadataResponse(oauth!);
    if (clients.length === 0 && oauth === undefined) {
      return rpcError(
        401,
        -32001,
        'This gateway takes no MCP clients over HTTP: give it clientTokens (the CLI: COUNTERSIGN_MCP_TOKEN).',
        {
          'www-authenticate': 'Bearer',
        },
      );
    }
    const presented = /^Bearer +(\S+)$/i.exec(request.headers.get('authorization') ?? '')?.[1];
    const client = presented === undefined ? undefined : await clientOf(presented);
    if (client === undefined) {
      const how = oauth === undefined ? "this gateway's client token" : 'a client token or an OAuth access token';
      return rpcError(401, -32001, `Send ${how} as Authorization: Bearer <token>.`, {
        'www-authenticate': bearerChallenge(oauth, presented !== undefined),
      });
    }
    if (request.method !== 'POST') return { client };
    const length = Number(request.headers.get('content-length') ?? 0);
    if (length > settings.maxBodyBytes) return tooLarge(settings.maxBodyBytes);
    let raw: string;
    try {
      raw = await readRawBody(request, settings.maxBodyBytes);
    } catch (error) {
      if (error instanceof HttpProblem) return rpcError(error.problem.status, -32600, error.problem.detail);
      throw error;
    }
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      return rpcError(400, -32700, 'The body is not JSON; send one JSON-RPC message.');
    }
    if (Array.isArray(body))
      return rpcError(400, -32600, 'Send one JSON-RPC message per request; this gateway takes no batches.');
    return { client, body };
  };
}

const tooLarge = (maxBytes: number) =>
  rpcError(413, -32600, `The body is larger than ${maxBytes} bytes (maxBodyBytes); send at most ${maxBytes}.`);
