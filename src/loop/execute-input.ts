import type { Message, RunOrigin } from '../run/types.js';

/** What starts a run: one user message, or a conversation so far. */
export interface ExecuteInput {
  readonly input: string | readonly Message[];
  /** Choose the run id (for example your own request id); a random one otherwise. */
  readonly runId?: string;
  /** Where the run came from (a chat, a channel), so channels send its approvals back there. */
  readonly origin?: RunOrigin;
  /**
   * The session the run belongs to: runs of one conversation share it, so their approvals can be listed together
   * (`runtime.pending({ sessionId })`). Same rules as a run id.
   */
  readonly sessionId?: string;
  /**
   * Who asked for the run (the chat user, the ticket's author), as your system knows them: a quorum with
   * `excludeRequester` (the default) refuses their vote, so nobody approves their own request.
   */
  readonly requestedBy?: string;
  /**
   * The W3C `traceparent` of the caller's span (an MCP client's `_meta.traceparent`, an HTTP request's header): the
   * run's spans continue that trace when telemetry records them (`countersign/otel`).
   */
  readonly traceparent?: string;
}
