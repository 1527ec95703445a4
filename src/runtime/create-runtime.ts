// createRuntime wires a runtime from small parts: a ledger (the store's compare-and-set, with retries and
// announcements, ledger.ts), how a recorded run carries on (carry-on.ts), and one module per operation: start
// (start.ts), respond (respond.ts), cancel (cancel-run.ts), expiry and recovery passes (runtime-maintenance.ts),
// adding a request from outside the model's turn (add-request.ts), announcing waiting requests again when a process
// starts (announce-pending.ts), one-click links (link-runtime.ts), listening for cancels from other processes
// (cancel-watch.ts).
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { createMemoryOnceStore } from '../stores/memory/memory-once-store.js';
import { createMemoryStore } from '../stores/memory/memory-store.js';
import { AgentNotFoundError, ConfigError } from '../errors.js';
import type { ApprovalLinkOptions } from '../links/link-service.js';
import type { Agent } from '../agent/agent-types.js';
import { idSchema } from '../run/run-identity.js';
import { expiryEvents } from '../policy/expiry.js';
import { nudgeEvents } from '../policy/nudge.js';
import { stepAll } from '../machine/step.js';
import { optionsObject } from '../options.js';
import type { ResumeQueue } from '../ports/resume-queue.js';
import type { OnceStore } from '../ports/once-store.js';
import type { ListPendingOptions, SnapshotStore } from '../ports/snapshot-store.js';
import { z } from 'zod';
import { addRequestOperation } from './add-request.js';
import { pendingAnnouncer } from './announce-pending.js';
import { createAnnouncer, type ReportError } from './announcer.js';
import { createCarrier, type Carrier } from './carry-on.js';
import { cancelOperation } from './cancel-run.js';
import { createLedger, type Ledger } from './ledger.js';
import { parseArgument, runIdSchema } from './parse-argument.js';
import { REQUEST_AGENT_NAME, requestAgent } from '../requests/request-agent.js';
import { requestHandle } from '../requests/request-handle.js';
import { requestOperations } from './request-approval.js';
import { respondOperation } from './respond.js';
import { decideAndResume, type DecideParts } from './decide-and-resume.js';
import { startOperation } from './start.js';
import { withLinks } from './link-runtime.js';
import { runtimeMaintenance } from './runtime-maintenance.js';
import { runtimeOptionsSchema, type RuntimeOptions } from './runtime-options.js';
import type { LinkedRuntime, Runtime } from './runtime.js';
import { cancelWatch } from './cancel-watch.js';
import { connectorStates } from './connector-statuses.js';
import { warnOfUnsignedAgents } from './unsigned-agents-warning.js';
import { runtimeGrants } from './runtime-grants.js';
import { receiptSigner } from './receipts/receipt-keys.js';
import { createPersonTokens } from './person-tokens/person-tokens.js';

export type { RuntimeOptions } from './runtime-options.js';

const pendingSchema = optionsObject({
  limit: z.number().int().min(1).max(500).optional(),
  cursor: z.string().max(1024).optional(),
  agent: z.string().max(128).optional(),
  sessionId: idSchema.optional(),
});

/** The agents by name, the request agent among them; two with one name are a `ConfigError`. */
function agentsByName(list: readonly Agent[], requests: Agent): Map<string, Agent> {
  const agents = new Map<string, Agent>();
  for (const agent of list) {
    if (agents.has(agent.name))
      throw new ConfigError(`createRuntime: two agents are named ${agent.name}; agent names must be unique.`);
    if (agent.name === REQUEST_AGENT_NAME)
      throw new ConfigError(
        `createRuntime: the agent name ${REQUEST_AGENT_NAME} is the runtime's own (requests from callers outside the agent loop); give your agent another name, and set the request policy with createRuntime({ requests }).`,
      );
    agents.set(agent.name, agent);
  }
  agents.set(requests.name, requests);
  return agents;
}

/** Where spent links and webhook ids are kept once: given, the store's own, or (a store of this process only) memory. */
function onceStoreOf(options: RuntimeOptions, store: SnapshotStore): OnceStore {
  const once = options.once ?? store.once ?? (store.shared ? undefined : createMemoryOnceStore());
  if (once === undefined) {
    throw new ConfigError(
      'createRuntime: this store is shared by several processes and offers no OnceStore, so spent links and webhook ids would be kept per process; pass createRuntime({ once }) (createRedisOnceStore({ redis }) for Redis).',
      'missing_option',
    );
  }
  return once;
}

interface MaintenanceParts {
  readonly ledger: Ledger;
  readonly carrier: Carrier;
  readonly clock: () => number;
  readonly staleAfterMs: number;
  readonly queue: ResumeQueue | undefined;
  readonly reportError: ReportError;
  agentNamed(name: string): Agent;
}

