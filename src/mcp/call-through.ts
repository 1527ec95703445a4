// One tools/call through a link that may be down: wait (within the call's time) for the server, send, and say what a
// failure means. A call that never left is safe to send again once the server is back; one cut off after it was sent
// may have had its effect, so it is an OutcomeUnknownError (the core then asks a person again), unless the tool is
// idempotent: then it is sent once more, once the server is back, within the same time.
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { ConnectorUnavailableError, OutcomeUnknownError } from '../errors.js';
import type { McpLink } from './mcp-link.js';

export interface CallThroughOptions {
  readonly signal?: AbortSignal | undefined;
  /** Send once more after a connection lost mid-call (the tool is safe to run twice). */
  readonly idempotent?: boolean | undefined;
  /** The W3C `traceparent` of the calling span, sent in the request's `_meta` so the server continues the trace. */
  readonly traceparent?: string | undefined;
}

/** Sends of one call at most: a server that keeps refusing it unsent (a session it forgets at once) is not tried forever. */
const MAX_SENDS = 8;

/** The server's `CallToolResult` for one call, waiting at most `timeoutMs` in all. */
export async function callThrough(
  link: McpLink,
  server: { readonly name: string; readonly timeoutMs: number },
  toolName: string,
  args: Record<string, unknown>,
  options: CallThroughOptions = {},
): Promise<CallToolResult> {
  const deadline = Date.now() + server.timeoutMs;
  let resent = false;
  for (let sends = 1; ; sends++) {
    const client = await link.connected(deadline, options.signal);
    if (client === undefined) {
      const status = link.status === 'failed' ? 'failed' : link.status === 'connecting' ? 'connecting' : 'disconnected';
      const detail =
        status === 'failed'
          ? 'reconnecting gave up'
          : Date.now() < deadline
            ? 'its client is closed'
            : `it did not come back within ${server.timeoutMs} ms`;
      throw new ConnectorUnavailableError(
        server.name,
        status,
        `connector ${server.name} is disconnected: ${detail}; the call was not sent.`,
      );
    }
    try {
      const timeout = Math.max(1, deadline - Date.now());
      const meta = options.traceparent === undefined ? {} : { _meta: { traceparent: options.traceparent } };
      return (await client.callTool({ name: toolName, arguments: args, ...meta }, undefined, {
        timeout,
        ...(options.signal ? { signal: options.signal } : {}),
      })) as CallToolResult;
    } catch (error) {
      if (options.signal?.aborted) throw error;
      const kind = failureKind(error);
      if (kind === 'answered') throw error;
      await link.suspect();
      if (Date.now() < deadline && sends < MAX_SENDS && (kind === 'unsent' || (options.idempotent && !resent))) {
        resent ||= kind !== 'unsent';
        continue;
      }
      if (kind === 'unsent') {
        const tried = sends < MAX_SENDS ? '' : ` (tried ${MAX_SENDS} times)`;
        throw new ConnectorUnavailableError(
          server.name,
          'disconnected',
          `connector ${server.name} is disconnected; the call was not sent${tried}.`,
          { cause: error },
        );
      }
      const what = kind === 'timeout' ? `did not answer within ${server.timeoutMs} ms` : 'disconnected during the call';
      throw new OutcomeUnknownError(`connector ${server.name} ${what}`, { cause: error });
    }
  }
}

/**
 * `answered`: the server (or the SDK for it) refused the call, a normal error; `unsent`: it never reached the
 * server (refused connection, a session the restarted server no longer knows); `timeout` and `cut-off`: it may have.
 */
function failureKind(error: unknown): 'answered' | 'unsent' | 'timeout' | 'cut-off' {
  if (error instanceof McpError) {
    if (error.code === ErrorCode.RequestTimeout) return 'timeout';
    return error.code === ErrorCode.ConnectionClosed ? 'cut-off' : 'answered';
  }
  if (error instanceof StreamableHTTPError && error.code === 404) return 'unsent';
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if ((cause as NodeJS.ErrnoException).code === 'ECONNREFUSED') return 'unsent';
  }
  return 'cut-off';
}
