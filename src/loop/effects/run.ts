import { randomUUID } from 'node:crypto';
import type { Agent, AgentSettings } from '../../agent/agent-types.js';
import type { AgentEvent } from '../../machine/agent-machine.js';
import type { ExecuteOptions } from '../execute-options.js';
import { eventsBetween, type ModelDeltaEvent, type RunEvent } from '../../run/run-events.js';
import { step, stepAll } from '../../machine/step.js';
import type { AgentSnapshot } from '../../run/agent-snapshot.js';
import type { ExecuteTelemetry } from '../../ports/telemetry.js';

/** What an effect tells the loop: go on to the next state's effect, or stop (the run waits for people, or has ended). */
export type EffectOutcome = 'next' | 'stop';

const processLeaseOwner = `proc_${randomUUID()}`;

/**
 * One `execute` of a run, shared by the effects (src/loop/effects): the latest snapshot, how to advance and
 * checkpoint it, and the one signal the run's model and tool calls listen to. Built once per execute.
 */
export class Run {
  snapshot: AgentSnapshot;
  readonly agent: Agent;
  /** @internal `agent.settings`, which the published types leave out. */
  readonly settings: AgentSettings;
  readonly options: ExecuteOptions;
  readonly leaseOwner: string;
  /** This execute's spans, when the caller gave a `telemetry`. */
  readonly telemetry: ExecuteTelemetry | undefined;
  /** The approved calls of the turn whose decisions were checked in this execute (runTools checks each once). */
  readonly verified = new Set<string>();
  /** A streaming model's delta: out at once, to `onEvent` and `onModelDelta`, and never into the snapshot. */
  readonly announceDelta = (event: ModelDeltaEvent): void => {
    this.emit([event]);
    try {
      this.options.onModelDelta?.(event);
    } catch {
      // As with onEvent: the listener's failure is its own.
    }
  };
  #unsaved = false;
  #aborted = false;
  #abortReason: unknown;
  /** Built the first time a model or tool call asks for the run's signal: most runs are never aborted, and many never look. */
  #controller: AbortController | undefined;
  readonly #release: () => void;
  readonly #onOuterAbort = (): void => this.abort(this.options.signal?.reason);

  constructor(agent: Agent, snapshot: AgentSnapshot, options: ExecuteOptions, telemetry?: ExecuteTelemetry) {
    this.agent = agent;
    this.telemetry = telemetry;
    this.settings = agent.settings;
    this.snapshot = snapshot;
    this.options = options;
    this.leaseOwner = options.leaseOwner ?? processLeaseOwner;
    const outer = options.signal;
    if (outer?.aborted) this.#onOuterAbort();
    outer?.addEventListener('abort', this.#onOuterAbort, { once: true });
    this.#release = this.settings.inflight.register(snapshot.runId, this);
  }

  /** Whether the caller's signal or `cancel` (through the agent's inflight runs) aborted the run. */
  get aborted(): boolean {
    return this.#aborted;
  }

  /** The signal the run's model and tool calls get: it fires when the run is aborted. */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#abortReason);
    }
    return this.#controller.signal;
  }

  /** Aborts the run (the first reason counts), firing its signal. */
  abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#abortReason = reason;
    this.#controller?.abort(reason);
  }

  /** Tells the agent's `onEvent` each event; a listener's failure is the listener's, and the run goes on. */
  emit(events: readonly RunEvent[]): void {
    const onEvent = this.settings.onEvent;
    if (!onEvent) return;
    for (const event of events) {
      try {
        onEvent(event);
      } catch {
        // A listener's failure is the listener's; the run goes on.
      }
    }
  }

  /** Steps the snapshot through the events (one snapshot for all of them) and announces what changed. */
  advance(...events: AgentEvent[]): void {
    const next = events.length === 1 ? step(this.snapshot, events[0]!) : stepAll(this.snapshot, events);
    if (this.settings.onEvent) this.emit(eventsBetween(this.snapshot, next));
    this.snapshot = next;
    this.#unsaved = true;
  }

  /** Hands the latest snapshot to the checkpoint, when it changed since the last: before every effect, and before returning. */
  async save(): Promise<AgentSnapshot> {
    if (this.#unsaved && this.options.checkpoint) await this.options.checkpoint(this.snapshot);
    this.#unsaved = false;
    return this.snapshot;
  }

  /** Why the run was aborted, as the cancellation records it. */
  cancelReason(): string {
    const reason = this.signal.reason;
    return typeof reason === 'string'
      ? reason
      : reason instanceof Error && reason.name !== 'AbortError'
        ? reason.message
        : 'cancelled';
  }

  /** Stops listening to the caller's signal and leaves the agent's inflight runs. */
  close(): void {
    this.options.signal?.removeEventListener('abort', this.#onOuterAbort);
    this.#release();
  }
}
