// The runtime is one closure over one store, clock and listener set: starting, deciding (a compare-and-set loop
// with retries), resuming and announcing share them, so they stay together here (about 370 lines). What
// stands apart lives beside it: options (runtime-options.ts), expiry and recovery passes (runtime-maintenance.ts),
// adding a request from outside the model's turn (add-request.ts), announcing waiting requests again when a process
// starts (announce-pending.ts), one-click links (link-runtime.ts), listening for cancels from other processes
// (cancel-watch.ts).
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { z } from 'zod';
import { createMemoryOnceStore } from '../stores/memory/memory-once-store.js';
import { createMemoryStore } from '../stores/memory/memory-store.js';
import { AgentNotFoundError, ConfigError, RunExistsError, RunNotFoundError, VersionConflictError } from '../errors.js';
import type { ApprovalLinkOptions } from '../links/link-service.js';
import type { Agent } from '../agent/agent-types.js';
import { cancel as cancelSnapshot } from '../decisions/cancel.js';
import { startedRun } from '../loop/new-run.js';
import type { ExecuteInput } from '../loop/execute-input.js';
import { idSchema } from '../run/run-identity.js';
import { expiryDecisions } from '../policy/expiry.js';
import { nudgedRequests } from '../policy/nudge.js';
import { eventsBetween, type ModelDeltaEvent, type RunEvent } from '../run/run-events.js';
import { step } from '../loop/step.js';
import type { ApprovalResponse } from '../run/types.js';
import type { AgentSnapshot } from '../run/agent-snapshot.js';
import { withApprovalResponse } from '../decisions/with-approval-response.js';
import type { NewApprovalRequest } from '../decisions/with-approval-request.js';
import { withAddedRequest } from './add-request.js';
import { pendingAnnouncer } from './announce-pending.js';
import { voteProgress } from '../policy/quorum.js';
import { optionsObject, parseOptions } from '../kit/options.js';
import type { ResumeQueue } from '../ports/resume-queue.js';
import type { CommitOptions, CommitReceipt, ListPendingOptions } from '../ports/snapshot-store.js';
import { withLinks } from './link-runtime.js';
import { hasLiveLease, runtimeMaintenance } from './runtime-maintenance.js';
import { runtimeOptionsSchema, type RuntimeOptions } from './runtime-options.js';
import type { LinkedRuntime, RespondMode, RespondOptions, RespondResult, Runtime, StartOptions } from './runtime.js';
import { idempotencyKeySchema, runIdForKey, sameStart } from './idempotent-start.js';
import { cancelWatch } from './cancel-watch.js';
import { connectorStates } from './connector-statuses.js';
import { warnOfUnsignedAgents } from './unsigned-agents-warning.js';
import { runtimeGrants } from './runtime-grants.js';

export type { RuntimeOptions } from './runtime-options.js';

const runIdSchema = z.string().min(1, 'is empty').max(256, 'is longer than 256 characters');

/** The receipt of a commit that did nothing beyond the write. */
// Voters on one quorum request contend by design: with 20 at once a voter can lose 19 rounds before it lands.
const VOTE_RETRIES = 60;

const NOTHING_DONE: CommitReceipt = { queued: false, replaced: false };

// Built once: a zod schema costs far more to build than to check a value with (a decision would pay it every call).
const modeSchema = z.enum(['inline', 'record', 'enqueue']).default('inline');
const pendingSchema = optionsObject({
  limit: z.number().int().min(1).max(500).optional(),
  cursor: z.string().max(1024).optional(),
  agent: z.string().max(128).optional(),
  sessionId: idSchema.optional(),
});

function parse<T>(schema: z.ZodType<T>, value: unknown, where: string, hint = ''): T {
  return parseOptions(schema, value, where, { subject: 'argument', hint: hint.trim() });
}

const ended = new Set(['completed', 'failed', 'cancelled']);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Agents plus a store: starts runs, records each decision exactly once with
 * a compare-and-set, resumes runs (here, or on a worker), expires and
 * recovers them. Every step of a run is committed before the next effect, so
 * a process can die anywhere and `recover()` picks the run up.
 *
 * @example
 * const runtime = createRuntime({ agents: [agent], store: createMemoryStore() });
 * const paused = await runtime.start('files', { input: 'remove /tmp/x' });
 * const { status } = await runtime.respond(paused.runId, {
 *   approvalId: paused.pendingApprovals[0]!.approvalId,
 *   approved: true,
 *   approvedBy: 'alice',
 * });
 * status; // 'completed'
 */
