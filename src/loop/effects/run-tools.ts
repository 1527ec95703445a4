import { assertCallMayRun, turnLookup } from '../../decisions/authority/call-gate.js';
import { firstRunnable, isRunnable } from '../../run/tool-call-index.js';
import type { AgentEvent } from '../../machine/agent-machine.js';
import { runCall } from './run-call.js';
import type { EffectOutcome, Run } from './run.js';

/**
 * The gate, for every runnable call of the turn before any runs, so an uncovered or tampered one stops the turn
 * before its siblings run; each once per execute: the snapshot only changes here, through pure steps.
 */
async function verifyTurn(run: Run): Promise<void> {
  const { snapshot, verified } = run;
  const lookup = turnLookup(snapshot, run.settings.decisionSecret);
  for (const item of snapshot.toolCalls) {
    if (!isRunnable(item) || verified.has(item.toolCallId)) continue;
    await assertCallMayRun(run.agent, run.settings.decisionSecret, snapshot, item, lookup);
    verified.add(item.toolCallId);
  }
}

/**
 * `executingTools`: runs the next approved call of the turn and records its outcome. Without a checkpoint or a
 * listener nobody sees the snapshot between two calls of a turn: the calls run one after another and their events
 * are applied together, so a turn of a thousand calls copies and freezes its records once.
 */
export async function runTools(run: Run): Promise<EffectOutcome> {
  let next = firstRunnable(run.snapshot.toolCalls);
  if (!run.verified.has(next!.record.toolCallId)) await verifyTurn(run);
  const together = !run.options.checkpoint && !run.settings.onEvent;
  const events: AgentEvent[] = [];
  while (next) {
    events.push(...(await runCall(run, next.record, next.position)));
    next = together && !run.aborted ? firstRunnable(run.snapshot.toolCalls, next.position + 1) : undefined;
  }
  run.advance(...events);
  return 'next';
}
