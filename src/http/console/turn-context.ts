import { isCountersignError } from '../../errors.js';
import type { AgentSnapshot, PendingApprovalEntry, Runtime } from '../../index.js';
import { shownPassage } from './console-text.js';

/**
 * What led to a call, as a card shows it: the user's request (the last user message before the call) and the
 * agent's words (the text of the model's answer that made the call), each through the console's display filter.
 */
export interface TurnContext {
  readonly request?: string;
  readonly said?: string;
}

/**
 * The context of the call `toolCallId` in `run` (see `TurnContext`); empty when the run's messages no longer hold it.
 *
 * @example
 * turnContext(run, request.toolCallId); // { request: 'Tidy up /tmp', said: 'I will delete the old logs.' }
 */
export function turnContext(run: AgentSnapshot, toolCallId: string): TurnContext {
  const at = run.messages.findLastIndex(
    (message) => message.role === 'assistant' && message.toolCalls?.some((call) => call.id === toolCallId) === true,
  );
  if (at === -1) return {};
  const said = run.messages[at]!.content.trim();
  const asked =
    run.messages
      .slice(0, at)
      .findLast((message) => message.role === 'user')
      ?.content.trim() ?? '';
  return {
    ...(asked === '' ? {} : { request: shownPassage(asked) }),
    ...(said === '' ? {} : { said: shownPassage(said) }),
  };
}

/**
 * The context of each entry's call, by approval id, reading each run once. A run that is gone by now (deleted
 * between the list and the read) has none.
 *
 * @example
 * const contexts = await turnContexts(runtime, (await runtime.pending({ limit: 500 })).items);
 */
export async function turnContexts(
  runtime: Pick<Runtime, 'get'>,
  entries: readonly PendingApprovalEntry[],
): Promise<ReadonlyMap<string, TurnContext>> {
  const runIds = [...new Set(entries.map((entry) => entry.runId))];
  const runs = new Map<string, AgentSnapshot>();
  await Promise.all(
    runIds.map(async (runId) => {
      try {
        runs.set(runId, await runtime.get(runId));
      } catch (error) {
        if (!isCountersignError(error) || error.code !== 'run_not_found') throw error;
      }
    }),
  );
  const contexts = new Map<string, TurnContext>();
  for (const entry of entries) {
    const run = runs.get(entry.runId);
    if (run !== undefined) contexts.set(entry.request.approvalId, turnContext(run, entry.request.toolCallId));
  }
  return contexts;
}