/** `sweepExpired` and `recover`, changing runs through the ledger. */
function maintenanceOf({ ledger, carrier, clock, staleAfterMs, queue, reportError, agentNamed }: MaintenanceParts) {
  return runtimeMaintenance({
    store: ledger.store,
    clock,
    staleAfterMs,
    expire: (runId, now) =>
      ledger.update(runId, (current) => {
        const events = expiryEvents(current, now);
        if (events.length === 0) return { unchanged: 0 };
        const next = stepAll(current, events);
        // Every request expiry denied (a sub-agent's too) leaves the run's list.
        return { next, result: current.pendingApprovals.length - next.pendingApprovals.length };
      }),
    nudge: (runId, now) =>
      ledger.update(runId, (current) => {
        const { events, reminded, escalated } = nudgeEvents(agentNamed(current.agentName), current, now);
        if (events.length === 0) return { unchanged: { reminded: 0, escalated: 0 } };
        return { next: stepAll(current, events), result: { reminded, escalated } };
      }),
    carryOn: (next) => carrier.carryOn(next, queue ? 'enqueue' : 'inline'),
    continueRun: carrier.continueRun,
    reportError,
  });
}

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
export function createRuntime(
  options: RuntimeOptions & { readonly links: Omit<ApprovalLinkOptions, 'clock'> },
): LinkedRuntime;
export function createRuntime(options: RuntimeOptions): Runtime;
export function createRuntime(options: RuntimeOptions): Runtime {
  parseArgument(runtimeOptionsSchema, options, 'createRuntime');
  const requests = requestAgent(options.requests, options.clock);
  const ownAgents = options.agents ?? [];
  const agents = agentsByName(ownAgents, requests);
  const store = options.store ?? createMemoryStore();
  warnOfUnsignedAgents(store, options.requests === undefined ? ownAgents : [...ownAgents, requests]);
  const once = onceStoreOf(options, store);
  const clock = options.clock ?? Date.now;
  const maxRetries = options.maxRetries ?? 10;
  const { queue } = options;
  const agentNamed = (name: string): Agent => {
    const agent = agents.get(name);
    if (!agent) throw new AgentNotFoundError(name, [...agents.keys()]);
    return agent;
  };
  const announcer = createAnnouncer(options, store);
  const { reportError } = announcer;
  const { telemetry } = options;
  const receipts = options.receipts === undefined ? undefined : receiptSigner(options.receipts);
  const ledger = createLedger({
    receipts,
    store,
    maxRetries,
    announce: announcer.announce,
    telemetry,
    onTelemetryError: (error, runId) => reportError(error, 'telemetry', runId),
  });
  const leaseOwner = options.workerId ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const carrier = createCarrier({
    ledger,
    clock,
    queue,
    leaseOwner,
    announcer,
    telemetry,
    agentNamed,
    listeningForCancels: cancelWatch(store, agents, reportError),
  });
  const grantOps = runtimeGrants(agents, clock);
  const { recordDecision, ...grantQueries } = grantOps;
  const staleAfterMs = options.staleAfterMs ?? 60_000;

  const respond = respondOperation({ ledger, carrier, maxRetries, agentNamed, recordDecision });
  const decideParts: DecideParts = {
    resume: carrier.resume,
    resumeRepeat: (snapshot) => carrier.carryOnRepeat(snapshot, 'inline'),
    reportLate: (error, runId) => reportError(error, 'resume', runId),
    modeOf: carrier.modeOf,
  };

  const announcePending = pendingAnnouncer({
    store,
    once,
    clock,
    announce: announcer.announce,
    reportError,
    owner: leaseOwner,
  });
  if (options.announcePendingOnStart === true) void announcePending();

  const start = startOperation({ ledger, carrier, agentNamed });
  const requestRuns = {
    get: ledger.get,
    resume: carrier.resume,
    cancel: cancelOperation({ ledger, clock, agentNamed }),
    subscribe: announcer.subscribe,
  };
  const runtime: Runtime = {
    store,
    once,
    ...(queue === undefined ? {} : { queue }),
    ...(telemetry === undefined ? {} : { telemetry }),
    ...(receipts === undefined ? {} : { receiptKeys: receipts.keySet }),
    ...(options.personTokens === undefined ? {} : { personTokens: createPersonTokens(options.personTokens, clock) }),
    agent: agentNamed,
    start,
    ...requestOperations(start, requestRuns),
    approvalRequest: (id) => requestHandle(requestRuns, parseArgument(runIdSchema, id, 'approvalRequest')),
    get: ledger.get,
    respond,
    decide: (runId, response, decideOptions = {}) => {
      const { writes } = decideOptions;
      return decideAndResume(
        decideParts,
        (mode) => respond(runId, response, { mode, ...(writes === undefined ? {} : { writes }) }),
        decideOptions,
        'decide',
      );
    },
    addRequest: addRequestOperation(ledger, agentNamed),
    announcePending,
    resume: carrier.resume,
    async pending(listOptions: ListPendingOptions = {}) {
      parseArgument(pendingSchema, listOptions, 'pending');
      return store.listPending(listOptions);
    },
    cancel: requestRuns.cancel,
    ...maintenanceOf({ ledger, carrier, clock, staleAfterMs, queue, reportError, agentNamed }),
    subscribe: announcer.subscribe,
    connectors: () => connectorStates(agents.values()),
    ...grantQueries,
  };
  return options.links === undefined ? runtime : withLinks(runtime, { ...options.links, clock }, decideParts);
}
