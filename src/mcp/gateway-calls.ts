// One tools/call through the gateway: a run in the runtime, found again by a digest of the client and the call so the
// client's retried call waits on the same run (and two identical calls of one client at once make one approval),
// awaited up to waitMs. The run may be
// decided anywhere; the follower carries it on here, where the upstream is, while a call waits and after.
import { randomUUID } from 'node:crypto';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { RunNotFoundError, StoreUnavailableError } from '../errors.js';
import type { AgentSnapshot, Runtime } from '../index.js';
import { digestOf, awaitRun, nextRunEvent, oneCallInput } from '../kit/index.js';
import { errorAnswer, finalAnswer, pendingAnswer } from './gateway-answer.js';
import { ENDED, type RunFollower } from './gateway-follower.js';
import type { LinkPageAsk } from './gateway-link-elicitation.js';

export interface GatewayCallSettings {
  readonly runtime: Runtime;
  readonly agentName: string;
  /** How long a call waits for its run to end before answering "pending". */
  readonly waitMs: number;
  /** How long a call whose client was sent the approval's link page waits for the decision before answering "pending". */
  readonly elicitationWaitMs: number;
  /** How long a call's key names its run (longer than an approval can wait, so a retry finds its outcome). */
  readonly keyTtlMs: number;
  /** Follows the calls' runs, and carries them on. */
  readonly follower: RunFollower;
}

/** One tools/call of a client: the tool, its arguments, and the trace the client called it in (`_meta.traceparent`). */
interface ClientCall {
  readonly tool: string;
  readonly args: Record<string, unknown>;
  readonly traceparent?: string | undefined;
}

/** How a client's call is made: cancelled by `signal`, in the trace `traceparent` names, its client asked by `asker`. */
export interface CallOptions {
  readonly signal?: AbortSignal | undefined;
  readonly traceparent?: string | undefined;
  /** Sends the client the link page of the approval its call waits for (URL-mode elicitation), when it takes one. */
  readonly asker?: LinkPageAsk | undefined;
  /**
   * The client does not block on this call (a task it polls): wait up to this long for the run to end, and when
   * `signal` aborts first (the task was cancelled), withdraw the call's request so nobody can approve it any longer.
   */
  readonly detachedMs?: number | undefined;
}

/** How often a waiting call looks at its run (events of this process wake it at once). */
const POLL_MS = 200;
/** Wake-ups by the run's own events one wait takes at most (a gateway run commits a handful of times). */
const EVENT_WAKES = 16;
/** Times a call tries to take its key from a starter that died before recording its run. */
const KEY_ATTEMPTS = 3;

/** The passes of a wait of `waitMs` at most: one per poll, plus the wake-ups by events. */
export const maxPasses = (waitMs: number) => Math.ceil(waitMs / POLL_MS) + EVENT_WAKES;

/** The function that answers one tools/call of the client named `client` (`toolName` as the gateway lists it). */
export function gatewayCalls(settings: GatewayCallSettings) {
  const calls = new GatewayCalls(settings);
  return (client: string, tool: string, args: Record<string, unknown>, options: CallOptions = {}) =>
    calls.answer(client, { tool, args, traceparent: options.traceparent }, options);
}

/** A run that no longer needs anything from this call: ended, or waiting for a person (whom an asker can send). */
const endedOrAsking = (snapshot: AgentSnapshot) => ENDED.has(snapshot.status) || snapshot.status === 'awaitingApproval';

/** The calls' moves: find or start a call's run, wait for it to settle, answer. */
class GatewayCalls {
  readonly #settings: GatewayCallSettings;
  readonly #runtime: Runtime;
  readonly #follower: RunFollower;
  readonly #keyPrefix: string;

  constructor(settings: GatewayCallSettings) {
    this.#settings = settings;
    this.#runtime = settings.runtime;
    this.#follower = settings.follower;
    this.#keyPrefix = `mcp-gateway:${settings.agentName}:`;
  }

