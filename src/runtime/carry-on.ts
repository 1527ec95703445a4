// How a recorded run goes on: here (inline), on a worker (enqueue) or nowhere yet (record). Used after a start, a
// decision, an expiry and by `resume`; one process counts the runs it is carrying on, so a repeat leaves them be.
import { z } from 'zod';
import { ConfigError, VersionConflictError } from '../errors.js';
import type { Agent } from '../agent/agent-types.js';
import type { AgentSnapshot } from '../run/agent-snapshot.js';
import type { ResumeQueue } from '../ports/resume-queue.js';
import type { Telemetry } from '../ports/telemetry.js';
import type { Announcer } from './announcer.js';
import type { Ledger } from './ledger.js';
import { parseArgument } from './parse-argument.js';
import { hasLiveLease } from './runtime-maintenance.js';
import type { RespondMode } from './runtime.js';

// Built once: a zod schema costs far more to build than to check a value with (a decision would pay it every call).
const modeSchema = z.enum(['inline', 'record', 'enqueue']).default('inline');

const ended = new Set(['completed', 'failed', 'cancelled']);

export interface CarrySettings {
  readonly ledger: Ledger;
  readonly clock: () => number;
  readonly queue: ResumeQueue | undefined;
  readonly leaseOwner: string;
  readonly announcer: Announcer;
  readonly telemetry: Telemetry | undefined;
  agentNamed(name: string): Agent;
  /** Runs an execution while listening for cancels from other processes. */
  listeningForCancels(body: () => Promise<AgentSnapshot>): Promise<AgentSnapshot>;
}

/** How the runtime's operations carry a recorded run on. */
export interface Carrier {
  /** Runs a stored run on from where it is; a writer that commits first wins and its view is returned. */
  continueRun(snapshot: AgentSnapshot): Promise<AgentSnapshot>;
  resume(runId: string): Promise<AgentSnapshot>;
  /** The queue of mode 'enqueue', checked before anything is written, so a misconfigured call records nothing. */
  queueFor(mode: RespondMode, where: string): ResumeQueue | undefined;
  modeOf(value: RespondMode | undefined, where: string): RespondMode;
  /** Carries on a run just recorded: `queued` when its commit already put it on the queue. */
  carryOn(snapshot: AgentSnapshot, mode: RespondMode, queued?: boolean): Promise<AgentSnapshot>;
  /** Carries on a run a repeat found, when nothing may be at it. */
  carryOnRepeat(snapshot: AgentSnapshot, mode: RespondMode): Promise<AgentSnapshot>;
}

export function createCarrier(settings: CarrySettings): Carrier {
  const { ledger, clock, queue, leaseOwner, announcer } = settings;

  /** How many carry-ons of each run are under way in this process (a repeat leaves such a run to them). */
  const carrying = new Map<string, number>();

  const continueRun = async (snapshot: AgentSnapshot): Promise<AgentSnapshot> => {
    const agent = settings.agentNamed(snapshot.agentName);
    const { runId } = snapshot;
    carrying.set(runId, (carrying.get(runId) ?? 0) + 1);
    try {
      const checkpoint = ledger.checkpointFrom(snapshot);
      // What the execution ended with, as stored: its decisions carry the receipts the ledger signed them with.
      return checkpoint.asStored(
        await settings.listeningForCancels(() =>
          agent.execute(snapshot, {
            checkpoint,
            leaseOwner,
            ...announcer.executeReports,
            onModelDelta: announcer.announceDelta,
            ...(settings.telemetry === undefined ? {} : { telemetry: settings.telemetry }),
          }),
        ),
      );
    } catch (error) {
      if (!(error instanceof VersionConflictError)) throw error;
      return ledger.get(runId);
    } finally {
      const left = (carrying.get(runId) ?? 1) - 1;
      if (left === 0) carrying.delete(runId);
      else carrying.set(runId, left);
    }
  };

  const resume = async (runId: string): Promise<AgentSnapshot> => {
    const snapshot = await ledger.get(runId);
    if (ended.has(snapshot.status) || hasLiveLease(snapshot, clock())) return snapshot;
    return continueRun(snapshot);
  };

  const queueFor = (mode: RespondMode, where: string): ResumeQueue | undefined => {
    if (mode !== 'enqueue') return undefined;
    if (!queue) {
      throw new ConfigError(
        `${where}: mode 'enqueue' needs a queue; pass createRuntime({ queue: createRedisResumeQueue({ redis }) }), or use mode 'inline'. Nothing was recorded.`,
        'missing_option',
      );
    }
    return queue;
  };
  const modeOf = (value: RespondMode | undefined, where: string): RespondMode =>
    parseArgument(modeSchema, value, where, " Use 'inline', 'record' or 'enqueue'.");

  const carryOn = async (snapshot: AgentSnapshot, mode: RespondMode, queued = false): Promise<AgentSnapshot> => {
    if (snapshot.status !== 'running' || mode === 'record') return snapshot;
    const target = queueFor(mode, 'carry on');
    if (target) {
      if (!queued) await target.enqueue(snapshot.runId);
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

  return { continueRun, resume, queueFor, modeOf, carryOn, carryOnRepeat };
}
