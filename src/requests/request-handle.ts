// A handle on one request from a caller outside the agent loop: where it stands, a wait for its decision (woken by
// this process's events, else by looking again), and a cancel. Any process on the store can hold one.
import { ConfigError } from '../errors.js';
import type { AgentSnapshot } from '../run/agent-snapshot.js';
import type { RunEvent } from '../run/run-events.js';
import { nextRunEvent } from './next-run-event.js';
import { REQUEST_AGENT_NAME } from './request-agent.js';
import type { Answer } from '../run/question.js';
import { type RequestOutcome, type RequestState, requestStateOf } from './request-state.js';

/**
 * A request made with `runtime.requestApproval` (or found again with `runtime.approvalRequest(id)`).
 *
 * @example
 * const handle = await runtime.requestApproval({ tool: 'deploy', args: { service: 'billing' }, key: 'deploy-48' });
 * const state = await handle.wait({ timeoutMs: 15 * 60_000 });
 * if (state.status === 'pending') await handle.cancel('nobody answered in 15 minutes');
 */
export interface RequestHandle<A = Answer> {
  /** The request's id (its run's id): `runtime.approvalRequest(id)` finds it again, in any process on the store. */
  readonly id: string;
  /** Where it stands now. Throws `RunNotFoundError` for an id no request has. */
  status(): Promise<RequestState<A>>;
  /**
   * Resolves once it is decided (or cancelled, or failed), or with its `'pending'` state when `timeoutMs` passes or
   * `signal` aborts first (so without options it resolves with an outcome only). A decision recorded in another
   * process is seen within a second.
   */
  wait(): Promise<RequestOutcome<A>>;
  wait(options: WaitOptions): Promise<RequestState<A>>;
  /** Withdraws it: nobody can approve it any longer. A request already decided stays as it was decided. */
  cancel(reason?: string): Promise<RequestState<A>>;
}

/** How long `handle.wait` waits. */
export interface WaitOptions {
  readonly signal?: AbortSignal;
  /** At most this long; no limit when left out. */
  readonly timeoutMs?: number;
}

/** What a handle needs of the runtime. */
export interface RequestRuns {
  get(runId: string): Promise<AgentSnapshot>;
  resume(runId: string): Promise<AgentSnapshot>;
  cancel(runId: string, reason?: string): Promise<AgentSnapshot>;
  subscribe(listener: (event: RunEvent) => void): () => void;
}

/** How often a wait looks at the store when no event of this process wakes it, growing to `MAX_LOOK_MS`. */
const FIRST_LOOK_MS = 100;
const MAX_LOOK_MS = 1000;

/** The handle of the request `id`; `typed` reads an answer as the caller's own type (`requestInput`'s schema). */
export function requestHandle<A = Answer>(
  runs: RequestRuns,
  id: string,
  typed: (answer: Answer) => A = (answer) => answer as A,
): RequestHandle<A> {
  const stateOf = (snapshot: AgentSnapshot): RequestState<A> => {
    const state = requestStateOf(snapshot);
    return state.status === 'pending' || state.answer === undefined
      ? (state as RequestState<A>)
      : { ...state, answer: typed(state.answer) };
  };
  const look = async (): Promise<{ snapshot: AgentSnapshot; state: RequestState<A> }> => {
    const snapshot = await runs.get(id);
    if (snapshot.agentName !== REQUEST_AGENT_NAME)
      throw new ConfigError(
        `Run ${id} belongs to agent ${snapshot.agentName}, so it is not a request made with requestApproval; decide it with runtime.respond and read it with runtime.get.`,
      );
    return { snapshot, state: stateOf(snapshot) };
  };
  return {
    id,
    status: async () => (await look()).state,
    wait: (async ({ signal, timeoutMs }: WaitOptions = {}) => {
      const deadline = timeoutMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + timeoutMs;
      for (let lookMs = FIRST_LOOK_MS; ; lookMs = Math.min(lookMs * 2, MAX_LOOK_MS)) {
        const { snapshot, state } = await look();
        if (state.status !== 'pending') return finish(runs, snapshot, state);
        const left = deadline - Date.now();
        if (signal?.aborted || left <= 0) return state;
        await nextRunEvent(runs, id, Math.min(lookMs, left), signal);
      }
    }) as RequestHandle<A>['wait'],
    async cancel(reason = 'cancelled by the caller that asked') {
      const { snapshot, state } = await look();
      if (state.status !== 'pending' || snapshot.status === 'cancelled') return state;
      return stateOf(await runs.cancel(id, reason));
    },
  };
}

/** How long a decided run may stay open before a waiter carries it to its end (its decider usually has by then). */
const FINISH_AFTER_MS = 5_000;

/**
 * A decided request whose run was recorded without going on (the decision came in mode `'record'`) is carried to its
 * end from here once its decider has had time to do it, so the run does not stay open and two processes do not race
 * to finish it; a failure to do so changes nothing the caller was told.
 */
function finish<A>(runs: RequestRuns, snapshot: AgentSnapshot, state: RequestState<A>): RequestState<A> {
  if (snapshot.status !== 'running') return state;
  const later = setTimeout(() => {
    void runs
      .get(snapshot.runId)
      .then((current) => (current.status === 'running' ? runs.resume(current.runId) : current))
      .catch(() => undefined);
  }, FINISH_AFTER_MS);
  later.unref();
  return state;
}
