import type { AgentSnapshot, DecidedCall, RuleSuggestion, Runtime } from '../../index.js';
import { suggestRules } from '../../index.js';
import type { HistoryEntry } from './audit-history.js';

/** The arguments the model gave a call of the run, as the person saw them asked; undefined when not found. */
function argsOf(run: AgentSnapshot, toolCallId: string): unknown {
  for (const message of run.messages) {
    const call = message.toolCalls?.find((candidate) => candidate.id === toolCallId);
    if (call !== undefined) return call.args;
  }
  return undefined;
}

function decidedOf(entry: HistoryEntry, args?: unknown): DecidedCall {
  return {
    agentName: entry.agentName,
    toolName: entry.toolName,
    decision: entry.decision,
    source: entry.source,
    ...(entry.by === undefined ? {} : { by: entry.by }),
    ...(entry.approvers === undefined ? {} : { approvers: entry.approvers }),
    ...(entry.quorum === undefined ? {} : { quorum: entry.quorum }),
    ...(entry.editedArgsDigest === undefined ? {} : { edited: true }),
    ...(args === undefined ? {} : { args }),
  };
}

/**
 * The rules the console proposes from its history (`suggestRules`), their bounds drawn from the arguments of the
 * approved calls, read from their runs. An agent this runtime does not know, or a tool it marks `grantable: false`,
 * gets none. Runs are read only for the agents and tools that qualify on counts alone.
 *
 * @example
 * const suggestions = await ruleSuggestions(runtime, history.search({}));
 */
export async function ruleSuggestions(
  runtime: Runtime,
  entries: readonly HistoryEntry[],
): Promise<readonly RuleSuggestion[]> {
  const grantable = (agentName: string, toolName: string) => {
    try {
      return runtime.agent(agentName).tools.get(toolName)?.grantable !== false;
    } catch {
      return false;
    }
  };
  const candidates = suggestRules(
    entries.map((entry) => decidedOf(entry)),
    { grantable },
  );
  if (candidates.length === 0) return candidates;
  const wanted = new Set(candidates.map((found) => JSON.stringify([found.agent, found.tool])));
  const runs = new Map<string, Promise<AgentSnapshot | undefined>>();
  const runOf = (runId: string) => {
    if (!runs.has(runId))
      runs.set(
        runId,
        runtime.get(runId).catch(() => undefined),
      );
    return runs.get(runId)!;
  };
  const decided = await Promise.all(
    entries
      .filter((entry) => wanted.has(JSON.stringify([entry.agentName, entry.toolName])))
      .map(async (entry) => {
        const run = await runOf(entry.runId);
        return decidedOf(entry, run === undefined ? undefined : argsOf(run, entry.toolCallId));
      }),
  );
  return suggestRules(decided, { grantable });
}
