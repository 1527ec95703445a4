// Tools and connectors: a tool that is gone, a call whose outcome nobody knows, a connector that cannot be reached.
import { CountersignError } from './base.js';

/** A snapshot names a tool this agent does not have (anymore). */
export class ToolNotFoundError extends CountersignError {
  readonly toolName: string;

  constructor(toolName: string, agentName: string) {
    super(
      'tool_not_found',
      `Agent ${agentName} has no tool named ${toolName}; it was removed or renamed since the run paused. Deploy the tool again, or deny the approval.`,
    );
    this.toolName = toolName;
  }
}

/**
 * Thrown by a tool whose call was cut off after it may have reached the
 * system it talks to (a dropped connection, a timeout): nobody knows whether
 * it had its effect. A tool that is not `idempotent` is then put to a person
 * again, as after a crash; an idempotent one becomes an error result the
 * model reads.
 *
 * @example
 * execute: async (input, ctx) => {
 *   try { return await remote.call(input, { signal: ctx.signal }); }
 *   catch (error) { if (isConnectionLost(error)) throw new OutcomeUnknownError('the github connector disconnected mid-call', { cause: error }); throw error; }
 * }
 */
export class OutcomeUnknownError extends CountersignError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('outcome_unknown', message, { ...options, fault: 'environment' });
  }
}

/**
 * A tool ran past its `timeoutMs`: its signal fired and the run stopped waiting for it. An idempotent tool's call
 * becomes an error result the model reads (the message); any other is put to a person again, as after a crash,
 * since it may or may not have taken effect.
 *
 * @example
 * if (error instanceof ToolTimeoutError) console.log(error.toolName, error.timeoutMs);
 */
export class ToolTimeoutError extends OutcomeUnknownError {
  readonly toolName: string;
  readonly timeoutMs: number;

  constructor(toolName: string, timeoutMs: number) {
    super(`${toolName} timed out after ${timeoutMs} ms`);
    this.toolName = toolName;
    this.timeoutMs = timeoutMs;
  }
}

/**
 * A connector (an MCP server) could not be reached: the first connection
 * failed, or a call waited for a reconnect that did not come in time. The
 * call was not sent, so nothing happened on the other side.
 *
 * @example
 * try { await connection.callTool('create_issue', { title: 'x' }); }
 * catch (error) { if (error instanceof ConnectorUnavailableError) console.log(error.connector, error.status); }
 */
export class ConnectorUnavailableError extends CountersignError {
  readonly connector: string;
  readonly status: 'connecting' | 'disconnected' | 'failed';

  constructor(
    connector: string,
    status: ConnectorUnavailableError['status'],
    message: string,
    options: { cause?: unknown } = {},
  ) {
    super('connector_unavailable', message, { ...options, fault: 'environment' });
    this.connector = connector;
    this.status = status;
  }
}