export function createRuntime(options: RuntimeOptions & { readonly links: Omit<ApprovalLinkOptions, 'clock'> }): LinkedRuntime;
export function createRuntime(options: RuntimeOptions): Runtime;
export function createRuntime(options: RuntimeOptions): Runtime {
  parse(runtimeOptionsSchema, options, 'createRuntime');
  const agents = new Map<string, Agent>();
  for (const agent of options.agents) {
    if (agents.has(agent.name)) throw new ConfigError(`createRuntime: two agents are named ${agent.name}; agent names must be unique.`);
    agents.set(agent.name, agent);
  }
  const store = options.store ?? createMemoryStore();
  warnOfUnsignedAgents(store, options.agents);
  const once = options.once ?? store.once ?? (store.shared ? undefined : createMemoryOnceStore());
  if (once === undefined) {
    throw new ConfigError(
      'createRuntime: this store is shared by several processes and offers no OnceStore, so spent links and webhook ids would be kept per process; pass createRuntime({ once }) (createRedisOnceStore({ redis }) for Redis).',
      'missing_option',
    );
  }
  const clock = options.clock ?? Date.now;
  const maxRetries = options.maxRetries ?? 10;
  const staleAfterMs = options.staleAfterMs ?? 60_000;
  const leaseOwner = options.workerId ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const listeners = new Set<(event: RunEvent) => void>();

  const reportError = (error: unknown, operation: string, runId?: string) => {
    try {
      options.onError?.(error, runId === undefined ? { operation } : { operation, runId });
    } catch {
      // The error reporter's own failure has nowhere left to go.
    }
  };

  /**
   * The full error of a failed model call (the run's own `error` only says what others may read), or a refused grant
   * or rule: to `onError`; with none, execute prints it (console.error, redacted) and the run's message says so.
   */
  const executeReports =
    options.onError === undefined
      ? {}
      : { onError: (error: unknown, context: { readonly operation: string; readonly runId: string }) => reportError(error, context.operation, context.runId) };

  /** Tells listeners and the notifier what a commit that just landed announced (or a model's delta). */
  const announce = (events: readonly RunEvent[]) => {
    if (events.length === 0) return;
    for (const event of events) {
      for (const listener of listeners) {
        try {
          listener(event);
        } catch (error) {
          reportError(error, 'listener', event.runId);
        }
      }
    }
    options.notifier?.publish(events).catch((error: unknown) => reportError(error, 'notify', events[0]!.runId));
  };

  /**
   * Tells listeners, the notifier and the store's event stream of a streaming model's delta at once: it announces
   * no state, so it waits for no commit, and nothing replays it to whoever was not listening.
   */
  const announceDelta = (event: ModelDeltaEvent) => {
    const events = [event];
    announce(events);
    store.publishTransient?.(events).catch((error: unknown) => reportError(error, 'notify', event.runId));
  };

  type Change<T> = (current: AgentSnapshot) => { next: AgentSnapshot; result: T } | { unchanged: T };
  /** What a commit of `next` should also do in the same write, where the store can (queue the run, settle a claim). */
  type OptionsFor = (next: AgentSnapshot) => CommitOptions | undefined;

  /** Stores `next` (with its events); the receipt says what the store also did in the same write. */
  const commit = async (next: AgentSnapshot, previous: AgentSnapshot | undefined, commitOptions?: CommitOptions): Promise<CommitReceipt> => {
    const events = eventsBetween(previous, next);
    const receipt = previous === undefined ? await store.create(next, events) : await store.commit(next, previous.version, events, commitOptions);
    // A held claim stopped the commit: nothing to announce.
    if (receipt?.held === undefined) announce(events);
    return receipt ?? NOTHING_DONE;
  };

  /** Commits every step of an execution, starting from `from` (undefined for a new run). */
  const checkpointFrom = (from: AgentSnapshot | undefined) => {
    let stored = from;
    return async (next: AgentSnapshot) => {
      await commit(next, stored);
      stored = next;
    };
  };

  const agentNamed = (name: string): Agent => {
    const agent = agents.get(name);
    if (!agent) throw new AgentNotFoundError(name, [...agents.keys()]);
    return agent;
  };

  const get = async (runId: string): Promise<AgentSnapshot> => {
    parse(runIdSchema, runId, 'runId');
    const snapshot = await store.load(runId);
    if (!snapshot) throw new RunNotFoundError(runId);
    return snapshot;
  };

  /**
   * Changes the run as the store last saw it here (`peek`, no round trip) and commits that: the store's
   * compare-and-set refuses it if the run moved on. Only a commit is trusted from it; a refusal, a change that
   * throws or finds nothing to do falls back to a load (undefined), which decides.
   */
  const fromPeek = async <T>(runId: string, change: Change<T>, optionsFor?: OptionsFor) => {
    const current = store.peek?.(runId);
    if (current === undefined) return undefined;
    let outcome: ReturnType<typeof change>;
    try {
      outcome = change(current);
    } catch {
      return undefined;
    }
    if ('unchanged' in outcome) return undefined;
    let receipt: CommitReceipt;
    try {
      receipt = await commit(outcome.next, current, optionsFor?.(outcome.next));
    } catch (error) {
      if (error instanceof VersionConflictError) return undefined;
      throw error;
    }
    return committedOrHeld(current, outcome, receipt);
  };

  /** What a commit made of a change: the new run, or (a held claim stopped it) the run as it was. */
  const committedOrHeld = <T>(current: AgentSnapshot, outcome: { next: AgentSnapshot; result: T }, receipt: CommitReceipt) =>
    receipt.held === undefined ? { next: outcome.next, result: outcome.result, committed: true, receipt } : { next: current, result: outcome.result, committed: false, receipt };

  /** Loads, changes and commits a run, reloading and trying again when another writer commits first. */
  const update = async <T>(
    runId: string,
    change: Change<T>,
    optionsFor?: OptionsFor,
    retriesFor: (current: AgentSnapshot) => number = () => maxRetries,
  ): Promise<{ next: AgentSnapshot; result: T; committed: boolean; receipt: CommitReceipt }> => {
    parse(runIdSchema, runId, 'runId');
    const peeked = await fromPeek(runId, change, optionsFor);
    if (peeked) return peeked;
    for (let attempt = 0; ; attempt++) {
      const current = await get(runId);
      const outcome = change(current);
      if ('unchanged' in outcome) return { next: current, result: outcome.unchanged, committed: false, receipt: NOTHING_DONE };
      try {
        return committedOrHeld(current, outcome, await commit(outcome.next, current, optionsFor?.(outcome.next)));
      } catch (error) {
        if (!(error instanceof VersionConflictError) || attempt >= retriesFor(current)) throw error;
        // Spread the retries so a crowd of callers on one run does not collide again in lockstep.
        await pause(Math.random() * Math.min(50, 2 ** attempt));
      }
    }
  };

  const listeningForCancels = cancelWatch(store, agents, reportError);
  const grantOps = runtimeGrants(agents, clock);

  /** How many carry-ons of each run are under way in this process (a repeat leaves such a run to them). */
  const carrying = new Map<string, number>();

  /** Runs a stored run on from where it is; a writer that commits first wins and its view is returned. */
  const continueRun = async (snapshot: AgentSnapshot): Promise<AgentSnapshot> => {
    const agent = agentNamed(snapshot.agentName);
    const { runId } = snapshot;
    carrying.set(runId, (carrying.get(runId) ?? 0) + 1);
    try {
      return await listeningForCancels(() => agent.execute(snapshot, { checkpoint: checkpointFrom(snapshot), leaseOwner, ...executeReports, onModelDelta: announceDelta }));
    } catch (error) {
      if (!(error instanceof VersionConflictError)) throw error;
      return get(runId);
    } finally {
      const left = (carrying.get(runId) ?? 1) - 1;
      if (left === 0) carrying.delete(runId);
      else carrying.set(runId, left);
    }
  };

  const resume = async (runId: string): Promise<AgentSnapshot> => {
    const snapshot = await get(runId);
    if (ended.has(snapshot.status) || hasLiveLease(snapshot, clock())) return snapshot;
    return continueRun(snapshot);
  };

  /** The queue of mode 'enqueue', checked before anything is written, so a misconfigured call records nothing. */
  const queueFor = (mode: RespondMode, where: string): ResumeQueue | undefined => {
    if (mode !== 'enqueue') return undefined;
    if (!options.queue) {
      throw new ConfigError(
        `${where}: mode 'enqueue' needs a queue; pass createRuntime({ queue: createRedisResumeQueue({ redis }) }), or use mode 'inline'. Nothing was recorded.`,
        'missing_option',
      );
    }
    return options.queue;
  };
  const modeOf = (value: RespondMode | undefined, where: string): RespondMode => parse(modeSchema, value, where, " Use 'inline', 'record' or 'enqueue'.");

  const carryOn = async (snapshot: AgentSnapshot, mode: RespondMode, queued = false): Promise<AgentSnapshot> => {
    if (snapshot.status !== 'running' || mode === 'record') return snapshot;
    const queue = queueFor(mode, 'carry on');
    if (queue) {
      if (!queued) await queue.enqueue(snapshot.runId);
      return snapshot;
    }
    return continueRun(snapshot);
  };

  /**
   * A repeat of a recorded decision (or of a start) finds the run as its first attempt left it, which may have
   * failed after its write landed (a replica wait that timed out, a queue write that failed, a lost answer), so
   * nothing may be carrying the run on. A run that is ready and whose tool call holds no live lease is carried on:
   * queued again in enqueue mode (a second job for a run already moving is harmless), resumed here inline unless
   * this process is already at it. Another process still at work on it is not known here; racing it is safe (the
   * compare-and-set lets one commit land, a tool runs under a lease, so at most once) and costs at most one model
   * call whose result is dropped.
   */
  const carryOnRepeat = async (snapshot: AgentSnapshot, mode: RespondMode): Promise<AgentSnapshot> => {
    if (snapshot.status !== 'running' || hasLiveLease(snapshot, clock())) return snapshot;
    if (mode === 'enqueue') return carryOn(snapshot, mode);
    if (mode === 'inline' && !carrying.has(snapshot.runId)) return continueRun(snapshot);
    return snapshot;
  };

  /** The start's input with the run id its idempotency key stands for. */
  const keyed = (input: ExecuteInput, key: string | undefined): ExecuteInput => {
    if (key === undefined) return input;
    parse(idempotencyKeySchema, key, 'start: idempotencyKey');
    if (input.runId !== undefined) {
      throw new ConfigError('start: pass a runId or an idempotencyKey, not both; the run id is what makes a start idempotent, and a key stands for one when you have none.');
    }
    return { ...input, runId: runIdForKey(key) };
  };

  const respond = async (runId: string, response: ApprovalResponse, respondOptions: RespondOptions = {}): Promise<RespondResult> => {
    const mode = modeOf(respondOptions.mode, 'respond');
    const queue = queueFor(mode, 'respond');
    const { replaceRemembered, claimRemembered } = respondOptions;
    if (claimRemembered !== undefined && store.claimsInCommit !== true) {
      throw new ConfigError(
        'respond: claimRemembered needs a store that claims in its commit (store.claimsInCommit, the Redis store on one server); claim the key with once.putIfAbsent first. Nothing was recorded.',
      );
    }
    // A decision that makes the run ready asks the store to queue it in the same write (one round trip where it can).
    const optionsFor: OptionsFor = (next) => {
      const replace = replaceRemembered?.(next);
      const claim = claimRemembered?.(next);
      return {
        ...(queue !== undefined && next.status === 'running' ? { queue } : {}),
        ...(replace === undefined ? {} : { replaceRemembered: replace }),
        ...(claim === undefined ? {} : { claimRemembered: claim }),
      };
    };
    const { next, committed, receipt } = await update(
      runId,
      (current) => {
        const decided = withDecision(current, response);
        return decided === current ? { unchanged: undefined } : { next: decided, result: undefined };
      },
      optionsFor,
      // Voters on one request are expected to collide: each round of the compare-and-set lands one of them.
      (current) => (current.pendingApprovals.find((request) => request.approvalId === response.approvalId)?.quorum !== undefined ? Math.max(maxRetries, VOTE_RETRIES) : maxRetries),
    );
    const progress = voteProgress(next, response.approvalId);
    const vote = progress === undefined ? {} : { vote: { recorded: committed, approvals: progress.approvals, required: progress.required, remaining: progress.remaining } };
    if (receipt.held !== undefined) return { snapshot: next, status: next.status, duplicate: false, held: receipt.held, ...vote };
    // After the commit, and on a repeat too (the first responder may have failed between the two): a session or agent
    // decision's grant covers calls from now on, even in mode 'record' where nothing resumes the run here.
    await grantOps.recordDecision(next, response.approvalId);
    const after = committed ? await carryOn(next, mode, receipt.queued) : await carryOnRepeat(next, mode);
    return { snapshot: after, status: after.status, duplicate: !committed, ...(receipt.replaced ? { replaced: true } : {}), ...vote };
  };

  const withDecision = (current: AgentSnapshot, response: ApprovalResponse): AgentSnapshot => {
    const agent = agentNamed(current.agentName);
    return withApprovalResponse(current, response, { agent });
  };

  const maintenance = runtimeMaintenance({
    store,
    clock,
    staleAfterMs,
    expire: (runId, now) =>
      update(runId, (current) => {
        const decisions = expiryDecisions(current, now);
        if (decisions.length === 0) return { unchanged: 0 };
        return { next: step(current, { type: 'DECIDED', at: now, decisions }), result: decisions.length };
      }),
    nudge: (runId, now) =>
      update(runId, (current) => {
        const nudged = nudgedRequests(current, now, agentNamed(current.agentName).settings.decisionSecret);
        if (nudged.requests.length === 0) return { unchanged: { reminded: 0, escalated: 0 } };
        return { next: step(current, { type: 'NUDGED', at: now, requests: nudged.requests }), result: nudged };
      }),
    carryOn: (next) => carryOn(next, options.queue ? 'enqueue' : 'inline'),
    continueRun,
    reportError,
  });

  const addRequest = async (runId: string, request: NewApprovalRequest): Promise<AgentSnapshot> => {
    const { next } = await update(runId, (current) => {
      const added = withAddedRequest(current, request, agentNamed(current.agentName));
      return added === current ? { unchanged: undefined } : { next: added, result: undefined };
    });
    return next;
  };

  const announcePending = pendingAnnouncer({ store, once, clock, announce, reportError, owner: leaseOwner });
  if (options.announcePendingOnStart === true) void announcePending();

  const { recordDecision: _recordDecision, ...grantQueries } = grantOps;
  const runtime: Runtime = {
    store,
    once,
    ...(options.queue === undefined ? {} : { queue: options.queue }),
    agent: agentNamed,
    async start(agentName: string, input: ExecuteInput, startOptions: StartOptions = {}) {
      const mode = modeOf(startOptions.mode, 'start');
      const agent = agentNamed(agentName);
      queueFor(mode, 'start');
      const named = keyed(input, startOptions.idempotencyKey);
      // Recorded before anything runs, so a caller told "started" can count on the run existing.
      const created = startedRun(agent, named);
      try {
        await commit(created, undefined);
      } catch (error) {
        if (!(error instanceof VersionConflictError) || named.runId === undefined) throw error;
        // The run id is taken: by an earlier attempt of this very start (its answer failed or was lost), or by another.
        const existing = await store.load(created.runId);
        if (existing === undefined) throw error;
        if (!sameStart(existing, created)) throw new RunExistsError(created.runId);
        return carryOnRepeat(existing, mode);
      }
      return carryOn(created, mode);
    },
    get,
    respond,
    addRequest,
    announcePending,
    resume,
    async pending(listOptions: ListPendingOptions = {}) {
      parse(pendingSchema, listOptions, 'pending');
      return store.listPending(listOptions);
    },
    async cancel(runId: string, reason = 'cancelled') {
      const { next } = await update(runId, (current) => {
        const cancelled = cancelSnapshot(current, reason, { agent: agentNamed(current.agentName), now: clock() });
        return cancelled === current ? { unchanged: undefined } : { next: cancelled, result: undefined };
      });
      // Told again on a repeat, so a caller whose first notice failed after the commit can simply cancel again.
      if (next.status === 'cancelled') await store.cancels?.publish({ runId, reason: next.error?.message ?? reason });
      return next;
    },
    ...maintenance,
    subscribe(listener: (event: RunEvent) => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    connectors: () => connectorStates(agents.values()),
    ...grantQueries,
  };
  return options.links === undefined ? runtime : withLinks(runtime, { ...options.links, clock });
}
