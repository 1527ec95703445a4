import type { AgentSnapshot } from '../run/agent-snapshot.js';
import type { ModelDeltaEvent } from '../run/run-events.js';
import type { Telemetry } from '../ports/telemetry.js';

/** The options of `agent.execute` (`execute`): cancelling, checkpoints, the lease owner and the error and delta hooks. */
export interface ExecuteOptions {
  /** Aborting it cancels the run; a running tool sees its own signal fire. */
  readonly signal?: AbortSignal;
  /**
   * Called with the latest snapshot before each effect (a model call, a tool
   * call) and before `execute` returns, whenever something changed since the
   * last call: a store commits it here. Steps with no effect between them
   * (a tool result and the next tool's start) go out as one snapshot.
   * Throwing stops the run where it is.
   */
  readonly checkpoint?: (snapshot: AgentSnapshot) => Promise<void>;
  /** Who holds the lease on a started tool call; a random id per process otherwise. */
  readonly leaseOwner?: string;
  /**
   * Told the full error of a failed model call. The run's `error.message` is
   * only a public text (`The model call failed: HTTP 401 (authentication).`):
   * it is stored, served and sent in webhooks, and a provider's error can echo
   * the API key or a URL with a secret. Without `onError` the full error is printed once with `console.error`,
   * secrets redacted, and the run's message says so. `createRuntime` passes its own `onError` here. Also told (`operation:
   * 'grant'` or `'rule'`) of a grant in the grant store or a stored rule that fails its signature check and was ignored
   * (`GrantSignatureError`, `RuleSignatureError`); without `onError` that goes to `console.warn`.
   */
  readonly onError?: (
    error: unknown,
    context: { readonly operation: 'model' | 'grant' | 'rule'; readonly runId: string },
  ) => void;
  /**
   * Told each `model-delta` of a streaming model (`Model.stream`) as it comes, besides the agent's `onEvent`.
   * Deltas are not state: no checkpoint carries them. `createRuntime` passes them to its listeners, its notifier
   * and, where the store has one, the store's event stream.
   */
  readonly onModelDelta?: (event: ModelDeltaEvent) => void;
  /**
   * Spans of this execute, its model calls and its tool calls (`countersign/otel`). `createRuntime({ telemetry })`
   * passes its own, and records approval waits as well.
   */
  readonly telemetry?: Telemetry;
}
