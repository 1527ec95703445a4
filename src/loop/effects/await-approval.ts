import { expiryEvents } from '../../policy/expiry.js';
import type { EffectOutcome, Run } from './run.js';

/**
 * `awaitingApproval`: applies the decisions expiry makes (approvals past their time, its sub-agents' too), and stops
 * the loop while people still have something to decide.
 */
export async function awaitApproval(run: Run): Promise<EffectOutcome> {
  const events = expiryEvents(run.snapshot, run.settings.clock());
  if (events.length === 0) return 'stop';
  run.advance(...events);
  return run.snapshot.state === 'awaitingApproval' ? 'stop' : 'next';
}
