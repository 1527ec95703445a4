// One tools/call through the gateway: a run in the runtime, found again by a digest of the call so a retried call
// waits on the same run (and two identical calls at once make one approval), awaited up to waitMs. The run may be
// decided anywhere: a decision recorded by a process without the upstream leaves the run ready and not going on,
// and the gateway carries it on here, where the upstream is (the runtime's commits and leases keep it exactly once).
import { randomUUID } from 'node:crypto';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { RunNotFoundError } from '../../errors.js';
import { digestOf } from '../../machine/digest.js';
import type { AgentSnapshot } from '../../machine/types.js';
import { awaitRun } from '../../runtime/await-run.js';
import type { Runtime } from '../../runtime/runtime.js';
import { errorAnswer, finalAnswer, pendingAnswer } from './gateway-answer.js';
import { gatewayInput } from './gateway-model.js';

export interface GatewayCallSettings {
  readonly runtime: Runtime;
  readonly agentName: string;
  /** How long a call waits for its run to end before answering "pending". */
  readonly waitMs: number;
  /** How long a call's key names its run (the approval TTL, or a day). */
  readonly keyTtlMs: number;
}

/** How often a waiting call looks at its run (events of this process wake it at once). */
const POLL_MS = 200;
const ended = new Set(['completed', 'failed', 'cancelled']);

/** The function that answers one tools/call (`toolName` as the gateway lists it). */
export function gatewayCalls(settings: GatewayCallSettings) {
  const { runtime } = settings;
  const keyPrefix = `mcp-gateway:${settings.agentName}:`;
  /** Runs this process is carrying on now, so two waiters never carry on one run at once. */
  const going = new Map<string, Promise<AgentSnapshot>>();

  const carryOn = (runId: string, work: () => Promise<AgentSnapshot>) => {
    let running = going.get(runId);
    if (running === undefined) {
      running = work().finally(() => going.delete(runId));
      going.set(runId, running);
    }
    return running;
  };

  const exists = async (runId: string) => {
    // A run is recorded just after its key is taken: give its starter one poll before calling the key abandoned.
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        await runtime.get(runId);
        return true;
      } catch (error) {
        if (!(error instanceof RunNotFoundError)) throw error;
        await pause(POLL_MS);
      }
    }
    return false;
  };

  /** The run of this call: the one an identical call started and that has not been answered since, or a new one. */
  const runFor = async (key: string, tool: string, args: Record<string, unknown>): Promise<string> => {
    for (;;) {
      const fresh = `mcpgw_${randomUUID()}`;
      const held = await runtime.once.putIfAbsent(key, fresh, settings.keyTtlMs);
      if (held === undefined) {
        try {
          await runtime.start(settings.agentName, { input: gatewayInput({ tool, arguments: args }), runId: fresh }, { mode: 'record' });
        } catch (error) {
          await runtime.once.replace(key, fresh, undefined, settings.keyTtlMs);
          throw error;
        }
        void carryOn(fresh, () => runtime.resume(fresh)).catch(() => undefined);
        return fresh;
      }
      if (await exists(held)) return held;
      // Its starter died before recording it: free the key and take it.
      await runtime.once.replace(key, held, undefined, settings.keyTtlMs);
    }
  };

  /** The run once it ended, or as it stands at `deadline`. */
  const settle = async (runId: string, deadline: number, signal?: AbortSignal): Promise<AgentSnapshot> => {
    let seen: number | undefined;
    let swept = false;
    for (;;) {
      const own = going.get(runId);
      // A failure after the wait surfaces to the next waiter, which carries the run on again.
      if (own !== undefined) await awaitRun(own, deadline - Date.now(), () => undefined);
      const snapshot = await runtime.get(runId);
      if (ended.has(snapshot.status)) return snapshot;
      const now = Date.now();
      if (snapshot.status === 'running' && snapshot.version === seen && !going.has(runId)) {
        // Ready and not moving since the last look: its decisions were recorded where the upstream is not.
        await carryOn(runId, () => runtime.resume(runId));
        seen = undefined;
        continue;
      }
      if (!swept && snapshot.pendingApprovals.some((request) => request.expiresAt !== undefined && request.expiresAt <= now)) {
        swept = true;
        await runtime.sweepExpired(now);
        continue;
      }
      if (now >= deadline || signal?.aborted) return snapshot;
      seen = snapshot.version;
      await changeOf(runId, Math.min(POLL_MS, deadline - now), signal);
    }
  };

  /** Resolves on the next event of `runId` in this process, after `ms`, or when `signal` aborts. */
  const changeOf = (runId: string, ms: number, signal?: AbortSignal) =>
    new Promise<void>((resolve) => {
      const done = () => {
        stop();
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const stop = runtime.subscribe((event) => event.runId === runId && done());
      const timer = setTimeout(done, ms);
      signal?.addEventListener('abort', done, { once: true });
    });

  return async (tool: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<CallToolResult> => {
    const deadline = Date.now() + settings.waitMs;
    const key = `${keyPrefix}${digestOf({ tool, args })}`;
    try {
      const runId = await runFor(key, tool, args);
      const snapshot = await settle(runId, deadline, signal);
      if (!ended.has(snapshot.status)) return pendingAnswer(snapshot);
      // Answered: a later identical call is a new call, and asks again.
      await runtime.once.replace(key, runId, undefined, settings.keyTtlMs);
      return finalAnswer(snapshot);
    } catch (error) {
      return errorAnswer(`The approval gateway could not handle the call: ${(error as Error)?.message ?? String(error)}`);
    }
  };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
