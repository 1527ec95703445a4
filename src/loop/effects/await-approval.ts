import { expiryDecisions } from '../../policy/expiry.js';
import type { EffectOutcome, Run } from './run.js';

/**
 * `awaitingApproval`: applies the decisions expiry makes (approvals past their time), and stops the loop while
 * people still have something to decide.
 */
export async function awaitApproval(run: Run): Promise<EffectOutcome> {
  const decisions = expiryDecisions(run.snapshot, run.settings.clock());
  if (decisions.length === 0) return 'stop';
  run.advance({ type: 'DECIDED', at: run.settings.clock(), decisions });
  return run.snapshot.state === 'awaitingApproval' ? 'stop' : 'next';
}
