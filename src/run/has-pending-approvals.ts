import type { AgentSnapshot } from './agent-snapshot.js';

/**
 * True when the run waits for people: it stopped in `awaitingApproval` with at least one request still undecided.
 * False once every request is decided (the run is ready to resume), and for a run that ended.
 *
 * @example
 * const snap = await agent.execute({ input: 'remove /tmp/x' });
 * if (hasPendingApprovals(snap)) await notify(snap.pendingApprovals);
 */
export function hasPendingApprovals(snapshot: Pick<AgentSnapshot, 'status' | 'pendingApprovals'>): boolean {
  return snapshot.status === 'awaitingApproval' && snapshot.pendingApprovals.length > 0;
}
