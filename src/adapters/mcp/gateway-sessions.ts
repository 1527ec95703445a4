// The gateway's Streamable HTTP sessions: one transport (with its own SDK Server) per client session. A session with
// no request and no call in flight for idleMs is closed (the client's next request gets 404 and, as MCP clients do,
// starts a new session); beyond maxSessions a new session is refused with 503, saying why.
import { randomUUID } from 'node:crypto';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';

export interface SessionSettings {
  readonly idleMs: number;
  readonly maxSessions: number;
  /** Serves MCP over a new session's transport. */
  readonly connect: (transport: Transport) => Promise<Server>;
}

interface Session {
  readonly transport: WebStandardStreamableHTTPServerTransport;
  lastSeen: number;
  calls: number;
}

const rpcError = (status: number, code: number, message: string) => Response.json({ jsonrpc: '2.0', error: { code, message }, id: null }, { status });

/** The sessions, their `fetch`, and a way to mark a call in flight so its session is not idle. */
export function gatewaySessions({ idleMs, maxSessions, connect }: SessionSettings) {
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

  const open = async (request: Request): Promise<Response> => {
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
        onsessioninitialized: (id) => void sessions.set(id, { transport, lastSeen: Date.now(), calls: 0 }),
        onsessionclosed: (id) => void sessions.delete(id),
      });
      const server = await connect(transport);
      const response = await transport.handleRequest(request);
      // Not an initialize request: the transport refused it and no session was made.
      if (transport.sessionId === undefined) await server.close();
      return response;
    } finally {
      opening--;
    }
  };

  return {
    /** Serves one Streamable HTTP request: in its session, or opening one. */
    fetch(request: Request): Promise<Response> {
      const sessionId = request.headers.get('mcp-session-id');
      if (sessionId === null) return open(request);
      const session = sessions.get(sessionId);
      if (session === undefined) return Promise.resolve(rpcError(404, -32001, 'Session not found (it was closed or expired); initialize a new session.'));
      session.lastSeen = Date.now();
      return session.transport.handleRequest(request);
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