  async answer(client: string, call: ClientCall, { signal, asker, detachedMs }: CallOptions): Promise<CallToolResult> {
    const { tool, args } = call;
    // Keyed by the client: another client's identical call is its own call, asks on its own, and never gets this outcome.
    const key = `${this.#keyPrefix}${digestOf({ client, tool, args })}`;
    try {
      const runId = await this.#runFor(key, client, call);
      if (detachedMs !== undefined) return await this.#settleDetached(key, runId, detachedMs, signal);
      // A client that can be sent the link page is sent it as soon as the run waits for a person, whatever waitMs says.
      let snapshot =
        asker === undefined
          ? await this.#settle(runId, this.#settings.waitMs, signal)
          : await this.#settle(runId, this.#settings.elicitationWaitMs, signal, endedOrAsking);
      if (asker !== undefined && snapshot.status === 'awaitingApproval')
        snapshot = await this.#settleAsking(runId, snapshot, asker, signal);
      if (!ENDED.has(snapshot.status)) return pendingAnswer(snapshot);
      // Answered: a later identical call is a new call, and asks again.
      await this.#runtime.once.replace(key, runId, undefined, this.#settings.keyTtlMs);
      return finalAnswer(snapshot);
    } catch (error) {
      return errorAnswer(
        `The approval gateway could not handle the call: ${(error as Error)?.message ?? String(error)}`,
      );
    }
  }

