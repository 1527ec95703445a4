import type { AgentSnapshot } from '../run/agent-snapshot.js';
import type { RunEvent } from '../run/run-events.js';
import type { ModelResponse } from '../run/types.js';

/**
 * One `execute` of a run as telemetry sees it: the model and tool calls made inside it, then its end. Each call is
 * handed over as a function to run, so an adapter can make it the current span of whatever the call does.
 *
 * @example
 * const scope: ExecuteTelemetry = {
 *   traceparent: undefined,
 *   chat: (_call, ask) => ask(),
 *   tool: (_call, run) => run(undefined),
 *   end: () => {},
 * };
 */
export interface ExecuteTelemetry {
  /**
   * The W3C `traceparent` of this execute, stored with each approval request it makes (`ApprovalRequest.traceparent`)
   * so whichever process records the decision can continue the trace.
   */
  readonly traceparent: string | undefined;
  /** Runs one model call (`model`: the model's `modelId`, when it has one). */
  chat(call: { readonly model: string | undefined }, ask: () => Promise<ModelResponse>): Promise<ModelResponse>;
  /** Runs one tool call, telling it the `traceparent` of its span (to pass on to what it calls), when it has one. */
  tool<T>(
    call: { readonly toolName: string; readonly toolCallId: string },
    run: (traceparent: string | undefined) => Promise<T>,
  ): Promise<T>;
  /** The execute returned `snapshot`, or threw `error`. */
  end(snapshot: AgentSnapshot, error?: unknown): void;
}

/**
 * Where the loop and the runtime report what they do, for traces and metrics (`countersign/otel`). Given to
 * `createRuntime({ telemetry })` (or `agent.execute(input, { telemetry })` without a runtime); nothing is called
 * when there is none. `recorded` is called after every commit of the runtime lands, with the run before and after
 * it and the events it announced: approval waits end there, in whichever process records the decision.
 *
 * @example
 * const counting: Telemetry = {
 *   execute: () => ({ traceparent: undefined, chat: (_c, ask) => ask(), tool: (_c, run) => run(undefined), end: () => {} }),
 *   recorded: ({ events }) => console.log(events.length, 'events'),
 * };
 */
export interface Telemetry {
  /** An execute of `run` starts (a new run, or a resume). */
  execute(run: {
    readonly runId: string;
    readonly agentName: string;
    readonly sessionId?: string;
    /** On a resume: the traces the turn's calls were asked in (`ToolCallRecord.traceparent`), the waits it follows. */
    readonly follows?: readonly string[];
    /** The trace the run continues (`ExecuteInput.traceparent`), for an execute with no span current. */
    readonly traceparent?: string;
  }): ExecuteTelemetry;
  /**
   * A channel delivered a card (`post`) or showed an outcome on one (`update`), or failed to after its retries: the
   * runtime's channels (Slack, Telegram, Discord, email) report each here.
   */
  delivered?(delivery: { readonly channel: string; readonly operation: 'post' | 'update'; readonly ok: boolean }): void;
  /** A commit landed: the run before it (none for a new run), after it, and what it announced. */
  recorded(change: {
    readonly before: AgentSnapshot | undefined;
    readonly after: AgentSnapshot;
    readonly events: readonly RunEvent[];
  }): void;
}
