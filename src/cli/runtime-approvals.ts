// The CLI on a runtime loaded in its own process (--runtime): decisions carried on here, unless the run's tools live
// in another process (an MCP gateway's runs, decided through mcpGatewayAgent, which has none): those are recorded
// only, and that process, which follows its runs, carries them out.
import { isGatewayAgentName } from '../mcp/gateway-agent.js';
import type { AgentSnapshot } from '../run/agent-snapshot.js';
import { runView } from '../http/run-view.js';
import type { RespondMode, Runtime } from '../runtime/runtime.js';
import type { Approvals, Decided, ShownRun } from './approvals.js';

/** As long as a timer waits (about 24.8 days): the terminal waits for the run. */
const UNBOUNDED_MS = 2 ** 31 - 1;

const shown = (snapshot: AgentSnapshot): ShownRun => ({
  ...runView(snapshot),
  turns: snapshot.turns,
  maxTurns: snapshot.maxTurns,
});

/** `runtime` as the CLI's `Approvals`. */
export function runtimeApprovals(runtime: Runtime): Approvals {
  return {
    pending: (options) => runtime.pending(options),
    get: async (runId) => shown(await runtime.get(runId)),
    async respond(runId, response, mode) {
      const before = await runtime.get(runId);
      const request = before.pendingApprovals.find((pending) => pending.approvalId === response.approvalId);
      // An agent registered here without tools stands in for one whose tools are elsewhere: resuming here would fail.
      const elsewhere =
        request !== undefined &&
        (mode === undefined || mode === 'inline') &&
        runtime.agent(before.agentName).tools.size === 0;
      // The one decision path; a reviewer at the terminal waits for the run however long it takes here.
      const result = await runtime.decide(runId, response, {
        mode: elsewhere ? 'record' : (mode ?? 'inline'),
        waitMs: UNBOUNDED_MS,
      });
      const { snapshot } = result;
      const ran =
        request !== undefined &&
        snapshot.messages.some((message) => message.role === 'tool' && message.toolCallId === request.toolCallId);
      const approved =
        snapshot.audit.find((entry) => entry.approvalId === response.approvalId)?.decision === 'approved';
      return {
        status: result.status,
        duplicate: result.duplicate,
        ...(result.vote === undefined ? {} : { vote: result.vote }),
        run: runView(snapshot),
        where: whereItRuns(snapshot, { approved, ran, elsewhere, mode }),
        elsewhere: elsewhere && approved,
      } satisfies Decided;
    },
    grants: (options) => runtime.grants(options),
    revokeGrant: (grantId) => runtime.revokeGrant(grantId),
    clearSession: (sessionId) => runtime.clearSession(sessionId),
    cancel: async (runId, reason) => shown(await runtime.cancel(runId, reason)),
  };
}

/** Where the decided call runs, in the reviewer's words. */
function whereItRuns(
  snapshot: AgentSnapshot,
  facts: {
    readonly approved: boolean;
    readonly ran: boolean;
    readonly elsewhere: boolean;
    readonly mode: RespondMode | undefined;
  },
): string {
  const { runId, status } = snapshot;
  if (!facts.approved) return `the call does not run; run ${runId} is ${status}`;
  if (facts.elsewhere) {
    const who = isGatewayAgentName(snapshot.agentName) ? 'the gateway' : 'the process that has its tools';
    return `recorded; ${who} carries it out (its agent has no tools here); run ${runId} is ${status}`;
  }
  if (facts.ran) return `the tool ran here in this process; run ${runId} is ${status}`;
  if (facts.mode === 'enqueue')
    return `queued: a worker runs the tool (countersign worker), not this process; run ${runId} is ${status}`;
  if (facts.mode === 'record')
    return `recorded only: the tool runs where the run is resumed (countersign resume ${runId})`;
  return `the tool runs here in the process that decides the run's last pending approval; run ${runId} is ${status}`;
}
