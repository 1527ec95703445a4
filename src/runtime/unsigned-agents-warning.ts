import type { Agent } from '../agent/agent-types.js';
import type { SnapshotStore } from '../ports/snapshot-store.js';

/** The `code` of the warning `createRuntime` emits for agents without `decisionSecret` on a shared store. */
export const UNSIGNED_AGENTS_WARNING = 'COUNTERSIGN_NO_DECISION_SECRET';

let warned = false;

/**
 * Warns, once per process, when a runtime on a shared store (Redis) has agents
 * without `decisionSecret`: anyone who can write to that store could then mark
 * a call approved, and it would run. A process warning (`process.emitWarning`,
 * code `COUNTERSIGN_NO_DECISION_SECRET`) reaches operators without any option
 * set, and `node --disable-warning=COUNTERSIGN_NO_DECISION_SECRET` silences it. `fix` says where the secret is set:
 * `createAgent({ decisionSecret })` in code; a command line that builds the agent itself names its own setting.
 * @internal
 */
export function warnOfUnsignedAgents(
  store: SnapshotStore,
  agents: readonly Pick<Agent, 'name' | 'settings'>[],
  fix = 'Set createAgent({ decisionSecret })',
): void {
  if (warned || store.shared !== true) return;
  const unsigned = agents.filter((agent) => agent.settings.decisionSecret === undefined).map((agent) => agent.name);
  if (unsigned.length === 0 || typeof process === 'undefined' || typeof process.emitWarning !== 'function') return;
  warned = true;
  process.emitWarning(
    `countersign: agent${unsigned.length === 1 ? '' : 's'} ${unsigned.join(', ')} run${unsigned.length === 1 ? 's' : ''} on a shared store without decisionSecret, ` +
      `so whatever can write to the store can approve a tool call. ${fix} (at least 16 random characters, the same in every process) before production.`,
    { type: 'CountersignWarning', code: UNSIGNED_AGENTS_WARNING },
  );
}
