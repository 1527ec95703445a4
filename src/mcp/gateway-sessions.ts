// The gateway's Streamable HTTP sessions: one transport (with its own SDK Server) per client session, opened only for
// a request the guard let through and bound to the client that opened it (another client's token does not reach it).
// A session with no request and no call in flight for idleMs is closed (the client's next request gets 404 and, as
// MCP clients do, starts a new session); beyond maxSessions a new session is refused with 503, saying why.
import { randomUUID } from 'node:crypto';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type Admitted, rpcError } from './gateway-http-guard.js';

export interface SessionSettings {
  readonly idleMs: number;
  readonly maxSessions: number;
  /** Lets a request through, or answers it (see gateway-http-guard.ts). */
  readonly admit: (request: Request) => Promise<Admitted | Response>;
  /** Serves MCP over a new session's transport, for the client named `client`. */
  readonly connect: (transport: Transport, client: string) => Promise<Server>;
}

interface Session {
  readonly transport: WebStandardStreamableHTTPServerTransport;
  readonly client: string;
  lastSeen: number;
  calls: number;
}

const unknownSession = () =>
  rpcError(404, -32001, 'Session not found (it was closed or expired); initialize a new session.');

/** The sessions, their `fetch`, and a way to mark a call in flight so its session is not idle. */
export function gatewaySessions({ idleMs, maxSessions, admit, connect }: SessionSettings) {
  const sessions = new Map<string, Session>();
  let opening = 0;

  const end = (id: string, session: Session) => {
    sessions.delete(id);
    void session.transport.close().catch(() => undefined);
  };
  const sweep = () => {
    const idleSince = Date.now() - idleMs;
    for (const [id, session] of sessions) if (session.calls === 0 && session.lastSeen <= idleSince) end(id, session);
  };
  // Closed between idleMs and idleMs plus a half (at most a minute) after the last request.
  const timer = setInterval(sweep, Math.max(10, Math.min(60_000, Math.ceil(idleMs / 2)))).unref();

  const open = async (request: Request, { client, body }: Admitted): Promise<Response> => {
    if (sessions.size + opening >= maxSessions) {
      return rpcError(
        503,
        -32000,
        `The gateway has reached its limit of ${maxSessions} open MCP sessions (maxSessions); a session closes after ${idleMs} ms without requests. Close sessions you no longer use (HTTP DELETE with their mcp-session-id), or try again later.`,
      );
    }
    opening++;
    try {
      const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        onsessioninitialized: (id) => void sessions.set(id, { transport, client, lastSeen: Date.now(), calls: 0 }),
        onsessionclosed: (id) => void sessions.delete(id),
      });
      const server = await connect(transport, client);
      const response = await transport.handleRequest(request, { parsedBody: body });
      // Not an initialize request: the transport refused it and no session was made.
      if (transport.sessionId === undefined) await server.close();
      return response;
    } finally {
      opening--;
    }
  };

  return {
    /** Serves one Streamable HTTP request: in its session, or opening one. */
    async fetch(request: Request): Promise<Response> {
      const admitted = await admit(request);
      if (admitted instanceof Response) return admitted;
      const sessionId = request.headers.get('mcp-session-id');
      if (sessionId === null) return open(request, admitted);
      const session = sessions.get(sessionId);
      // Another client's session is not found either: its id tells nothing about whose it is.
      if (session === undefined || session.client !== admitted.client) return unknownSession();
      session.lastSeen = Date.now();
      return session.transport.handleRequest(request, { parsedBody: admitted.body });
    },
    /** Marks a call in flight in session `sessionId` (none for stdio); returns the function that ends it. */
    busy(sessionId: string | undefined): () => void {
      const session = sessionId === undefined ? undefined : sessions.get(sessionId);
      if (session === undefined) return () => undefined;
      session.calls++;
      return () => {
        session.calls--;
        session.lastSeen = Date.now();
      };
    },
    /** Closes every session and stops expiring them. */
    async close(): Promise<void> {
      clearInterval(timer);
      const all = [...sessions.values()];
      sessions.clear();
      await Promise.all(all.map((session) => session.transport.close().catch(() => undefined)));
    },
  };
}
