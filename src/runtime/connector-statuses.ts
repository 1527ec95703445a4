import type { Agent } from '../agent/agent-types.js';
import type { ConnectorStatus } from '../run/types.js';

/** One connector the runtime's agents use, and whether it can be reached now. */
export interface ConnectorState {
  readonly name: string;
  readonly status: ConnectorStatus;
  /** Agents with at least one tool on this connector. */
  readonly agents: readonly string[];
}

/** Every connector whose tools report a status (`connectorStatus`), once per name, with the worst status its tools report. */
export function connectorStates(agents: Iterable<Agent>): ConnectorState[] {
  const byName = new Map<string, { status: ConnectorStatus; agents: Set<string> }>();
  for (const agent of agents) {
    for (const tool of agent.tools.values()) {
      if (tool.connector === undefined || tool.connectorStatus === undefined) continue;
      const status = tool.connectorStatus();
      const known = byName.get(tool.connector);
      if (!known) byName.set(tool.connector, { status, agents: new Set([agent.name]) });
      else {
        known.agents.add(agent.name);
        if (severity[status] > severity[known.status]) known.status = status;
      }
    }
  }
  return [...byName].map(([name, { status, agents }]) => ({ name, status, agents: [...agents] }));
}

const severity: Readonly<Record<ConnectorStatus, number>> = { connected: 0, connecting: 1, disconnected: 2, failed: 3 };