  async #exists(runId: string): Promise<boolean> {
    // A run is recorded just after its key is taken: give its starter one poll before calling the key abandoned.
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        await this.#runtime.get(runId);
        return true;
      } catch (error) {
        if (!(error instanceof RunNotFoundError)) throw error;
        await pause(POLL_MS);
      }
    }
    return false;
  }

  /** The run of this call: the one this client's identical call started and that has not been answered since, or a new one. */
  async #runFor(key: string, client: string, call: ClientCall): Promise<string> {
    const { runtime, follower, keyTtlMs } = this.#settings;
    for (let attempt = 0; attempt < KEY_ATTEMPTS; attempt++) {
      const fresh = `mcpgw_${randomUUID()}`;
      const held = await runtime.once.putIfAbsent(key, fresh, keyTtlMs);
      if (held === undefined) {
        await this.#start(key, fresh, client, call);
        return fresh;
      }
      if (await this.#exists(held)) {
        follower.follow(held);
        return held;
      }
      // Its starter died before recording it: free the key and take it.
      await runtime.once.replace(key, held, undefined, keyTtlMs);
    }
    throw new StoreUnavailableError(
      `The call's key changed hands ${KEY_ATTEMPTS} times while this call tried to take it; call the tool again.`,
    );
  }

  /** Starts the run `runId` whose key this call took (freeing the key when the start fails), and carries it on. */
  async #start(key: string, runId: string, client: string, call: ClientCall): Promise<void> {
    const { runtime, follower, keyTtlMs, agentName } = this.#settings;
    const { tool, args, traceparent } = call;
    try {
      await runtime.start(
        agentName,
        {
          input: oneCallInput({ tool, arguments: args }),
          runId,
          requestedBy: requester(client),
          ...(traceparent === undefined ? {} : { traceparent }),
        },
        { mode: 'record' },
      );
    } catch (error) {
      await runtime.once.replace(key, runId, undefined, keyTtlMs);
      throw error;
    }
    follower.follow(runId);
    void follower.carryOn(runId).catch(() => undefined);
  }

  /** The answer of a call the client does not block on; its request withdrawn when `signal` aborts before the run ends. */
  async #settleDetached(key: string, runId: string, waitMs: number, signal?: AbortSignal): Promise<CallToolResult> {
    const snapshot = await this.#settle(runId, waitMs, signal);
    if (ENDED.has(snapshot.status)) {
      await this.#runtime.once.replace(key, runId, undefined, this.#settings.keyTtlMs);
      return finalAnswer(snapshot);
    }
    if (!signal?.aborted) return pendingAnswer(snapshot);
    const cancelled = await this.#runtime.cancel(runId, 'the MCP client cancelled its task');
    await this.#runtime.once.replace(key, runId, undefined, this.#settings.keyTtlMs);
    return finalAnswer(cancelled);
  }

  /**
   * The run once the client was sent the link page of `paused`'s approval and the run ended, or as it stands when
   * `elicitationWaitMs` is up, the call is cancelled, or the client did not accept. The client's answer only ends the
   * wait: it never decides the call.
   */
  async #settleAsking(
    runId: string,
    paused: AgentSnapshot,
    asker: LinkPageAsk,
    signal?: AbortSignal,
  ): Promise<AgentSnapshot> {
    const { elicitationWaitMs } = this.#settings;
    const stop = new AbortController();
    const cancelled = () => stop.abort();
    signal?.addEventListener('abort', cancelled, { once: true });
    try {
      void asker.ask(runId, paused.pendingApprovals[0]!, elicitationWaitMs, stop.signal).then((hint) => {
        if (hint !== 'accept') stop.abort();
      });
      const snapshot = await this.#settle(runId, elicitationWaitMs, stop.signal);
      if (ENDED.has(snapshot.status)) await asker.decided();
      return snapshot;
    } finally {
      // An elicitation still unanswered is withdrawn (the client is told the request was cancelled).
      stop.abort();
      signal?.removeEventListener('abort', cancelled);
    }
  }

  /**
   * The run once it ended (or `until` holds), or as it stands after `waitMs`, when `signal` aborts, or after
   * `maxPasses` looks. Each pass checks all three; a resume a look just started (a decision is in, an approval
   * expired, a lease ended) is awaited for its outcome, even past the deadline, unless the call is cancelled.
   */
  async #settle(
    runId: string,
    waitMs: number,
    signal?: AbortSignal,
    until: (snapshot: AgentSnapshot) => boolean = (snapshot) => ENDED.has(snapshot.status),
  ): Promise<AgentSnapshot> {
    const deadline = Date.now() + waitMs;
    const passes = maxPasses(waitMs);
    let snapshot = await this.#lookAndCarryOn(runId, signal);
    for (let pass = 1; !until(snapshot); pass++) {
      const now = Date.now();
      if (now >= deadline || signal?.aborted || pass >= passes) return snapshot;
      const own = this.#follower.going(runId);
      // A failure after the wait surfaces to the next waiter, which carries the run on again.
      if (own !== undefined) await awaitRun(own, deadline - now, () => undefined);
      else await nextRunEvent(this.#runtime, runId, Math.min(POLL_MS, deadline - now), signal);
      snapshot = await this.#lookAndCarryOn(runId, signal);
    }
    return snapshot;
  }

  /** The run as a look finds it; when that look started its resume here, the run after the resume (or at cancellation). */
  async #lookAndCarryOn(runId: string, signal?: AbortSignal): Promise<AgentSnapshot> {
    const before = this.#follower.going(runId);
    const snapshot = await this.#follower.look(runId);
    const started = this.#follower.going(runId);
    if (started === undefined || started === before) return snapshot;
    return (await untilAborted(started, signal)) ?? snapshot;
  }
}

/** The runs' `requestedBy` for the client named `client`. */
export const requester = (client: string) => `mcp:${client}`;

/** `work`'s value, or undefined once `signal` aborts first (the work goes on; its failure is the follower's to report). */
function untilAborted<T>(work: Promise<T>, signal?: AbortSignal): Promise<T | undefined> {
  if (signal === undefined) return work;
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise<T | undefined>((resolve, reject) => {
    const aborted = () => resolve(undefined);
    signal.addEventListener('abort', aborted, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', aborted));
  });
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
